import { useState } from 'react';
import { useAgentList } from '../api/agents';
import { useAgentEvaluations, useCreateDataset, useDatasets, useStartEvaluation } from '../api/evaluations';
import { Link, navigate, useSearch } from '../router';
import { useSession } from '../session';
import { Badge, DataTable, ErrorText, Loadable, Page, Select, Time } from '../ui';

/**
 * Evaluations (docs/evaluations.md): the datasets, a new dataset from JSONL, and with
 * `?agentId=` the agent's evaluations and a form to start one.
 */
export default function Evaluations() {
  const [search, set] = useSearch();
  const agentId = search.get('agentId') ?? '';
  const agents = useAgentList({ limit: 200 });
  return (
    <Page title="Evaluations">
      <p className="muted">Run an agent on labelled cases in a sandbox (nothing real is touched), read its confusion matrix and its wrong cases, compare two runs of the same dataset.</p>
      <Select label="Agent" value={agentId} any="Choose an agent" options={(agents.data?.agents ?? []).map((a) => [a.id, a.name] as [string, string])} onChange={(v) => set({ agentId: v })} />
      {agentId && <AgentEvaluations agentId={agentId} />}
      <Datasets />
    </Page>
  );
}

function AgentEvaluations({ agentId }: { agentId: string }) {
  const { can } = useSession();
  const list = useAgentEvaluations(agentId);
  const datasets = useDatasets();
  const [form, setForm] = useState({ datasetId: '', concurrency: 4 });
  const [picked, setPicked] = useState<string[]>([]);
  const start = useStartEvaluation(agentId);
  const toggle = (id: string) => setPicked(picked.includes(id) ? picked.filter((x) => x !== id) : [...picked.slice(-1), id]);
  return (
    <section aria-labelledby="agent-evaluations">
      <h2 id="agent-evaluations">Evaluations of this agent</h2>
      {can('agent.execute') && (
        <form className="inline-form" onSubmit={(e) => { e.preventDefault(); start.mutate(form, { onSuccess: (x) => navigate(`/evaluations/${x.id}`) }); }} aria-label="Start an evaluation">
          <Select label="Dataset" value={form.datasetId} any="Choose a dataset" options={(datasets.data?.datasets ?? []).map((d) => [d.id, `${d.name} (${d.caseCount})`] as [string, string])} onChange={(v) => setForm({ ...form, datasetId: v })} />
          <label className="field"><span>Concurrency</span><input type="number" min={1} max={32} value={form.concurrency} onChange={(e) => setForm({ ...form, concurrency: Number(e.target.value) })} /></label>
          <button type="submit" disabled={!form.datasetId || start.isPending}>Evaluate</button>
          <ErrorText error={start.error} />
        </form>
      )}
      <Loadable query={list} isEmpty={(d) => d.evaluations.length === 0} empty="No evaluations of this agent yet.">
        {(d) => (
          <>
            <DataTable head={<><th scope="col">Compare</th><th scope="col">Dataset</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Accuracy</th><th scope="col">Closed true positives</th><th scope="col">Started</th></>}>
              {d.evaluations.map((e) => (
                <tr key={e.id}>
                  <td><input type="checkbox" aria-label={`Compare the evaluation of ${e.createdAt}`} checked={picked.includes(e.id)} onChange={() => toggle(e.id)} /></td>
                  <td><Link to={`/evaluations/${e.id}`}>{e.datasetName}</Link></td>
                  <td><Badge value={e.status} /></td>
                  <td>{e.progress.finished} / {e.progress.total}</td>
                  <td>{pct(e.summary.accuracy)}</td>
                  <td className={e.summary.wouldHaveClosedTruePositive > 0 ? 'error' : undefined}>{e.summary.wouldHaveClosedTruePositive}</td>
                  <td><Time at={e.createdAt} /></td>
                </tr>
              ))}
            </DataTable>
            <button type="button" disabled={picked.length !== 2} onClick={() => navigate(`/evaluations/compare?a=${picked[0]}&b=${picked[1]}`)}>Compare the two chosen</button>
          </>
        )}
      </Loadable>
    </section>
  );
}

export const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)} %`);

function Datasets() {
  const { can } = useSession();
  const datasets = useDatasets();
  const [form, setForm] = useState({ name: '', jsonl: '' });
  const create = useCreateDataset();
  return (
    <section aria-labelledby="datasets">
      <h2 id="datasets">Datasets</h2>
      <Loadable query={datasets} isEmpty={(d) => d.datasets.length === 0} empty="No datasets yet.">
        {(d) => (
          <DataTable head={<><th scope="col">Dataset</th><th scope="col">Cases</th><th scope="col">Escalate</th><th scope="col">False positive</th><th scope="col">Benign</th><th scope="col">Updated</th></>}>
            {d.datasets.map((x) => (
              <tr key={x.id}>
                <td>{x.name}<div className="muted small">{x.description}</div></td>
                <td>{x.caseCount}</td>
                <td>{x.labels.escalate}</td>
                <td>{x.labels.false_positive}</td>
                <td>{x.labels.benign}</td>
                <td><Time at={x.updatedAt} /></td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loadable>
      {can('agent.manage') && (
        <form className="stack" onSubmit={(e) => { e.preventDefault(); create.mutate(form, { onSuccess: () => setForm({ name: '', jsonl: '' }) }); }} aria-label="New dataset">
          <h3>New dataset</h3>
          <label className="field"><span>Name</span><input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required /></label>
          <label className="field"><span>Cases, JSONL (one case per line: {'{"alert": {…}, "expected": {"disposition": "escalate"}}'})</span>
            <textarea className="mono" rows={6} value={form.jsonl} onChange={(e) => setForm({ ...form, jsonl: e.target.value })} spellCheck={false} />
          </label>
          <button type="submit" disabled={create.isPending}>Create dataset</button>
          {create.isSuccess && <p role="status">Created.</p>}
          <ErrorText error={create.error} />
        </form>
      )}
    </section>
  );
}
