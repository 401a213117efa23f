/**
 * Literal-prefixed indicators, each found by one global regex over the whole text (irregexp searches their
 * first characters quickly): CVE ids, ATT&CK technique ids, AS numbers, AWS access key ids, Azure subscription /
 * tenant GUIDs, GCP project ids.
 */
import type { Collector } from './collector.js';
import { awsKeyVerdict } from './false-positives.fns.js';
import { normalizeCve, normalizeTechnique } from './normalize.fns.js';
import { AWS_KEY_RE, AZURE_ID_RE, GCP_PROJECT_RE, ID_RE } from './patterns.js';
import { asnReservedReason, checkCveYear } from './validate.fns.js';

/** Is the char before `i` a letter/digit/underscore (i.e. `i` is not at a word start)? */
function wordCharBefore(text: string, i: number): boolean {
  if (i === 0) return false;
  const ch = text.charCodeAt(i - 1);
  return (ch >= 48 && ch <= 57) || (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122) || ch === 95;
}

/** CVE ids, ATT&CK technique ids and AS numbers (one regex, see ID_RE). */
export function scanIds(c: Collector): void {
  const { text } = c;
  const re = ID_RE;
  re.lastIndex = 0;
  const now = new Date();
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const i = m.index;
    if (wordCharBefore(text, i)) continue;
    const end = i + m[0].length;
    if (m[1] !== undefined) {
      const year = m[1];
      if (!checkCveYear(Number(year), now)) c.drop('cve', i, end, 'invalid CVE id (year out of range)', 'invalid');
      else c.add('cve', i, end, normalizeCve(year, m[2] as string), false);
    } else if (m[3] !== undefined) {
      // a technique id starts a word: "-T1059" (a flag) or "x.T1234" are not technique ids
      if (i > 0 && (text[i - 1] === '-' || text[i - 1] === '.')) continue;
      c.add('attack-technique', i, end, normalizeTechnique(m[3]), false);
    } else {
      const n = Number(m[4]);
      const reserved = asnReservedReason(n);
      if (reserved) c.drop('asn', i, end, reserved, reserved.startsWith('invalid') ? 'invalid' : 'reserved', `AS${n}`);
      else c.add('asn', i, end, `AS${n}`, false);
    }
  }
}

export function scanAwsKeys(c: Collector): void {
  const { text } = c;
  const re = AWS_KEY_RE;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const i = m.index;
    if (wordCharBefore(text, i)) continue;
    const end = i + m[0].length;
    const verdict = awsKeyVerdict(m[0]);
    if (verdict) c.drop('cloud-id', i, end, verdict.reason, verdict.category, m[0]);
    else c.add('cloud-id', i, end, m[0], false, 0.2, 'aws-access-key');
  }
}

export function scanAzureIds(c: Collector): void {
  const { text } = c;
  const re = AZURE_ID_RE;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const guid = m[1] as string;
    const start = m.index + m[0].length - guid.length;
    const subtype = /^tenant/i.test(m[0]) ? 'azure-tenant' : 'azure-subscription';
    if (/^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(guid)) {
      c.drop('cloud-id', start, start + guid.length, 'placeholder GUID (all zeros)', 'reserved', guid);
      continue;
    }
    c.add('cloud-id', start, start + guid.length, guid.toLowerCase(), false, 0, subtype);
  }
}

export function scanGcpProjects(c: Collector): void {
  const { text } = c;
  const re = GCP_PROJECT_RE;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (wordCharBefore(text, m.index)) continue;
    const id = m[1] as string;
    if (id.includes('--')) continue;
    const start = m.index + m[0].length - id.length;
    if (/^(?:my-project|project-id|your-project|example)/.test(id)) {
      c.drop('cloud-id', start, start + id.length, 'documentation placeholder', 'reserved', id);
      continue;
    }
    c.add('cloud-id', start, start + id.length, id, false, -0.1, 'gcp-project');
  }
}
