import type { Paths } from '../api';

type KnownExploited = NonNullable<Paths['/api/threats/{id}']['get']['responses'][200]['content']['application/json']['threat']['knownExploited']>;

/** CISA KEV: the CVE is exploited in the wild, with the date CISA listed it, the federal due date and ransomware use. */
export function KevBadge({ kev }: { kev: KnownExploited }) {
  const when = [kev.dateAdded && `added ${kev.dateAdded}`, kev.dueDate && `due ${kev.dueDate}`].filter(Boolean).join(', ');
  return (
    <span title={`In CISA's Known Exploited Vulnerabilities catalog${when ? ` (${when})` : ''}${kev.ransomware ? '; known ransomware use' : ''}`}>
      <span className="badge v-known_exploited">KEV</span>
      {kev.ransomware && <> <span className="badge v-ransomware">ransomware</span></>}
      {when && <span className="muted small"> {when}</span>}
    </span>
  );
}
