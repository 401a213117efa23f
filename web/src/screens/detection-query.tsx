import { ApiError } from '../api';
import { useDetectionQuery } from '../api/detections';
import { detectionQueryPipelines, detectionQueryTargets } from '../schema-values';
import { useSearch } from '../router';
import { CopyButton, Select } from '../ui';

type Target = (typeof detectionQueryTargets)[number];
/** The languages' display names; a target added server-side shows under its API name until named here. */
const TARGET_NAMES: Partial<Record<string, string>> = {
  splunk: 'Splunk (SPL)',
  'elasticsearch-lucene': 'Elasticsearch (Lucene)',
  esql: 'Elasticsearch (ES|QL)',
  kusto: 'Microsoft Sentinel / Defender (KQL)',
};
const targetName = (t: Target) => TARGET_NAMES[t] ?? t;
const TARGETS: Array<[Target, string]> = detectionQueryTargets.map((t) => [t, targetName(t)]);
/**
 * Each target's pipelines, generated from the OpenAPI document (the `pipeline` parameter's
 * x-pipelines-by-target, npm run gen:api): a pipeline added server-side appears here unedited.
 */
const PIPELINES = detectionQueryPipelines;
const isTarget = (v: string | null): v is Target => detectionQueryTargets.some((t) => t === v);

/**
 * The detection's rule as a query of a SIEM's language (GET /api/code-detections/{id}/query), for
 * one target and pipeline at a time (kept in the URL), with a copy button. A rule the target cannot
 * express (422) reads as a sentence naming the construct, not as a failed load.
 */
export function DetectionQuery({ id }: { id: string }) {
  const [search, set] = useSearch();
  const raw = search.get('target');
  const target: Target = isTarget(raw) ? raw : 'splunk';
  const pipeline = PIPELINES[target].includes(search.get('pipeline') ?? '') ? search.get('pipeline')! : '';
  const dataModel = pipeline === 'splunk_cim_data_model' && search.get('format') === 'data_model';
  const query = { target, ...(pipeline ? { pipeline } : {}), ...(dataModel ? { format: 'data_model' as const } : {}) };
  const converted = useDetectionQuery(id, query);
  const name = targetName(target);
  return (
    <section aria-labelledby="query-h">
      <h2 id="query-h">Query in your SIEM</h2>
      <div className="actions">
        <Select label="Language" value={target} any={null} options={TARGETS} onChange={(v) => set({ target: v === 'splunk' ? null : v, pipeline: null, format: null }, { keepPage: true })} />
        <Select label="Pipeline" value={pipeline} any="None: the rule's own field names" options={[...PIPELINES[target]]} onChange={(v) => set({ pipeline: v || null, format: null }, { keepPage: true })} />
        {pipeline === 'splunk_cim_data_model' && (
          <label className="field"><span>Accelerated data model search</span><input type="checkbox" checked={dataModel} onChange={(e) => set({ format: e.target.checked ? 'data_model' : null }, { keepPage: true })} /></label>
        )}
      </div>
      {converted.isPending && <p className="state" role="status">Converting…</p>}
      {converted.isError && <Refusal error={converted.error} targetName={name} retry={() => void converted.refetch()} />}
      {converted.data && converted.data.queries.map((q, i) => (
        <div key={i}>
          <div className="copy-row">
            <span className="muted small">{converted.data.queries.length > 1 ? `Rule ${i + 1} of ${converted.data.queries.length}` : name}{converted.data.pipeline ? ` · pipeline ${converted.data.pipeline}` : ''}</span>
            <CopyButton value={q} label={`the ${name} query${converted.data.queries.length > 1 ? ` ${i + 1}` : ''}`} />
          </div>
          <pre className="code-block" tabIndex={0} aria-label={`${name} query`} data-query={target}>{q}</pre>
        </div>
      ))}
    </section>
  );
}

/** 422: the target (or pipeline) cannot take the rule; the body's `construct` names what. */
function Refusal({ error, targetName, retry }: { error: Error; targetName: string; retry: () => void }) {
  if (error instanceof ApiError && error.status === 422) {
    const body = error.body as { construct?: string; pipelines?: string[] } | null;
    return (
      <div className="state error" role="alert">
        <p><strong>{targetName} cannot take this rule{body?.construct ? <>: <span className="mono">{body.construct}</span></> : null}.</strong></p>
        <p>{error.message}</p>
        {body?.pipelines && <p>Pipelines of this language: {body.pipelines.join(', ') || 'none'}.</p>}
      </div>
    );
  }
  return (
    <div className="state error" role="alert">
      <p>Could not convert: {error.message}</p>
      <button type="button" onClick={retry}>Retry</button>
    </div>
  );
}
