import type { SoftwareMatch } from './matching.fns.js';

/**
 * Relevancy 0..100: does the organization run what the advisory is about? Deterministic: the
 * same matches, flags and clock give the same score and the same sentences. Points (docs/hunt.md):
 * - best product verdict: inside an affected range 60, version unknown 35, outside every range 10, no product 0;
 * - exploited in the wild: +15 when something may be affected, else +5;
 * - an affected (inside/unknown) asset that is internet-facing: +10; of high or critical criticality: +10;
 * - a report within 30 days of now: +5.
 * Capped at 100. A threat is "relevant" at 40 or more (the cut-off the evaluation uses).
 */
export const RELEVANT_AT = 40;

export interface RelevancyInput {
  canonicalKey: string;
  matches: readonly SoftwareMatch[];
  knownExploited: boolean;
  newestReportAt: Date | null;
  now: Date;
}

export interface Relevancy {
  score: number;
  headline: string;
  explanation: string[];
}

const LIST = 3;

function names(ms: readonly SoftwareMatch[]): string {
  const ids = [...new Set(ms.map((m) => m.software.identifier))];
  return ids.length <= LIST ? ids.join(', ') : `${ids.slice(0, LIST).join(', ')} and ${ids.length - LIST} more`;
}

function describe(m: SoftwareMatch): string {
  const s = m.software;
  const what = `${s.identifier} runs ${s.product}${s.version ? ` ${s.version}` : ''}`;
  const product = `${m.advisory.vendor ? `${m.advisory.vendor} ` : ''}${m.advisory.product}`;
  const ranges = m.advisory.versions.join(', ');
  const where = m.advisory.via === 'text' ? ' (the advisory names it in its text)' : '';
  if (m.verdict === 'inside') return `${what}, inside the affected range ${ranges} of ${product}${where}.`;
  if (m.verdict === 'outside') return `${what}, outside the affected range ${ranges} of ${product}${where}: not affected.`;
  return s.version
    ? `${what}; the advisory gives no version range for ${product}${where}, so it may be affected.`
    : `${what} with no known version; it may be affected${ranges ? ` (affected: ${ranges})` : ''}${where}.`;
}

export function scoreRelevancy(input: RelevancyInput): Relevancy {
  const inside = input.matches.filter((m) => m.verdict === 'inside');
  const unknown = input.matches.filter((m) => m.verdict === 'unknown');
  const outside = input.matches.filter((m) => m.verdict === 'outside');
  const affected = [...inside, ...unknown];
  const explanation: string[] = [];
  let score = inside.length ? 60 : unknown.length ? 35 : outside.length ? 10 : 0;

  // One sentence per distinct asset, the worst verdict first, at most LIST per verdict.
  for (const group of [inside, unknown, outside]) {
    const seen = new Set<string>();
    for (const m of group) {
      if (seen.has(m.software.assetId)) continue;
      seen.add(m.software.assetId);
      if (seen.size <= LIST) explanation.push(describe(m));
    }
    if (seen.size > LIST) explanation.push(`${seen.size - LIST} more asset(s) likewise.`);
  }
  if (input.matches.length === 0) explanation.push(`The advisories for ${input.canonicalKey} name no product the organization runs.`);

  if (input.knownExploited) {
    score += affected.length ? 15 : 5;
    explanation.push(`${input.canonicalKey} is reported exploited in the wild.`);
  }
  const facing = affected.filter((m) => m.software.internetFacing);
  if (facing.length) {
    score += 10;
    explanation.push(`Internet-facing and possibly affected: ${names(facing)}.`);
  }
  const critical = affected.filter((m) => m.software.criticality === 'high' || m.software.criticality === 'critical');
  if (critical.length) {
    score += 10;
    explanation.push(`High or critical assets possibly affected: ${names(critical)}.`);
  }
  if (input.newestReportAt && input.now.getTime() - input.newestReportAt.getTime() <= 30 * 86_400_000) {
    score += 5;
    explanation.push(`Reported recently (${input.newestReportAt.toISOString().slice(0, 10)}).`);
  }
  score = Math.min(100, score);

  const headline = inside.length
    ? `${names(inside)} run${inside.length === 1 ? 's' : ''} an affected version`
    : unknown.length
      ? `${names(unknown)} may be affected (version not confirmed)`
      : outside.length
        ? `The organization runs the product, but no affected version`
        : `Nothing the organization runs is affected`;
  return { score, headline, explanation };
}
