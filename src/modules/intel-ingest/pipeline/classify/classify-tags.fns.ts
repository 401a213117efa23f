/**
 * ATT&CK techniques, actors and malware asserted by an entry's tags. Pure, no I/O.
 *
 * Recognised forms (case-insensitive):
 * - ATT&CK ids in any tag whose namespace mentions ATT&CK: `attack:T1059` (TAXII connector),
 *   `mitre-attack:T1059.001`, `attack.t1059.001` / `attack.g0007` / `attack.s0023` (Sigma),
 *   `misp-galaxy:mitre-attack-pattern="PowerShell - T1059.001"`,
 *   `misp-galaxy:mitre-intrusion-set="APT28 - G0007"`, `misp-galaxy:mitre-malware="CHOPSTICK - S0023"`;
 * - actor names: `misp-galaxy:threat-actor="APT28"`, `threat-actor:APT28`, `actor:"APT28"`;
 * - malware names: `misp-galaxy:malpedia="X-Agent"`, `misp-galaxy:ransomware="LockBit"`,
 *   `misp-galaxy:rat|backdoor|stealer|botnet|malware|tool="…"`, `malware:Emotet`, `malware_family:Emotet`.
 */

export interface TagTechnique {
  id: string;
  tag: string;
}

export interface TagNamed {
  /** G… / S… when the tag gives it. */
  id: string | null;
  /** The name when the tag gives it (the part before " - G0007"). */
  name: string | null;
  kind: 'actor' | 'malware' | 'tool';
  tag: string;
}

export interface TagSignals {
  techniques: TagTechnique[];
  named: TagNamed[];
}

const ATTACK_NS_RE = /(?:^|[^a-z])(?:mitre|attack)(?:$|[^a-z])|^attack\./i;
const ID_RE = /(?<![\p{L}\p{N}])([TGS])(\d{4})(?:[./](\d{3}))?(?!\p{N})/giu;
const ACTOR_NS_RE = /threat-actor|intrusion-set|(?:^|[:\-_])actor|apt-group/i;
const MALWARE_NS_RE = /malware|ransomware|malpedia|(?:^|[:\-_])rat(?:$|[:\-_=])|backdoor|stealer|botnet|exploit-kit|(?:^|[:\-_])tool/i;
const TRAILING_ID_RE = /\s+-\s+[TGS]\d{4}(?:\.\d{3})?\s*$/i;

/** Splits `namespace:predicate="value"` / `namespace:value` into a key (lower case) and a value. */
function splitTag(tag: string): { key: string; value: string } {
  const quoted = /^([^"=]*?)\s*=\s*"(.*)"\s*$/.exec(tag);
  if (quoted) return { key: (quoted[1] ?? '').toLowerCase(), value: (quoted[2] ?? '').trim() };
  const eq = tag.indexOf('=');
  if (eq > 0) return { key: tag.slice(0, eq).toLowerCase(), value: tag.slice(eq + 1).trim() };
  const colon = tag.lastIndexOf(':');
  if (colon > 0) return { key: tag.slice(0, colon).toLowerCase(), value: tag.slice(colon + 1).trim() };
  return { key: '', value: tag.trim() };
}

function cleanName(value: string): string | null {
  const name = value.replace(TRAILING_ID_RE, '').replace(/^"|"$/g, '').trim();
  return name === '' || /(?<![\p{L}\p{N}])[TGS]\d{4}(?!\p{N})/iu.test(name) ? null : name;
}

export function signalsFromTags(tags: readonly string[]): TagSignals {
  const techniques: TagTechnique[] = [];
  const named: TagNamed[] = [];
  for (const raw of tags) {
    const tag = raw.trim();
    if (tag === '') continue;
    const { key, value } = splitTag(tag);
    const toolish = /tool/i.test(key);
    if (ATTACK_NS_RE.test(key) || ATTACK_NS_RE.test(tag.split(/[:=]/)[0] ?? '')) {
      let sawNamed = false;
      for (const m of tag.matchAll(ID_RE)) {
        const letter = (m[1] ?? '').toUpperCase();
        const id = `${letter}${m[2] ?? ''}${m[3] ? `.${m[3]}` : ''}`;
        if (letter === 'T') techniques.push({ id, tag });
        else if (letter === 'G') {
          named.push({ id, name: cleanName(value), kind: 'actor', tag });
          sawNamed = true;
        } else if (!m[3]) {
          named.push({ id, name: cleanName(value), kind: toolish ? 'tool' : 'malware', tag });
          sawNamed = true;
        }
      }
      if (sawNamed || !/intrusion-set|malware|tool/i.test(key)) continue;
    }
    const name = cleanName(value);
    if (!name || name.length > 100) continue;
    if (ACTOR_NS_RE.test(key)) named.push({ id: null, name, kind: 'actor', tag });
    else if (MALWARE_NS_RE.test(key)) named.push({ id: null, name, kind: toolish && !/malware/i.test(key) ? 'tool' : 'malware', tag });
  }
  return { techniques, named };
}
