import type { Paths } from '../api';

type EpssScore = NonNullable<Paths['/api/threats/{id}']['get']['responses'][200]['content']['application/json']['threat']['epss']>;

/** FIRST EPSS: the probability of exploitation in the next 30 days, with its percentile among all CVEs. */
export function Epss({ epss }: { epss: EpssScore }) {
  return (
    <span title="FIRST EPSS: the probability that this CVE is exploited in the next 30 days">
      {(epss.probability * 100).toFixed(1)} % <span className="muted small">(percentile {Math.round(epss.percentile * 100)}{epss.scoreDate ? `, scored ${epss.scoreDate}` : ''})</span>
    </span>
  );
}
