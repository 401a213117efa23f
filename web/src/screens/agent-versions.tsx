import { useState } from 'react';
import { type Schemas } from '../api';
import { useAgentVersionDiff, useAgentVersionDocument, useAgentVersions, useRestoreAgentVersion } from '../api/agents';
import { useSearch } from '../router';
import { useSession } from '../session';
import { CopyButton, DataTable, ErrorText, Loadable, Pager, Time, pageOf } from '../ui';

type Summary = Schemas['AgentVersionSummary'];
type Change = Schemas['AgentVersionDiff']['changes'][number];

const PER_PAGE = 20;

const SOURCES: Record<Summary['source'], string> = { api: 'API', console: 'console', code: 'code (apply)', restore: 'restore', migration: 'before versions' };

/**
 * An agent's history (its versions, newest first), the diff between two of them and restore.
 * The compared pair is in the address (`?version=3&against=1`), so a diff can be shared.
 */
export function AgentHistory({ agentId, current, managed = false, onRestored }: { agentId: string; current: number; managed?: boolean; onRestored: () => void }) {
  const [search, set] = useSearch();
  const page = pageOf(search);
  // The current version is in the key: a save or restore refetches the list.
  const versions = useAgentVersions(agentId, current, page, PER_PAGE);
  const shown = Number(search.get('version')) || null;
  const compare = (version: number, against: number) => set({ version: String(version), against: String(against) }, { keepPage: true });
  return (
    <section aria-labelledby="history">
      <h2 id="history">History</h2>
      <Loadable query={versions} isEmpty={(d) => d.versions.length === 0} empty="No versions.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">Version</th><th scope="col">When</th><th scope="col">Who</th><th scope="col">Source</th><th scope="col"><span className="sr-only">Actions</span></th></>}>
              {d.versions.map((v) => (
                <tr key={v.version} aria-current={v.version === current ? 'true' : undefined}>
                  <td>v{v.version}{v.version === current && <span className="muted"> (current)</span>}</td>
                  <td><Time at={v.createdAt} /></td>
                  <td><Who by={v.createdBy} /></td>
                  <td>{SOURCES[v.source]}{v.restoredFrom !== null && ` of v${v.restoredFrom}`}{v.sourceRef && <span className="muted mono"> {v.sourceRef}</span>}</td>
                  <td className="nowrap">
                    <button type="button" onClick={() => compare(v.version, v.version - 1)}>{v.version > 1 ? `Changes from v${v.version - 1}` : `Show v${v.version}`}</button>{' '}
                    {v.version !== current && <button type="button" onClick={() => compare(current, v.version)}>Compare v{v.version} with current</button>}{' '}
                    {v.version !== current && <Restore agentId={agentId} version={v.version} managed={managed} onRestored={onRestored} />}
                  </td>
                </tr>
              ))}
            </DataTable>
            {d.totalCount > PER_PAGE && <Pager page={page} perPage={PER_PAGE} total={d.totalCount} />}
          </>
        )}
      </Loadable>
      {shown !== null && <VersionDiff agentId={agentId} version={shown} against={Number(search.get('against') ?? shown - 1)} current={current} onCompare={compare} onClose={() => set({ version: null, against: null }, { keepPage: true })} />}
    </section>
  );
}

function Who({ by }: { by: Summary['createdBy'] }) {
  const { session } = useSession();
  if (by.type === 'system' || !by.userId) return <span className="muted">system</span>;
  const who = by.userId === session?.user.id ? 'you' : <span className="mono" title={by.userId}>user …{by.userId.slice(-8)}</span>;
  return <>{who}{by.apiKeyId && <span className="muted"> (API key)</span>}</>;
}

/**
 * Restore, confirmed in place (the console opens no browser dialogs): a first click asks, the second restores.
 * An agent managed by code is changed in its file: the panel shows the version's document to paste, and
 * restoring here anyway is a forced restore that marks the agent as drifted from code.
 */
function Restore({ agentId, version, managed, onRestored }: { agentId: string; version: number; managed: boolean; onRestored: () => void }) {
  const { can } = useSession();
  const [asking, setAsking] = useState(false);
  const restore = useRestoreAgentVersion(agentId, version, managed);
  const confirm = () => restore.mutate(undefined, { onSuccess: onRestored });
  if (!can('agent.manage')) return null;
  if (!asking) return <button type="button" onClick={() => setAsking(true)}>Restore v{version}</button>;
  if (managed) {
    return (
      <div role="group" aria-label={`Restore v${version} of an agent managed by code`} className="card stack">
        <p className="small">This agent is managed by code: put v{version}'s document in its file and run <code>rampart apply</code>, so the repository stays the truth.</p>
        <VersionDocument agentId={agentId} version={version} />
        <p className="muted small">Restoring here instead is an emergency change: the agent is marked as drifted from code until the next apply puts its file back.</p>
        <span>
          <button type="button" onClick={confirm} disabled={restore.isPending}>Restore v{version} here anyway</button>{' '}
          <button type="button" onClick={() => setAsking(false)}>Cancel</button>
        </span>
        <ErrorText error={restore.error} />
      </div>
    );
  }
  return (
    <span role="group" aria-label={`Restore v${version}?`}>
      <span className="muted small">The agent becomes v{version} again (its triggers keep their settings), as a new version. </span>
      <button type="button" onClick={confirm} disabled={restore.isPending}>Confirm restore of v{version}</button>{' '}
      <button type="button" onClick={() => setAsking(false)}>Cancel</button>
      <ErrorText error={restore.error} />
    </span>
  );
}

/** A version as the Agent document of `rampart apply` (GET …/document), to copy into the agent's file. */
function VersionDocument({ agentId, version }: { agentId: string; version: number }) {
  const document = useAgentVersionDocument(agentId, version);
  return (
    <Loadable query={document}>
      {(yaml) => (
        <>
          <pre className="code-block" tabIndex={0} aria-label={`v${version} as an Agent document (YAML)`}>{yaml}</pre>
          <CopyButton value={yaml} label={`v${version}'s document`} />
        </>
      )}
    </Loadable>
  );
}

/** What changed between two versions: each field with its values, text and structured fields line by line. */
function VersionDiff(props: { agentId: string; version: number; against: number; current: number; onCompare: (v: number, a: number) => void; onClose: () => void }) {
  const { agentId, version, against, current } = props;
  const diff = useAgentVersionDiff(agentId, version, against);
  const pick = (label: string, value: number, onChange: (n: number) => void, min: number) => (
    <label className="field"><span>{label}</span><input type="number" min={min} max={current} value={value} onChange={(e) => Number(e.target.value) >= min && onChange(Number(e.target.value))} /></label>
  );
  return (
    <section aria-labelledby="version-diff" className="card">
      <h3 id="version-diff">{against === 0 ? `Version ${version}` : `Changes from v${against} to v${version}`}</h3>
      <div className="inline-form">
        {pick('From version (0: nothing)', against, (n) => props.onCompare(version, n), 0)}
        {pick('To version', version, (n) => props.onCompare(n, against), 1)}
        <button type="button" onClick={props.onClose}>Close</button>
      </div>
      <Loadable query={diff} isEmpty={(d) => d.changes.length === 0} empty="The two versions are the same.">
        {(d) => (
          <dl className="diff">
            {d.changes.map((c) => <FieldDiff key={c.field} change={c} />)}
          </dl>
        )}
      </Loadable>
    </section>
  );
}

const show = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

function FieldDiff({ change: c }: { change: Change }) {
  return (
    <>
      <dt>{c.field}</dt>
      <dd>
        {c.lines ? (
          <pre className="diff-lines" aria-label={`${c.field}, line by line`}>
            {c.lines.map((l, i) => (
              <div key={i} className={`diff-${l.op}`}>
                <span aria-hidden="true">{l.op === 'added' ? '+ ' : l.op === 'removed' ? '- ' : '  '}</span>
                {l.op !== 'unchanged' && <span className="sr-only">{l.op}: </span>}
                {l.text}
              </div>
            ))}
          </pre>
        ) : (
          <span><del className="diff-removed">{show(c.before)}</del> → <ins className="diff-added">{show(c.after)}</ins></span>
        )}
      </dd>
    </>
  );
}
