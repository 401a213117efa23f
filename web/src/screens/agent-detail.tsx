import { useState } from 'react';
import { type Paths } from '../api';
import { useAgent, useSaveAgent } from '../api/agents';
import { useDestinations } from '../api/destinations';
import { useModelAliases } from '../api/model-aliases';
import { useAgentRuns } from '../api/runs';
import { useCreateTrigger, useSetTriggerRouting, useTriggers } from '../api/triggers';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { Badge, CopyButton, ErrorText, Loadable, ManagedByCode, Page, Select, Time, DataTable, shortRunId } from '../ui';
import { ToolPicker } from './tool-picker';
import { ApprovalSettingsEditor, DEFAULT_APPROVAL_SETTINGS, prunePolicies, ToolPoliciesEditor } from './tool-policies';
import { AgentHistory } from './agent-versions';

type Agent = Paths['/api/agents/{agentId}']['get']['responses'][200]['content']['application/json'];

export default function AgentDetail({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const isNew = id === 'new';
  // A restore replaces the agent under the form: a new key starts the form from the restored agent.
  const [formKey, setFormKey] = useState(0);
  const agent = useAgent(id, { enabled: !isNew });
  if (isNew) return <Page title="New agent"><AgentForm /></Page>;
  return (
    <Loadable query={agent}>
      {(a) => (
        <Page title={a.name} actions={<><ManagedByCode resource={a} /> <Link to={`/evaluations?agentId=${a.id}`}>Evaluations</Link> <Link to="/agents">All agents</Link></>}>
          <AgentForm key={formKey} agent={a} />
          <Triggers agentId={a.id} />
          <AgentHistory agentId={a.id} current={a.version} managed={a.managedBy === 'code'} onRestored={() => setFormKey((k) => k + 1)} />
          <Runs agentId={a.id} />
        </Page>
      )}
    </Loadable>
  );
}

function AgentForm({ agent }: { agent?: Agent }) {
  const { can } = useSession();
  const aliases = useModelAliases();
  const destinations = useDestinations({ enabled: can('destination.read') });
  const [form, setForm] = useState({
    name: agent?.name ?? '',
    description: agent?.description ?? '',
    systemPrompt: agent?.systemPrompt ?? '',
    modelAlias: agent?.modelAlias ?? '',
    toolNames: agent?.toolNames ?? [],
    outputDestinationIds: agent?.outputDestinationIds ?? [],
    inputs: (agent?.inputs ?? []) as AgentInput[],
    maxSteps: agent?.maxSteps ?? 10,
    maxDurationMs: agent?.maxDurationMs ?? 300_000,
    acceptanceCriteria: agent?.acceptanceCriteria ?? [],
    notifyCriteriaFailed: agent?.notifyCriteriaFailed ?? false,
    // Sent back as they are even when unchanged: PUT replaces the agent, and an omitted field takes its default.
    toolPolicies: agent?.toolPolicies ?? {},
    approvalSettings: agent?.approvalSettings ?? DEFAULT_APPROVAL_SETTINGS,
  });
  // The output schema is edited as text; it is sent only when it parses as a JSON object schema.
  const [schemaText, setSchemaText] = useState(agent?.structuredOutputSchema ? JSON.stringify(agent.structuredOutputSchema, null, 2) : '');
  const schema = parseSchema(schemaText);
  const save = useSaveAgent(agent?.id);
  const submit = () => save.mutate({ ...form, structuredOutputSchema: schema.value }, { onSuccess: (saved) => { if (!agent) navigate(`/agents/${saved.id}`); } });
  const field = (k: 'name' | 'description') => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  // Managed by code: the repository is the truth (the API answers 409 without force).
  const managed = agent?.managedBy === 'code';
  const editable = can(agent ? 'agent.manage' : 'agent.create') && !managed;
  return (
    <form className="stack" onSubmit={(e) => { e.preventDefault(); submit(); }} aria-label="Agent">
      <fieldset disabled={!editable}>
        <label className="field"><span>Name</span><input value={form.name} onChange={field('name')} required /></label>
        <label className="field"><span>Description</span><input value={form.description} onChange={field('description')} /></label>
        <label className="field"><span>System prompt</span><textarea rows={6} value={form.systemPrompt} onChange={(e) => setForm({ ...form, systemPrompt: e.target.value })} required /></label>
        <Select label="Model" value={form.modelAlias} any="Choose a model alias" options={(aliases.data?.aliases ?? []).map((a) => [a.alias, `${a.alias} (${a.providerName} · ${a.modelId})`] as [string, string])} onChange={(v) => setForm({ ...form, modelAlias: v })} />
        <ToolPicker value={form.toolNames} onChange={(toolNames) => setForm({ ...form, toolNames, toolPolicies: prunePolicies(form.toolPolicies, toolNames) })} />
        <ToolPoliciesEditor toolNames={form.toolNames} value={form.toolPolicies} onChange={(toolPolicies) => setForm({ ...form, toolPolicies })} />
        <ApprovalSettingsEditor value={form.approvalSettings} onChange={(approvalSettings) => setForm({ ...form, approvalSettings })} />
        {destinations.data && destinations.data.length > 0 && (
          <fieldset>
            <legend>Output destinations</legend>
            {destinations.data.map((d) => (
              <label key={d.id} className="check">
                <input
                  type="checkbox"
                  checked={form.outputDestinationIds.includes(d.id)}
                  onChange={(e) => setForm({ ...form, outputDestinationIds: e.target.checked ? [...form.outputDestinationIds, d.id] : form.outputDestinationIds.filter((x) => x !== d.id) })}
                />
                {d.name}
              </label>
            ))}
          </fieldset>
        )}
        <InputsEditor inputs={form.inputs} onChange={(inputs) => setForm({ ...form, inputs })} />
        <fieldset>
          <legend>Limits of a run</legend>
          <div className="inline-form">
            <label className="field"><span>Steps (model calls, 1–100)</span><input type="number" min={1} max={100} value={form.maxSteps} onChange={(e) => setForm({ ...form, maxSteps: Number(e.target.value) })} required /></label>
            <label className="field"><span>Time (seconds, 1–3600)</span><input type="number" min={1} max={3600} value={form.maxDurationMs / 1000} onChange={(e) => setForm({ ...form, maxDurationMs: Math.round(Number(e.target.value) * 1000) })} required /></label>
          </div>
          <p className="muted small">Tokens are not capped per run; each run's tokens are on its page and in Insights.</p>
        </fieldset>
        <fieldset>
          <legend>Acceptance criteria</legend>
          <label className="field"><span>One per line; the judge model grades every run on them (docs/evaluations.md)</span>
            <textarea rows={3} value={form.acceptanceCriteria.join('\n')} onChange={(e) => setForm({ ...form, acceptanceCriteria: e.target.value.split('\n').map((l) => l.trim()).filter(Boolean) })} />
          </label>
          <label className="check"><input type="checkbox" checked={form.notifyCriteriaFailed} onChange={(e) => setForm({ ...form, notifyCriteriaFailed: e.target.checked })} /> Send run.criteria_failed to the output destinations when a run fails one</label>
        </fieldset>
        <label className="field">
          <span>Output schema (JSON Schema with "type": "object"; empty for free text)</span>
          <textarea className="mono" rows={8} value={schemaText} onChange={(e) => setSchemaText(e.target.value)} aria-invalid={schema.error ? true : undefined} aria-describedby="schema-error" spellCheck={false} />
        </label>
        <p id="schema-error" className={schema.error ? 'error small' : 'muted small'} role={schema.error ? 'alert' : undefined}>{schema.error ?? (schema.value ? 'Valid JSON object schema: the final answer must satisfy it.' : 'No schema: the final answer is free text.')}</p>
        {agent?.warnings?.map((w) => <p key={w} className="muted small">{w}</p>)}
        {managed && <p className="muted small">Applied from code{agent?.managedSource ? ` (source ${agent.managedSource})` : ''}: change its file in the repository and run <code>rampart apply</code>.</p>}
        <button type="submit" disabled={save.isPending || Boolean(schema.error)}>{agent ? 'Save agent' : 'Create agent'}</button>
      </fieldset>
      {save.isSuccess && <p role="status">Saved.</p>}
      <ErrorText error={save.error} />
    </form>
  );
}

type AgentInput = { name: string; description?: string; type: 'string' | 'number' | 'boolean' | 'object' | 'array'; required: boolean };
const INPUT_TYPES = ['string', 'number', 'boolean', 'object', 'array'] as const;

/** The output schema as typed: null when empty, else parsed and checked to be an object schema (the API compiles it). */
function parseSchema(text: string): { value: Record<string, unknown> | null; error: string | null } {
  if (!text.trim()) return { value: null, error: null };
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { value: null, error: 'The schema must be a JSON object.' };
    if ((v as { type?: unknown }).type !== 'object') return { value: null, error: 'The schema must have "type": "object".' };
    return { value: v as Record<string, unknown>, error: null };
  } catch (e) {
    return { value: null, error: `Not valid JSON: ${(e as Error).message}` };
  }
}

/** The agent's declared inputs (name, type, required, description), one row each. */
function InputsEditor({ inputs, onChange }: { inputs: AgentInput[]; onChange: (v: AgentInput[]) => void }) {
  const update = (i: number, patch: Partial<AgentInput>) => onChange(inputs.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  return (
    <fieldset>
      <legend>Inputs</legend>
      {inputs.length === 0 && <p className="muted small">No declared inputs: the run's input is given to the agent as it comes.</p>}
      {inputs.map((x, i) => (
        <div key={i} className="inline-form" role="group" aria-label={`Input ${i + 1}`}>
          <label className="field"><span>Name</span><input value={x.name} pattern="[A-Za-z_][A-Za-z0-9_]{0,63}" onChange={(e) => update(i, { name: e.target.value })} required /></label>
          <Select label="Type" value={x.type} any={null} options={[...INPUT_TYPES]} onChange={(v) => update(i, { type: v as AgentInput['type'] })} />
          <label className="check"><input type="checkbox" checked={x.required} onChange={(e) => update(i, { required: e.target.checked })} /> Required</label>
          <label className="field grow"><span>Description</span><input value={x.description ?? ''} onChange={(e) => update(i, { description: e.target.value })} /></label>
          <button type="button" onClick={() => onChange(inputs.filter((_, j) => j !== i))} aria-label={`Remove input ${x.name || i + 1}`}>Remove</button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...inputs, { name: '', type: 'string', required: false }])}>Add input</button>
    </fieldset>
  );
}

const SOURCES = ['webhook', 'jira', 'jira-automation', 'slack', 'linear', 'bugcrowd', 'hackerone', 'zscaler', 'darktrace', 'events'] as const;
type Source = (typeof SOURCES)[number];
const SETUP: Record<Source, string> = {
  webhook: 'POST JSON to the webhook URL with "Authorization: Bearer <secret>" (or X-Rampart-Secret), or sign it GitHub style (X-Hub-Signature-256) or as Standard Webhooks.',
  jira: 'Jira → System → WebHooks: the webhook URL; Jira signs with X-Hub-Signature using the secret.',
  'jira-automation': 'A Jira Automation rule → "Send web request" to the webhook URL with the header X-Rampart-Secret: <secret>.',
  slack: 'Your Slack app → Event Subscriptions: the webhook URL; save the app\'s signing secret on the trigger (X-Slack-Signature).',
  linear: 'Linear → Settings → API → Webhooks: the webhook URL; save Linear\'s signing secret on the trigger (Linear-Signature).',
  bugcrowd: 'Bugcrowd → Integrations → Webhooks: the webhook URL and the secret (X-Bugcrowd-Digest).',
  hackerone: 'HackerOne → Program settings → Webhooks: the webhook URL and the secret (X-H1-Signature).',
  zscaler: 'Zscaler → an HTTP notification to the webhook URL with the header X-Rampart-Secret: <secret>.',
  darktrace: 'Darktrace → Workflow Integrations → Webhook: the webhook URL with the header X-Rampart-Secret: <secret>.',
  events: 'A log shipper (Vector http sink, Fluent Bit or Logstash http output) posting NDJSON or JSON events to the URL, with ?product=&category=&service= for their logsource and "Authorization: Bearer <secret>"; events are matched against the Sigma detections, this agent is not run (docs/detections.md).',
};

/** routeAlerts (issue 26): what the switch changes, said where it is set. */
const ROUTE_ALERTS_HELP = 'Off (default): each alert this trigger creates is assigned to this agent, and the run the delivery starts triages it. On: the alert goes through the triage routes like any other, and this agent is not run for it.';

function Triggers({ agentId }: { agentId: string }) {
  const { can } = useSession();
  const triggers = useTriggers(agentId);
  const [source, setSource] = useState<Source>('webhook');
  const [name, setName] = useState('');
  const [routeAlerts, setRouteAlerts] = useState(false);
  const [created, setCreated] = useState<{ webhookUrl: string; secret: string } | null>(null);
  // The answer is the saved trigger: put in the list at once (no refetch, no flicker back).
  const setRouting = useSetTriggerRouting(agentId);
  // Shown as switched from the click until the answer is in the list. Held in React state set in
  // the change handler: the mutation's own isPending reaches React only a task later (TanStack
  // notifies on setTimeout 0), and meanwhile React puts the controlled box back as it was.
  const [switching, setSwitching] = useState<Record<string, boolean>>({});
  const switchRouting = (triggerId: string, on: boolean) => {
    setSwitching((s) => ({ ...s, [triggerId]: on }));
    setRouting.mutate({ triggerId, on }, { onSettled: () => setSwitching(({ [triggerId]: _settled, ...rest }) => rest) });
  };
  const routed = (t: { id: string; routeAlerts: boolean }) => switching[t.id] ?? t.routeAlerts;
  const create = useCreateTrigger(agentId);
  const submit = () => create.mutate({ source, name, routeAlerts }, { onSuccess: (c) => { setCreated(c); setName(''); setRouteAlerts(false); } });
  return (
    <section aria-labelledby="triggers">
      <h2 id="triggers">Triggers</h2>
      <Loadable query={triggers} isEmpty={(d) => d.triggers.length === 0} empty="No triggers: this agent runs only when called.">
        {(d) => (
          <ul className="cards">
            {d.triggers.map((t) => (
              <li key={t.id} className="card">
                <strong>{t.name}</strong> <Badge value={t.source} /> <Badge value={t.enabled ? 'enabled' : 'disabled'} /> <ManagedByCode resource={t} />
                {t.webhookUrl && (<div className="copy-row"><code className="break">{t.webhookUrl}</code> <CopyButton value={t.webhookUrl} label="webhook URL" /></div>)}
                {t.cronSchedule && <div>Schedule <code>{t.cronSchedule}</code> · next <Time at={t.nextRunAt} /></div>}
                {t.source !== 'cron' && <p className="muted small">{SETUP[t.source as Source]}</p>}
                {t.createAlert && (
                  can('agent.manage') && t.managedBy !== 'code' ? (
                    <label className="check">
                      <input type="checkbox" checked={routed(t)} disabled={t.id in switching} onChange={(e) => switchRouting(t.id, e.target.checked)} /> Route its alerts through the triage routes
                    </label>
                  ) : <div>Alerts: {t.routeAlerts ? 'through the triage routes' : 'assigned to this agent'}</div>
                )}
                {t.createAlert && <p className="muted small">{ROUTE_ALERTS_HELP}</p>}
              </li>
            ))}
          </ul>
        )}
      </Loadable>
      {can('agent.manage') && (
        <form className="inline-form" onSubmit={(e) => { e.preventDefault(); submit(); }} aria-label="New trigger">
          <Select label="Source" value={source} any={null} options={[...SOURCES]} onChange={(v) => setSource(v as Source)} />
          <label className="field"><span>Name</span><input value={name} onChange={(e) => setName(e.target.value)} /></label>
          <label className="check"><input type="checkbox" checked={routeAlerts} onChange={(e) => setRouteAlerts(e.target.checked)} /> Route its alerts through the triage routes</label>
          <button type="submit" disabled={create.isPending}>Add trigger</button>
          <ErrorText error={create.error} />
        </form>
      )}
      {can('agent.manage') && <p className="muted small">New triggers create an alert per delivery. {ROUTE_ALERTS_HELP}</p>}
      <ErrorText error={setRouting.error} />
      {created && (
        <div className="notice" role="status">
          <p>Trigger created. The secret is shown this once:</p>
          <div className="copy-row"><span>Webhook URL</span> <code className="break">{created.webhookUrl}</code> <CopyButton value={created.webhookUrl} label="webhook URL" /></div>
          <div className="copy-row"><span>Secret</span> <code className="break">{created.secret}</code> <CopyButton value={created.secret} label="secret" /></div>
        </div>
      )}
    </section>
  );
}

function Runs({ agentId }: { agentId: string }) {
  const runs = useAgentRuns(agentId, 20);
  return (
    <section aria-labelledby="runs">
      <h2 id="runs">Runs</h2>
      <Loadable query={runs} isEmpty={(d) => d.runs.length === 0} empty="No runs yet.">
        {(d) => (
          <DataTable head={<><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Mode</th><th scope="col">Steps</th><th scope="col">Tokens</th><th scope="col">Score</th><th scope="col">Queued</th></>}>
            {d.runs.map((r) => (
              <tr key={r.id}>
                <td className="nowrap"><Link to={`/agents/${agentId}/runs/${r.id}`} className="mono" title={r.id}>{shortRunId(r.id)}</Link> <CopyButton value={r.id} label={`run id ${r.id}`} /></td>
                <td><Badge value={r.status} /></td>
                <td>{r.mode}</td>
                <td>{r.stepCount}</td>
                <td>{r.usage.totalTokens}</td>
                <td title="The judge's score against the acceptance criteria">{r.evalScore ?? '—'}</td>
                <td><Time at={r.queuedAt} /></td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loadable>
    </section>
  );
}
