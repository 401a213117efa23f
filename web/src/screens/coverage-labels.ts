/** How the coverage screens name a technique's state and evidence (docs/coverage.md). */
export const STATE_LABEL: Record<string, string> = { covered: 'Covered', covered_experimental_only: 'Experimental only', gap: 'Gap', unused: 'Not seen in intel' };
/** Whether the detections behind a technique matched events in the window (docs/coverage.md#evidence). */
export const EVIDENCE_LABEL: Record<string, string> = { matched: 'detections matched events', paper: 'on paper only: no detection matched events', none: 'no detection' };
export const EVIDENCE_MARK: Record<string, string> = { matched: '●', paper: '○', none: '' };
