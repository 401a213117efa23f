import { type Schemas } from '../api';
import { useAgent } from '../api/agents';
import { LIVE, PAUSED, useRun } from '../api/runs';
import { Markdown } from '../markdown';
import { Link } from '../router';
import { Badge, CopyButton, Json, Loadable, Page, Time, shortRunId } from '../ui';
import { ApprovalsPanel } from './approval-card';

type Run = Schemas['AgentRunDetail'];
type Part = { type: string; text?: string; toolCallId?: string; toolName?: string; args?: unknown; input?: unknown; result?: unknown; output?: unknown; isError?: boolean };

function seconds(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** One run: a header (agent, what started it, the alert it triages, times, tokens, status), its input and output, and the transcript once. */
export default function RunView({ params }: { params: Record<string, string> }) {
  const { agentId, runId } = params as { agentId: string; runId: string };
  const run = useRun(runId);
  const agent = useAgent(agentId);
  return (
    <Page title={`Run ${shortRunId(runId)}`} actions={<Link to={`/agents/${agentId}`}>Back to the agent</Link>}>
      <Loadable query={run}>
        {(r) => (
          <>
            <RunHeader run={r} agentName={agent.data?.name} />
            <ApprovalsPanel filter={{ runId }} context="run" />
            <div className="grid two">
              <section aria-labelledby="run-input">
                <h2 id="run-input">Input</h2>
                {typeof r.input === 'string' ? <Markdown text={r.input} /> : <Json value={r.input ?? null} />}
              </section>
              <section aria-labelledby="run-output">
                <h2 id="run-output">Output</h2>
                {!r.result ? <p className="state">{r.status === PAUSED ? 'The run waits for a decision (Approvals above); the output appears when it finishes.' : LIVE.has(r.status) ? 'The output appears when the run finishes.' : 'No output.'}</p> : (
                  <>
                    {r.result.finalAssistantMessage ? <Markdown text={r.result.finalAssistantMessage} /> : <p className="muted">(no final message)</p>}
                    {r.result.structuredOutputResult && <><h3>Structured output</h3><Json value={parseJson(r.result.structuredOutputResult)} /></>}
                  </>
                )}
              </section>
            </div>
            {r.acceptanceCriteriaResults && (
              <section aria-labelledby="run-criteria">
                <h2 id="run-criteria">Acceptance criteria · score {r.evalScore}</h2>
                {r.evalExplanation && <p>{r.evalExplanation}</p>}
                <ul>{r.acceptanceCriteriaResults.map((c) => <li key={c.criterion}>{c.met ? '✓' : '✗'} {c.criterion} <span className="muted">— {c.explanation}</span></li>)}</ul>
              </section>
            )}
            {r.result && <Transcript result={r.result} />}
          </>
        )}
      </Loadable>
    </Page>
  );
}

function RunHeader({ run: r, agentName }: { run: Run; agentName: string | undefined }) {
  const started = r.triggerSource ? `${r.mode} · ${r.triggerSource} trigger` : r.mode;
  return (
    <dl className="facts run-head" aria-label="Run">
      <dt>Status</dt><dd><span role="status" aria-live="polite"><Badge value={r.status} /> {r.statusMessage && <span className="muted">{r.statusMessage}</span>}</span></dd>
      <dt>Agent</dt><dd><Link to={`/agents/${r.agentId}`}>{agentName ?? r.agentId}</Link>{r.agentVersion !== null && <> <Link to={`/agents/${r.agentId}?version=${r.agentVersion}&against=${r.agentVersion - 1}`} title="The version this run executes: what changed in it">v{r.agentVersion}</Link></>}</dd>
      <dt>Started by</dt><dd>{started}{r.triggerContext?.eventType && <span className="muted"> ({r.triggerContext.eventType})</span>}</dd>
      {r.alertId && (<><dt>Triages</dt><dd><Link to={`/alerts/${r.alertId}`}><span className="mono">{r.alertDisplayId ?? r.alertId}</span></Link></dd></>)}
      <dt>Run id</dt><dd><code>{r.id}</code> <CopyButton value={r.id} label="run id" /></dd>
      <dt>Queued</dt><dd><Time at={r.queuedAt} /></dd>
      <dt>Started</dt><dd><Time at={r.startedAt} /></dd>
      <dt>Duration</dt><dd>{seconds(r.durationMs)}{r.attemptCount > 1 && <span className="muted"> · {r.attemptCount} attempts</span>}</dd>
      <dt>Steps</dt><dd>{r.stepCount}</dd>
      <dt>Tokens</dt><dd>{r.usage.totalTokens} <span className="muted">({r.usage.inputTokens} in, {r.usage.outputTokens} out)</span></dd>
      {r.deliveries.length > 0 && (<><dt>Delivered to</dt><dd>{r.deliveries.map((d) => <span key={d.id} className="nowrap"><Link to={`/destinations/${d.destinationId}`}>{d.destinationName}</Link> <Badge value={d.status} /> </span>)}</dd></>)}
    </dl>
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const partsOf = (content: unknown): Part[] => (Array.isArray(content) ? (content as Part[]) : [{ type: 'text', text: typeof content === 'string' ? content : JSON.stringify(content) }]);

/** The messages once, in order; tool calls and their results folded, each opened on demand. */
function Transcript({ result }: { result: NonNullable<Run['result']> }) {
  const results = new Map(result.allToolResultsReceived.map((x) => [x.toolCallId, x]));
  const lastText = result.finalAssistantMessage;
  return (
    <section aria-labelledby="transcript">
      <h2 id="transcript">Transcript</h2>
      <ol className="transcript">
        {result.messages.map((m, i) => {
          // Tool results are shown with their call; a tool message adds nothing on its own.
          if (m.role === 'tool') return null;
          return (
            <li key={i} className={`msg ${m.role}`}>
              <strong className="role">{m.role}</strong>
              {partsOf(m.content).map((p, j) => {
                if (p.type === 'text') {
                  if (m.role === 'system') return <details key={j}><summary>System prompt</summary><Markdown text={p.text ?? ''} /></details>;
                  if (m.role === 'assistant' && p.text === lastText && lastText) return <p key={j} className="muted small">The final answer (under Output).</p>;
                  return <TextWithJson key={j} text={p.text ?? ''} />;
                }
                if (p.type === 'tool-call') {
                  const res = results.get(p.toolCallId ?? '');
                  return (
                    <details key={j} className="tool-call">
                      <summary><code>{p.toolName}</code> {res ? <Badge value={res.isError ? 'error' : 'ok'} /> : <span className="muted">no result</span>}</summary>
                      <h3 className="small">Arguments</h3>
                      <Json value={p.args ?? p.input ?? null} />
                      {res && <><h3 className="small">{res.isError ? 'Error' : 'Result'}</h3><Json value={res.result} /></>}
                    </details>
                  );
                }
                return <Json key={j} value={p} />;
              })}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/**
 * A message's text with the JSON it carries (the alert, the webhook payload) as indented code
 * blocks, each collapsible, instead of one proportional-font paragraph (issue 47 item 16). A
 * block is a run of lines starting with `{` or `[` that parses as JSON as a whole.
 */
function TextWithJson({ text }: { text: string }) {
  const lines = text.split('\n');
  const parts: Array<{ prose: string } | { json: unknown; lines: number }> = [];
  let prose: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = lines[i]!.trimStart();
    let found = -1;
    let value: unknown;
    if (start.startsWith('{') || start.startsWith('[')) {
      // The shortest run of lines from here that parses (a payload is usually the rest of the message).
      for (let end = i; end < lines.length && found === -1; end++) {
        const last = lines[end]!.trimEnd();
        if (!last.endsWith('}') && !last.endsWith(']')) continue;
        try {
          value = JSON.parse(lines.slice(i, end + 1).join('\n'));
          if (value !== null && typeof value === 'object') found = end;
        } catch { /* not yet a whole JSON value */ }
      }
    }
    if (found === -1) { prose.push(lines[i]!); continue; }
    if (prose.length) parts.push({ prose: prose.join('\n') });
    prose = [];
    parts.push({ json: value, lines: found - i + 1 });
    i = found;
  }
  if (prose.length) parts.push({ prose: prose.join('\n') });
  return (
    <>
      {parts.map((part, k) => ('prose' in part ? <Markdown key={k} text={part.prose} /> : (
        <details key={k} open className="json-block">
          <summary>JSON ({Array.isArray(part.json) ? `${(part.json as unknown[]).length} items` : `${Object.keys(part.json as object).length} fields`})</summary>
          <pre className="code-block" tabIndex={0}>{JSON.stringify(part.json, null, 2)}</pre>
        </details>
      )))}
    </>
  );
}
