/**
 * Severity of an intel item (`none | low | medium | high | critical`, the GET /items filter values).
 * Pure, no I/O.
 *
 * Rules, applied in order; each can only raise the level:
 * 1. CVSS: the highest base score among `cvssScores` and the scores/vectors in the text
 *    (cvss.fns.ts), on the FIRST qualitative scale: ≥ 9.0 critical, ≥ 7.0 high, ≥ 4.0 medium,
 *    > 0.0 low, 0.0 none.
 * 2. Stated severity, only when there is no CVSS score: "critical severity", "high-severity",
 *    "severity: medium", "rated critical", and Microsoft's scale ("rated Important" → high,
 *    "Moderate" → medium).
 * 3. Known exploitation — `knownExploited` (e.g. listed in CISA KEV) or the text saying so
 *    ("exploited in the wild", "actively exploited", "active exploitation", "under attack",
 *    "zero-day"/"0-day", "known exploited vulnerabilities catalog"), ignoring phrases negated earlier
 *    in their sentence ("no evidence it has been exploited in the wild"): at least high, and
 *    critical when the CVSS score is ≥ 7.0.
 * 4. A public exploit ("proof-of-concept", "PoC exploit", "exploit code is publicly available"):
 *    at least medium.
 * 5. Ransomware, data-leak, extortion or wiper language: at least medium.
 * 6. Malicious activity with something to hunt: malware or attack-delivery language (stealer,
 *    trojan, RAT, backdoor, loader, botnet, phishing, malspam, C2, beaconing, exfiltration…) or
 *    named malware/actors, together with at least one indicator: at least medium.
 * 7. An active campaign: as 6 with at least 5 indicators, and either a damaging capability
 *    (credential or data theft — infostealers, keyloggers, exfiltration —, remote control —
 *    backdoors, RATs, implants, web shells —, ransomware or wipers) or a named ATT&CK group:
 *    at least high. (An infostealer phishing campaign with 8 live indicators is high, not low.)
 * 8. Anything actionable — a CVE id (given or in the text), indicators, named malware or actors:
 *    at least low.
 * 9. Nothing of the above: none.
 * Critical stays reserved for vulnerabilities (rules 1–3): a campaign report tops out at high.
 */

import { cvssFromText } from './cvss.fns.js';

export type Severity = 'none' | 'low' | 'medium' | 'high' | 'critical';

export const SEVERITIES: readonly Severity[] = ['none', 'low', 'medium', 'high', 'critical'];

export interface SeverityInput {
  cvssScores: number[];
  knownExploited: boolean;
  text: string;
  /** CVE ids related to the item. */
  cves?: string[];
  /** Number of indicators (IOCs) the item carries. */
  indicatorCount?: number;
  /** Number of named malware families and actors. */
  namedThreats?: number;
  /** Of which actors (ATT&CK groups / intrusion sets). */
  namedActors?: number;
}

/** Indicators from which a report of malicious activity counts as an active campaign (rule 7). */
export const CAMPAIGN_MIN_INDICATORS = 5;

export interface SeverityResult {
  severity: Severity;
  reasons: string[];
  /** Highest CVSS base score considered, null when none. */
  cvss: number | null;
}

export function severityFromCvss(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'none';
}

const rank = (s: Severity): number => SEVERITIES.indexOf(s);
const max = (a: Severity, b: Severity): Severity => (rank(a) >= rank(b) ? a : b);

const EXPLOITED_RE =
  /\b(?:exploited\s+in\s+the\s+wild|in-the-wild\s+exploitation|actively(?:\s+being)?\s+exploited|active(?:ly)?\s+exploitation|under\s+active\s+(?:exploitation|attack)|exploitation\s+in\s+the\s+wild|(?:has|have)\s+been\s+exploited|zero-days?(?!\s+initiative)|0-days?|known\s+exploited\s+vulnerabilit(?:y|ies)|added\s+to\s+(?:the\s+)?(?:cisa\s+)?kev)\b/gi;
const NEGATION_RE = /\b(?:no|not|never|without|unaware|nor|neither)\b|n't\b/i;
const POC_RE = /\b(?:[Pp]roof[-\s]of[-\s]concept|PoC(?:\s+(?:exploit|code))?|[Pp]ublic(?:ly)?\s+(?:available\s+)?exploits?|[Ee]xploit\s+code\s+(?:is\s+)?(?:now\s+)?(?:publicly\s+)?(?:available|released|published))\b/;
const IMPACT_RE = /\b(?:ransomware|data\s+leak(?:s|ed)?|leak\s+site|double\s+extortion|extortion|exfiltrated\s+data|data\s+breach|wiper)\b/i;
const STATED_RE =
  /\b(?:(critical|high|medium|moderate|low)[-\s]severity|severity(?:\s+(?:rating|level))?\s*(?:of|:|is)?\s*(critical|high|medium|moderate|low)|rated\s+(?:(?:it|this|them|the\s+(?:issue|flaw|bug|vulnerability))\s+)?(?:as\s+)?(critical|important|high|moderate|medium|low))\b/i;
const CVE_TEXT_RE = /\bCVE-\d{4}-\d{4,}\b/i;
/** Malware and attack-delivery language (rule 6). `RAT` is matched case-sensitively apart. */
const ACTIVITY_RE =
  /\b(?:(?:info[-\s]?)?stealers?|malware|trojans?|remote\s+access\s+trojans?|backdoor(?:s|ed)?|loaders?|droppers?|botnets?|spyware|keyloggers?|implants?|web\s?shells?|ransomware|wipers?|(?:crypto|coin)\s?miners?|(?:spear[-\s]?)?phishing|malspam|smishing|c2|c&c|command[-\s]and[-\s]control|beacon(?:s|ed|ing)|exfiltrat(?:e|es|ed|ing|ion)|credential\s+(?:theft|harvesting|stealing))\b/i;
/** Damaging capabilities (rule 7): credential or data theft, remote control, destruction or extortion. */
const CAPABILITY_RE =
  /\b(?:(?:info[-\s]?)?stealers?|credential\s+(?:theft|harvesting|stealing|phishing)|steal(?:s|ing)?\s+(?:\w+\s+)?(?:credentials|passwords|cookies|sessions?|tokens|wallets)|keyloggers?|exfiltrat(?:e|es|ed|ing|ion)|backdoor(?:s|ed)?|remote\s+access\s+trojans?|implants?|web\s?shells?|ransomware|wipers?)\b/i;
const RAT_RE = /\bRATs?\b/;

function statedSeverity(word: string): Severity {
  const w = word.toLowerCase();
  if (w === 'critical') return 'critical';
  if (w === 'high' || w === 'important') return 'high';
  if (w === 'medium' || w === 'moderate') return 'medium';
  return 'low';
}

/** The first exploitation phrase that is not negated earlier in its sentence, or null. */
function exploitationPhrase(text: string): string | null {
  for (const m of text.matchAll(EXPLOITED_RE)) {
    const before = text.slice(Math.max(0, m.index - 80), m.index);
    const sentenceStart = Math.max(before.lastIndexOf('. '), before.lastIndexOf('\n'));
    const clause = before.slice(sentenceStart + 1);
    if (!NEGATION_RE.test(clause)) return m[0];
  }
  return null;
}

export function severityOf(input: SeverityInput): SeverityResult {
  const reasons: string[] = [];
  let severity: Severity = 'none';
  const raise = (to: Severity, reason: string): void => {
    if (rank(to) > rank(severity)) {
      severity = to;
      reasons.push(`${reason} → ${to}`);
    } else reasons.push(reason);
  };

  const scores = [...input.cvssScores, ...cvssFromText(input.text).map((f) => f.score)].filter(
    (s): s is number => typeof s === 'number' && Number.isFinite(s) && s >= 0 && s <= 10,
  );
  const cvss = scores.length > 0 ? Math.max(...scores) : null;
  if (cvss !== null) raise(severityFromCvss(cvss), `CVSS ${cvss.toFixed(1)}`);
  else {
    const stated = STATED_RE.exec(input.text);
    const word = stated ? (stated[1] ?? stated[2] ?? stated[3]) : undefined;
    if (word) raise(statedSeverity(word), `stated severity "${stated?.[0]}"`);
  }

  const phrase = input.knownExploited ? null : exploitationPhrase(input.text);
  if (input.knownExploited || phrase) {
    const why = input.knownExploited ? 'known exploited' : `exploitation reported ("${phrase}")`;
    raise(cvss !== null && cvss >= 7 ? 'critical' : 'high', why);
  }
  const poc = POC_RE.exec(input.text);
  if (poc) raise('medium', `public exploit ("${poc[0]}")`);
  const impact = IMPACT_RE.exec(input.text);
  if (impact) raise('medium', `impact language ("${impact[0]}")`);

  const indicators = input.indicatorCount ?? 0;
  const activity = ACTIVITY_RE.exec(input.text)?.[0] ?? RAT_RE.exec(input.text)?.[0] ?? ((input.namedThreats ?? 0) > 0 ? 'named malware/actors' : null);
  if (activity && indicators > 0) {
    const capability = CAPABILITY_RE.exec(input.text)?.[0] ?? RAT_RE.exec(input.text)?.[0] ?? ((input.namedActors ?? 0) > 0 ? 'a named group' : null);
    if (capability && indicators >= CAMPAIGN_MIN_INDICATORS) raise('high', `active campaign ("${activity}", "${capability}", ${indicators} indicators)`);
    else raise('medium', `malicious activity ("${activity}") with indicators`);
  }

  const hasCve = (input.cves ?? []).length > 0 || CVE_TEXT_RE.test(input.text);
  if (hasCve) raise('low', 'CVE referenced');
  if (indicators > 0) raise('low', `${indicators} indicators`);
  if ((input.namedThreats ?? 0) > 0) raise('low', `${input.namedThreats} named malware/actors`);
  if (reasons.length === 0) reasons.push('no severity signal');
  return { severity, reasons, cvss };
}
