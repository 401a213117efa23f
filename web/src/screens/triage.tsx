import { useEffect, useState } from 'react';
import { ApiError, type Body } from '../api';
import { useSession } from '../session';
import { ErrorText, Loadable, Page, Select } from '../ui';
import { SEVERITIES } from './alerts';
import { useAgents } from '../api/agents';
import { useCodeDetections } from '../api/detections';
import { useSaveTriageRoutes, useSimulateTriageRoute, useTriageRoutes } from '../api/triage-routes';
import { useTriggerOptions } from '../api/triggers';
import { Conditions, tableKey, tableLabel, type Condition, type LogTableOption, type Route } from './route-conditions';

type Severity = (typeof SEVERITIES)[number];
type SimulateSource = NonNullable<Body<'/api/alert-triage-routes/simulate', 'post'>['source']>;

/** Which alerts the routes decide (issue 26): said where the routes are edited. */
function Origins() {
  return (
    <section aria-labelledby="origins" className="notice">
      <h2 id="origins">Which alerts these routes apply to</h2>
      <ul>
        <li><strong>Detection hits, alerts agents create, and alerts of people and the API</strong>: the first enabled route that matches, else the default agent, else unassigned.</li>
        <li><strong>A trigger's alert</strong> goes to the trigger's own agent, whose run (started by the same delivery) triages it, whatever the routes say — unless the trigger has <em>Route its alerts through the triage routes</em> (<code>routeAlerts</code>, on the agent's Triggers): then it is routed like any other, with source <code>trigger</code> and its type (e.g. <code>webhook</code>).</li>
        <li><strong>Hunt alerts</strong> go to the hunt alerts agent below.</li>
      </ul>
    </section>
  );
}

/** Triage routes: first match wins, top to bottom; the default agent takes the rest. */
export default function Triage() {
  const { can } = useSession();
  const data = useTriageRoutes();
  const [routes, setRoutes] = useState<Route[]>([]);
  const [defaultAgent, setDefaultAgent] = useState('');
  const [huntAgent, setHuntAgent] = useState('');
  useEffect(() => {
    if (!data.data) return;
    setRoutes(data.data.routes.map(({ id, name, enabled, conditions, responseAgentId }) => ({ id, name, enabled, conditions: conditions as Condition[], responseAgentId })));
    setDefaultAgent(data.data.defaultSettings.defaultResponseAgentId ?? '');
    setHuntAgent(data.data.huntAlertRouting.responseAgentId ?? '');
  }, [data.data]);
  const save = useSaveTriageRoutes();
  const move = (i: number, by: number) => setRoutes((rs) => { const n = [...rs]; const [r] = n.splice(i, 1); n.splice(i + by, 0, r!); return n; });
  const update = (i: number, patch: Partial<Route>) => setRoutes((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  // An error about one route (e.g. an assignment loop) is shown on that route.
  const issues = (save.error instanceof ApiError ? ((save.error.body as { issues?: Array<{ path: string; message: string }> })?.issues ?? []) : []);
  const routeOf = (path: string) => /^routes\.(\d+)(\.|$)/.exec(path)?.[1];
  const issueOf = (i: number) => issues.filter((x) => routeOf(x.path) === String(i)).map((x) => x.message).join('; ');
  // The general error line carries only what no route shows.
  const rest = issues.filter((x) => routeOf(x.path) === undefined);
  const general = issues.length === 0 ? save.error : rest.map((x) => (x.path ? `${x.path}: ${x.message}` : x.message)).join('; ');

  return (
    <Page title="Triage routes">
      <Loadable query={data}>
        {(d) => {
          const agents = d.responseAgents.map((a) => [a.id, a.name] as [string, string]);
          return (
            <>
              <Origins />
              <ol className="routes">
                {routes.length === 0 && <p className="state empty">No routes: every alert goes to the default agent.</p>}
                {routes.map((r, i) => (
                  <li key={r.id} className="card" aria-label={`Route ${i + 1}: ${r.name}`}>
                    <div className="inline-form">
                      <label className="field grow route-name"><span>Name</span><input value={r.name} maxLength={200} size={Math.max(24, r.name.length + 2)} onChange={(e) => update(i, { name: e.target.value })} /></label>
                      <label className="check"><input type="checkbox" checked={r.enabled} onChange={(e) => update(i, { enabled: e.target.checked })} /> Enabled</label>
                      <Select label="Agent" value={r.responseAgentId} any={null} options={agents} onChange={(v) => update(i, { responseAgentId: v })} />
                      <button type="button" onClick={() => move(i, -1)} disabled={i === 0} aria-label={`Move ${r.name} up`}>Up</button>
                      <button type="button" onClick={() => move(i, 1)} disabled={i === routes.length - 1} aria-label={`Move ${r.name} down`}>Down</button>
                      <button type="button" onClick={() => setRoutes(routes.filter((_, j) => j !== i))} aria-label={`Remove ${r.name}`}>Remove</button>
                    </div>
                    <Conditions routeName={r.name} conditions={r.conditions} logTables={d.logTableOptions} onChange={(conditions) => update(i, { conditions })} />
                    {issueOf(i) && <p className="error" role="alert">{issueOf(i)}</p>}
                  </li>
                ))}
              </ol>
              {agents.length > 0 && (
                <button type="button" onClick={() => setRoutes([...routes, { id: crypto.randomUUID(), name: `Route ${routes.length + 1}`, enabled: true, conditions: [{ type: 'severity', severities: ['high', 'critical'] }], responseAgentId: agents[0]![0] }])}>
                  Add route
                </button>
              )}
              <div className="inline-form">
                <Select label="Default agent" value={defaultAgent} any="None (leave unassigned)" options={agents} onChange={setDefaultAgent} />
                <Select label="Hunt alerts agent" value={huntAgent} any="None" options={agents} onChange={setHuntAgent} />
              </div>
              {can('alert.manage') && <button type="button" onClick={() => save.mutate({ routes, defaultResponseAgentId: defaultAgent || null, huntResponseAgentId: huntAgent || null })} disabled={save.isPending}>Save routes</button>}
              {save.isSuccess && <p role="status">Saved.</p>}
              <ErrorText error={general} />
              <Simulate routes={routes} defaultAgent={defaultAgent} logTables={d.logTableOptions} />
            </>
          );
        }}
      </Loadable>
    </Page>
  );
}

type Origin = '' | 'trigger' | 'detection' | 'agent' | 'user' | 'hunt';
const ORIGINS: Array<[Origin, string]> = [['trigger', 'a trigger'], ['detection', 'a detection hit'], ['agent', 'an agent (create_alert)'], ['user', 'a person or the API'], ['hunt', 'the hunt']];
type Simulation = { outcome: string; routeName: string | null; responseAgentName: string | null; reason: string };

/** The organization's triggers (of the first 100 agents), for the simulation's origin: fetched when that origin is picked. */
function useTriggers(enabled: boolean) {
  const agents = useAgents();
  return useTriggerOptions(agents.data, enabled);
}

/** The simulation's answer in words: where the alert goes, then intake's own reason. */
function outcomeText(r: Simulation): string {
  const agent = r.responseAgentName ? `"${r.responseAgentName}"` : null;
  switch (r.outcome) {
    case 'route': return `Route matched: "${r.routeName}" → ${agent}`;
    case 'default': return `No route matched: the default agent ${agent}`;
    case 'unassigned': return 'No route matched and no default agent: left unassigned';
    case 'trigger': return agent ? `Assigned to the trigger's agent ${agent}` : "Assigned to the trigger's own agent";
    case 'hunt': return agent ? `Hunt alert: the hunt alerts agent ${agent}` : 'Hunt alert: no hunt alerts agent, left unassigned';
    default: return r.outcome;
  }
}

function Simulate({ routes, defaultAgent, logTables }: { routes: Route[]; defaultAgent: string; logTables: LogTableOption[] }) {
  const [severity, setSeverity] = useState<Severity>('high');
  const [source, setSource] = useState('webhook');
  const [createdBy, setCreatedBy] = useState<Origin>('');
  const [triggerId, setTriggerId] = useState('');
  const [codeDetectionId, setCodeDetectionId] = useState('');
  const [table, setTable] = useState('');
  const detections = useCodeDetections();
  const triggers = useTriggers(createdBy === 'trigger');
  const logTable = logTables.find((o) => tableKey(o) === table);
  const sim = useSimulateTriageRoute();
  const simulate = () =>
    sim.mutate({
      // Typed as the server's list; a value outside it is answered 400 naming the valid ones, shown as the error.
      severity, source: source as SimulateSource, routes, defaultResponseAgentId: defaultAgent || null,
      ...(createdBy ? { createdBy } : {}),
      ...(createdBy === 'trigger' && triggerId ? { triggerId } : {}),
      ...(codeDetectionId ? { codeDetectionId } : {}),
      ...(logTable ? { logTable: { source: logTable.source, stream: logTable.stream } } : {}),
    });
  return (
    <section aria-labelledby="simulate">
      <h2 id="simulate">Simulate</h2>
      <p className="muted small">What intake would do with a sample alert, with the routes as edited above (not yet saved). Nothing is created.</p>
      <form className="inline-form" onSubmit={(e) => { e.preventDefault(); simulate(); }}>
        <Select label="Created by" value={createdBy} any="Decided by the source" options={ORIGINS} onChange={(v) => { setCreatedBy(v as Origin); setTriggerId(''); }} />
        {createdBy === 'trigger' && (
          <Select label="Trigger" value={triggerId} any={triggers.isLoading ? 'Loading…' : 'Any trigger'} options={triggers.data ?? []} onChange={setTriggerId} />
        )}
        <Select label="Severity" value={severity} any={null} options={[...SEVERITIES]} onChange={(v) => setSeverity(v as Severity)} />
        <label className="field"><span>Source</span><input value={source} onChange={(e) => setSource(e.target.value)} /></label>
        <Select label="Code detection" value={codeDetectionId} any="None" options={(detections.data ?? []).map((x) => [x.id, x.name] as [string, string])} onChange={setCodeDetectionId} />
        <Select label="Log table" value={table} any="None" options={logTables.map((o) => [tableKey(o), tableLabel(o)] as [string, string])} onChange={setTable} />
        <button type="submit">Simulate a sample alert</button>
      </form>
      {sim.data && <p role="status"><strong>{outcomeText(sim.data)}.</strong> {sim.data.reason}</p>}
      <ErrorText error={sim.error} />
    </section>
  );
}
