import { Link } from '../router';
import { Time } from '../ui';

/** The report's `intelStatus` (GET /api/coverage/attack): whether there is intel to compare the detections with. */
export interface IntelStatus {
  comparable: boolean;
  reason: string | null;
  message: string | null;
  techniques: number;
  sources: { enabled: number; synced: number };
  failingSources: Array<{ id: string; name: string; lastError: string; lastFailedAt: string | null }>;
}

/**
 * Issue 47 item 12: with no technique named by the intel, "no gap" would be false comfort. Says
 * there is no intel to compare with and why; names each failing source with its last error (shown
 * even when there is intel, as a smaller warning: coverage rests on fewer sources than it should).
 */
export function IntelNotice({ status }: { status: IntelStatus }) {
  if (status.comparable && status.failingSources.length === 0) return null;
  return (
    <div className="notice" role="status" aria-labelledby="intel-notice-h">
      <h2 id="intel-notice-h" className="small">{status.comparable ? 'Some intel sources are failing' : 'No intel to compare with'}</h2>
      {!status.comparable && <p>{reasonText(status)} Gaps and coverage below only list what detections name; they say nothing of what adversaries use.</p>}
      {status.failingSources.length > 0 && (
        <ul aria-label="Failing sources">
          {status.failingSources.map((s) => (
            <li key={s.id}><strong>{s.name}</strong>: {s.lastError}{s.lastFailedAt && <> (<Time at={s.lastFailedAt} />)</>}</li>
          ))}
        </ul>
      )}
      <p className="small"><Link to="/intel/sources">Intel sources</Link> · {status.sources.synced} of {status.sources.enabled} enabled sources synced</p>
    </div>
  );
}

function reasonText(s: IntelStatus): string {
  switch (s.reason) {
    case 'sources_failing': return `The intel names no ATT&CK technique: ${s.failingSources.length} of ${s.sources.enabled} sources failed their last sync.`;
    case 'no_sources': return 'No intel source is enabled.';
    case 'never_synced': return `None of the ${s.sources.enabled} enabled sources has synced yet.`;
    default: return (s.message ?? '').replace(/^No intel to compare with: /, '').replace(/^./, (c) => c.toUpperCase());
  }
}
