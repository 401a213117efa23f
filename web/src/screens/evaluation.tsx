import { type Schemas } from '../api';
import { useCancelEvaluation, useEvaluation, useEvaluationComparison } from '../api/evaluations';
import { Link, useSearch } from '../router';
import { useSession } from '../session';
import { Badge, DataTable, ErrorText, Loadable, Page, shortRunId } from '../ui';
import { pct } from './evaluations';

type Evaluation = Schemas['Evaluation'];
const LABELS = ['escalate', 'false_positive', 'benign'] as const;
/** What a person reads for a disposition (the API's values are enum names). */
const LABEL_TEXT: Record<(typeof LABELS)[number] | 'none', string> = { escalate: 'Escalate', false_positive: 'False positive', benign: 'Benign', none: 'No verdict' };
/** What each sandboxed call did: every call is listed, including read-only ones that really ran. */
const EFFECT_TEXT: Record<Evaluation['cases'][number]['toolCalls'][number]['effect'], string> = {
  called: 'ran (read-only)',
  shadow: 'on the shadow alert',
  recorded: 'recorded, not run',
  approval: 'would have asked approval',
  refused: 'refused',
};

/** The calls in call order, consecutive identical ones (tool and effect) folded into "× n". */
function SandboxedCalls({ calls }: { calls: Evaluation['cases'][number]['toolCalls'] }) {
  const runs: Array<{ toolName: string; effect: keyof typeof EFFECT_TEXT; n: number }> = [];
  for (const c of calls) {
    const last = runs.at(-1);
    if (last && last.toolName === c.toolName && last.effect === c.effect) last.n += 1;
    else runs.push({ toolName: c.toolName, effect: c.effect, n: 1 });
  }
  if (runs.length === 0) return <span className="muted">none</span>;
  return <ol className="calls">{runs.map((r, i) => <li key={i}><span className="mono">{r.toolName}</span>{r.n > 1 && ` × ${r.n}`} <span className={`muted effect-${r.effect}`}>({EFFECT_TEXT[r.effect]})</span></li>)}</ol>;
}

/** One evaluation: progress (polled while it runs), the summary with its confusion matrix, the cases wrong ones first with their transcripts. */
export default function EvaluationView({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const { can } = useSession();
  const evaluation = useEvaluation(id);
  const cancel = useCancelEvaluation(id);
  return (
    <Loadable query={evaluation}>
      {(e) => (
        <Page title={`Evaluation on ${e.datasetName}`} actions={<Link to={`/evaluations?agentId=${e.agentId}`}>All evaluations of the agent</Link>}>
          <p role="status" aria-live="polite">
            <Badge value={e.status} /> {e.progress.finished} of {e.progress.total} cases finished{e.progress.running > 0 && `, ${e.progress.running} running`}
            {e.status === 'running' && can('agent.execute') && <> <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>Cancel</button></>}
          </p>
          <ErrorText error={cancel.error} />
          <SummaryView summary={e.summary} />
          <h2>Cases (wrong first)</h2>
          <DataTable head={<><th scope="col">Case</th><th scope="col">Expected</th><th scope="col">Verdict</th><th scope="col">Criteria</th><th scope="col">Sandboxed calls</th><th scope="col">Tokens</th><th scope="col">Latency</th><th scope="col">Transcript</th></>}>
            {e.cases.map((c) => (
              <tr key={c.caseId} className={c.correct === false || c.status === 'error' ? 'wrong' : undefined}>
                <td>{c.title}{c.error && <div className="error small">{c.error}</div>}</td>
                <td>{c.expected.disposition ? LABEL_TEXT[c.expected.disposition] : '—'}</td>
                <td>{c.status === 'done' || c.status === 'error' ? <><Badge value={c.verdict ?? 'none'} /> {c.correct === true ? '✓' : c.correct === false ? '✗' : ''}</> : <Badge value={c.status} />}</td>
                <td>{c.criteria.map((k) => <div key={k.criterion} className="small" title={k.explanation}>{k.met === null ? '·' : k.met ? '✓' : '✗'} {k.criterion}</div>)}</td>
                <td className="small"><SandboxedCalls calls={c.toolCalls} /></td>
                <td>{c.tokens.total}</td>
                <td>{c.latencyMs === null ? '—' : `${(c.latencyMs / 1000).toFixed(1)} s`}</td>
                <td>{c.runId ? <Link to={`/agents/${e.agentId}/runs/${c.runId}`} className="mono">{shortRunId(c.runId)}</Link> : '—'}</td>
              </tr>
            ))}
          </DataTable>
        </Page>
      )}
    </Loadable>
  );
}

function SummaryView({ summary: s }: { summary: Evaluation['summary'] }) {
  return (
    <div className="grid two">
      <dl className="facts" aria-label="Summary">
        <dt>Accuracy</dt><dd>{pct(s.accuracy)} <span className="muted">({s.correct} of {s.labelled} labelled)</span></dd>
        <dt>True-positive rate</dt><dd>{pct(s.truePositiveRate)} <span className="muted">escalations caught</span></dd>
        <dt>False-positive rate</dt><dd>{pct(s.falsePositiveRate)} <span className="muted">non-attacks escalated</span></dd>
        <dt>Would have closed a true positive</dt><dd className={s.wouldHaveClosedTruePositive > 0 ? 'error' : undefined}>{s.wouldHaveClosedTruePositive} <span className="muted">(must be 0)</span></dd>
        <dt>Criteria</dt><dd>{s.criteria.met} of {s.criteria.graded} graded met</dd>
        <dt>Tokens</dt><dd>{s.tokens.total}</dd>
        <dt>Latency</dt><dd>p50 {ms(s.latencyMs.p50)} · p95 {ms(s.latencyMs.p95)}</dd>
      </dl>
      <table aria-label="Confusion matrix: rows expected, columns verdict">
        <thead><tr><th scope="col">Expected (rows) / verdict (columns)</th>{([...LABELS, 'none'] as const).map((l) => <th key={l} scope="col">{LABEL_TEXT[l]}</th>)}</tr></thead>
        <tbody>
          {LABELS.map((row) => (
            <tr key={row}>
              <th scope="row">{LABEL_TEXT[row]}</th>
              {([...LABELS, 'none'] as const).map((col) => <td key={col} className={row === col ? 'good' : s.confusionMatrix[row][col] > 0 ? 'bad' : undefined}>{s.confusionMatrix[row][col]}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const ms = (v: number | null) => (v === null ? '—' : `${(v / 1000).toFixed(1)} s`);

/** Two evaluations of one dataset side by side, and the cases whose verdict changed. */
export function CompareView() {
  const [search] = useSearch();
  const a = search.get('a') ?? '';
  const b = search.get('b') ?? '';
  const cmp = useEvaluationComparison(a, b);
  return (
    <Page title="Compare evaluations">
      <Loadable query={cmp}>
        {(d) => (
          <>
            <div className="grid two">
              {([['A', d.a], ['B', d.b]] as const).map(([name, e]) => (
                <section key={name} aria-label={`Evaluation ${name}`}>
                  <h2><Link to={`/evaluations/${e.id}`}>{name}: {new Date(e.createdAt).toLocaleString()}</Link></h2>
                  <SummaryView summary={e.summary} />
                </section>
              ))}
            </div>
            <h2>Changed verdicts ({d.changed.length})</h2>
            {d.changed.length === 0 ? <p className="state empty">No case changed its verdict.</p> : (
              <DataTable head={<><th scope="col">Case</th><th scope="col">Expected</th><th scope="col">A</th><th scope="col">B</th><th scope="col">Change</th></>}>
                {d.changed.map((c) => (
                  <tr key={c.caseId}>
                    <td>{c.title}</td>
                    <td>{c.expected ?? '—'}</td>
                    <td>{c.a.runId ? <Link to={`/agents/${d.a.agentId}/runs/${c.a.runId}`}>{c.a.verdict ?? 'none'}</Link> : c.a.verdict ?? 'none'}</td>
                    <td>{c.b.runId ? <Link to={`/agents/${d.b.agentId}/runs/${c.b.runId}`}>{c.b.verdict ?? 'none'}</Link> : c.b.verdict ?? 'none'}</td>
                    <td><Badge value={c.change} /></td>
                  </tr>
                ))}
              </DataTable>
            )}
          </>
        )}
      </Loadable>
    </Page>
  );
}
