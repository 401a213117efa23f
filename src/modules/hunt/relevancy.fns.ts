import type { SoftwareMatch } from './matching.fns.js';

/**
 * Relevancy 0..100: does the organization run what the advisory is about? Derived from the
 * threat's matches only (matching.fns.ts), deterministic: the same matches, flags and clock
 * give the same score and byte-identical sentences, each once. Points (docs/hunt.md):
 * - best verdict: affected 60, unknown (version not decidable) 35, not affected 10, no match 0;
 * - exploited in the wild: +15 when something may be affected, else +5;
 * - an affected or unknown asset that is internet-facing: +10; of high or critical criticality: +10;
 * - a report within 30 days of now: +5.
 * Capped at 100. A threat is "relevant" at 40 or more (the cut-off the evaluation uses).
 */
export const RELEVANT_AT = 40;

export interface RelevancyInput {
  canonicalKey: string;
  /** Sorted and deduplicated (combineMatches). */
  matches: readonly SoftwareMatch[];
  knownExploited: boolean;
  newestReportAt: Date | null;
  now: Date;
  /** Every advisory of the threat was withdrawn by its source: the threat is retired. */
  withdrawn?: boolean;
  /** The CVE's CISA KEV listing (implies knownExploited). */
  kev?: { dateAdded: string | null; dueDate: string | null; knownRansomwareUse: boolean } | null;
}

export interface Relevancy {
  score: number;
  headline: string;
  explanation: string[];
}

const LIST = 3;

function assetsOf(ms: readonly SoftwareMatch[]): string[] {
  return [...new Set(ms.map((m) => m.software.identifier))].sort();
}

function names(ids: readonly string[]): string {
  const list = ids.length <= LIST ? ids : [...ids.slice(0, LIST), `${ids.length - LIST} more`];
  return list.length <= 1 ? list.join('') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
}

function joinVersions(ms: readonly SoftwareMatch[]): string {
  const vs = [...new Set(ms.map((m) => m.software.version).filter((v): v is string => !!v))].sort();
  return vs.length <= 1 ? vs.join('') : `${vs.slice(0, -1).join(', ')} and ${vs.at(-1)}`;
}

/** What the asset runs, as its inventory names it: the package's name (with its npm scope) or the product. */
function softwareName(m: SoftwareMatch): string {
  const purl = m.software.purl;
  const path = purl ? /^pkg:[^/]+\/([^@?#]+)/.exec(purl)?.[1] : undefined;
  if (!path) return m.software.product;
  const segments = path.split('/').map((x) => decodeURIComponent(x));
  const scoped = segments.length >= 2 && segments.at(-2)!.startsWith('@');
  return scoped ? segments.slice(-2).join('/') : segments.at(-1)!;
}

const same = (a: string, b: string) => a.toLowerCase().replace(/[^a-z0-9@/]+/g, ' ').trim() === b.toLowerCase().replace(/[^a-z0-9@/]+/g, ' ').trim();

/** One sentence for the matches of one (asset, product, verdict, range, evidence): every version named, in order. */
function sentence(group: readonly SoftwareMatch[]): string {
  const m = group[0]!;
  const versions = joinVersions(group);
  const name = softwareName(m);
  const what = `${m.software.identifier} runs ${name}${versions ? ` ${versions}` : ''}`;
  const of = same(name, m.product) ? '' : ` of ${m.product}`;
  const source = m.evidence === 'advisory-text' ? (m.fromText ? ' (the advisory names it in its text)' : '') : ` (${m.advisoryId})`;
  if (m.verdict === 'affected') {
    return `${what}, inside the affected range ${m.affectedRange}${of}${source}${m.fixedVersion ? `; fixed in ${m.fixedVersion}` : ''}.`;
  }
  if (m.verdict === 'not_affected') return `${what}, outside the affected range ${m.affectedRange ?? ''}${of}${source}: not affected.`;
  if (!versions) return `${what} with no known version; it may be affected${m.affectedRange ? ` (affected: ${m.affectedRange})` : ''}${source}.`;
  return `${what}; the advisory gives no version range for ${same(name, m.product) ? 'it' : m.product}${source}, so it may be affected.`;
}

export function scoreRelevancy(input: RelevancyInput): Relevancy {
  const affected = input.matches.filter((m) => m.verdict === 'affected');
  const unknown = input.matches.filter((m) => m.verdict === 'unknown');
  const notAffected = input.matches.filter((m) => m.verdict === 'not_affected');
  const possibly = [...affected, ...unknown];
  const explanation: string[] = [];
  const say = (s: string) => {
    if (!explanation.includes(s)) explanation.push(s);
  };
  let score = affected.length ? 60 : unknown.length ? 35 : notAffected.length ? 10 : 0;

  // Per verdict, worst first: one sentence per (asset, product, range, evidence), at most LIST.
  for (const list of [affected, unknown, notAffected]) {
    const groups = new Map<string, SoftwareMatch[]>();
    for (const m of list) {
      const k = [m.software.assetId, m.product, m.affectedRange ?? '', m.fixedVersion ?? '', m.evidence, m.advisoryId, m.fromText].join('\u0000');
      groups.set(k, [...(groups.get(k) ?? []), m]);
    }
    const sentences = [...new Set([...groups.values()].map(sentence))];
    for (const s of sentences.slice(0, LIST)) say(s);
    if (sentences.length > LIST) say(`${sentences.length - LIST} more match${sentences.length - LIST === 1 ? '' : 'es'} likewise.`);
  }
  if (input.withdrawn) say(`Every advisory for ${input.canonicalKey} was withdrawn by its source; the threat is retired.`);
  else if (input.matches.length === 0) say(`The advisories for ${input.canonicalKey} name no product the organization runs.`);

  if ((input.knownExploited || input.kev) && !input.withdrawn) {
    score += possibly.length ? 15 : 5;
    const k = input.kev;
    say(k
      ? `${input.canonicalKey} is in CISA's Known Exploited Vulnerabilities catalog${k.dateAdded ? ` (added ${k.dateAdded}${k.dueDate ? `, due ${k.dueDate}` : ''})` : ''}${k.knownRansomwareUse ? '; it is known to be used in ransomware campaigns' : ''}.`
      : `${input.canonicalKey} is reported exploited in the wild.`);
  }
  const facing = assetsOf(possibly.filter((m) => m.software.internetFacing));
  if (facing.length) {
    score += 10;
    say(`Internet-facing and possibly affected: ${names(facing)}.`);
  }
  const critical = assetsOf(possibly.filter((m) => m.software.criticality === 'high' || m.software.criticality === 'critical'));
  if (critical.length) {
    score += 10;
    say(`High or critical assets possibly affected: ${names(critical)}.`);
  }
  if (!input.withdrawn && input.newestReportAt && input.now.getTime() - input.newestReportAt.getTime() <= 30 * 86_400_000) {
    score += 5;
    say(`Reported recently (${input.newestReportAt.toISOString().slice(0, 10)}).`);
  }
  score = Math.min(100, score);

  const hit = assetsOf(affected);
  const maybe = assetsOf(unknown);
  const headline = hit.length
    ? `${names(hit)} ${hit.length === 1 ? 'runs an affected version' : 'run affected versions'}`
    : maybe.length
      ? `${names(maybe)} may be affected (version not confirmed)`
      : notAffected.length
        ? `The organization runs the product, but no affected version`
        : `Nothing the organization runs is affected`;
  return { score, headline, explanation };
}
