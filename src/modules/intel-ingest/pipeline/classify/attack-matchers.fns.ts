/**
 * Which ATT&CK names and aliases may be recognised in free text, and how strictly. Pure; the
 * compiled matcher is cached per catalog object.
 *
 * Techniques (by name; ids are handled in classify-attack.fns.ts):
 * - "Parent: Sub-technique" (e.g. "Command and Scripting Interpreter: PowerShell"): case-insensitive, 0.75;
 * - names of 3+ words: case-insensitive, 0.5;
 * - 2-word names: case-insensitive (0.5) when a word is distinctive (Spearphishing Attachment, LSASS
 *   Memory), otherwise only in the catalog's Title Case (0.4), and never for generic phrases
 *   (Network Devices, Social Media, …);
 * - 1-word names: only distinctive ones (PowerShell, Rundll32, Mshta, Kerberoasting, Phishing, …), 0.5;
 * - a name shared by several techniques (Local Account, Botnet, …) is ambiguous: only its
 *   "Parent: Sub" form counts.
 * Groups and software (names and aliases):
 * - multi-word or punctuated aliases (Fancy Bear, TG-4127, X-Agent): case-insensitive;
 * - single words of ≤ 4 characters (SPLM, FIN7, Tor) and ALL-CAPS words (CHOPSTICK; also accepted
 *   as "Chopstick"): case-sensitive;
 * - common English words (Silence, Royal, Play, Equation, …): only when followed by a type noun
 *   ("Royal ransomware", "Silence group");
 * - operating-system utilities that ATT&CK lists as tools (net, certutil, ping, …) are not matched;
 * - a software alias that is also a group's name or alias ("Sofacy" for CORESHELL) stands for the group.
 * Confidence: canonical name 0.85, alias 0.75, short or case-sensitive alias 0.65, common word with
 * type noun 0.6; tools 0.1 lower.
 */

import type { AttackCatalog, CatalogSoftware } from '../../../intel/index.js';
import { compilePhrases, tokenize, type PhraseIndex, type PhraseSpec } from './phrase-matcher.fns.js';

export type AttackPayload =
  | { kind: 'technique'; id: string; confidence: number }
  | { kind: 'group'; index: number; confidence: number }
  | { kind: 'software'; index: number; confidence: number };

/** Single technique-name words that are specific enough to stand for the technique. */
const DISTINCT_TECHNIQUE_WORDS = new Set([
  'mshta', 'msiexec', 'odbcconf', 'verclsid', 'cmstp', 'ntds', 'kerberoasting', 'keylogging', 'timestomp', 'launchd',
  'launchctl', 'emond', 'mavinject', 'installutil', 'malvertising', 'phishing', 'spearphishing', 'rootkit', 'bootkit',
  'histcontrol', 'lsass', 'side-loading', 'hollowing', 'doppelgänging', 'smuggling', 'kerberoast', 'defacement',
]);

/** Two-word technique names too generic to be evidence on their own. */
const GENERIC_TECHNIQUE_PHRASES = new Set([
  'network devices', 'cloud services', 'social media', 'ip addresses', 'email addresses', 'employee names',
  'search engines', 'business relationships', 'artificial intelligence', 'financial theft', 'data encrypted',
  'data compressed', 'web protocols', 'junk data', 'web service', 'web services', 'malicious file', 'malicious link',
  'code repositories', 'client configurations', 'chat messages', 'identify roles', 'link target', 'login item',
  'login items', 'power settings', 'shared modules', 'system checks', 'network topology', 'standard encoding',
  'data staged', 'cloud api', 'container api', 'active setup', 'office test', 'redundant access', 'domain properties',
  'device registration', 'exclusive control', 'selective exclusion', 'messaging applications', 'input prompt',
]);

/** Group/software names that are ordinary words: matched only when followed by a type noun. */
const COMMON_WORDS = new Set([
  'agenda', 'anchor', 'apostle', 'armageddon', 'aurora', 'avenger', 'axiom', 'cannon', 'carbon', 'chaos', 'chimera',
  'cicada', 'cleaver', 'covenant', 'crimson', 'cuba', 'denis', 'disco', 'donut', 'elfin', 'emissary', 'empire', 'epic',
  'equation', 'expand', 'explosive', 'ferocious', 'flame', 'inception', 'james', 'kevin', 'krypton', 'leviathan',
  'lucifer', 'machete', 'mango', 'mantis', 'matryoshka', 'maze', 'meteor', 'milan', 'mirage', 'mosquito', 'ninja',
  'octopus', 'page', 'pandora', 'patchwork', 'ping', 'play', 'pony', 'prestige', 'proton', 'raindrop', 'rattlesnake',
  'reaper', 'reaver', 'responder', 'rover', 'royal', 'ruler', 'samurai', 'scorpion', 'shark', 'silence', 'snake',
  'solar', 'soldier', 'spark', 'spica', 'strider', 'thrip', 'tick', 'trinity', 'wiper', 'mythic', 'sliver', 'havoc',
  'embargo', 'gadolinium', 'phosphorus', 'helminth', 'peppy', 'route', 'calendar', 'photo', 'viper', 'medusa',
  'mercury', 'reptile', 'pacemaker', 'haymaker', 'spaceship', 'bookworm', 'canopy', 'biscuit', 'elmer', 'skid',
  'nickel', 'zinc', 'platinum', 'chromium', 'silicon', 'radium', 'potassium', 'gallium', 'bismuth', 'barium',
  'manganese', 'monsoon', 'deadwood', 'driftwood', 'lowball', 'uppercut', 'riptide', 'griffon', 'vermin', 'hogfish',
  'castletap', 'backspace', 'happywork', 'shipshape', 'flipside', 'flashflood', 'turnedup', 'comment', 'crutch',
  'hive', 'net', 'reg', 'cmd', 'tor',
]);

const TYPE_NOUNS = [
  'ransomware', 'malware', 'backdoor', 'trojan', 'rat', 'loader', 'stealer', 'botnet', 'wiper', 'implant', 'worm',
  'downloader', 'dropper', 'framework', 'group', 'gang', 'apt', 'actor', 'actors', 'team', 'operators', 'affiliates',
];

/** Built-in OS utilities that ATT&CK lists as tools; naming them is not evidence of malware. */
const SYSTEM_UTILITIES = new Set([
  'net', 'tasklist', 'reg', 'ftp', 'systeminfo', 'ping', 'arp', 'ipconfig', 'ifconfig', 'nbtstat', 'route', 'netstat',
  'dsquery', 'cmd', 'netsh', 'at', 'schtasks', 'certutil', 'bitsadmin', 'forfiles', 'nltest', 'expand', 'esentutl',
  'wevtutil', 'attrib', 'cipher.exe', 'quick assist', 'tor', 'meek',
]);

export function isSystemUtility(s: CatalogSoftware): boolean {
  const lower = s.name.toLowerCase();
  return s.type === 'tool' && (SYSTEM_UTILITIES.has(lower) || lower.endsWith('.exe') || s.aliases.some((a) => a.toLowerCase() === `${lower}.exe`));
}

function isDistinctiveWord(word: string): boolean {
  const lower = word.toLowerCase();
  if (DISTINCT_TECHNIQUE_WORDS.has(lower)) return true;
  const tokens = tokenize(word);
  if (tokens.length >= 2) {
    const joiners = word.replace(/[\p{L}\p{N}]+/gu, '');
    return /[./_]/.test(joiners) || tokens.length >= 3;
  }
  return /\d/.test(word) || /\p{Ll}\p{Lu}/u.test(word);
}

function techniqueSpecs(catalog: AttackCatalog): Array<PhraseSpec<AttackPayload>> {
  const specs: Array<PhraseSpec<AttackPayload>> = [];
  const nameCount = new Map<string, number>();
  for (const t of catalog.techniques.values()) nameCount.set(t.name.toLowerCase(), (nameCount.get(t.name.toLowerCase()) ?? 0) + 1);
  for (const t of catalog.techniques.values()) {
    const dot = t.id.indexOf('.');
    const parent = dot > 0 ? catalog.techniques.get(t.id.slice(0, dot)) : undefined;
    if (parent) specs.push({ phrase: `${parent.name}: ${t.name}`, caseSensitive: false, payload: { kind: 'technique', id: t.id, confidence: 0.75 } });
    const name = t.name.trim();
    if ((nameCount.get(name.toLowerCase()) ?? 0) > 1) continue;
    const words = name.split(/\s+/);
    const payload = (confidence: number): AttackPayload => ({ kind: 'technique', id: t.id, confidence });
    if (words.length >= 3) specs.push({ phrase: name, caseSensitive: false, payload: payload(0.5) });
    else if (words.length === 2) {
      if (GENERIC_TECHNIQUE_PHRASES.has(name.toLowerCase())) continue;
      const distinct = words.some(isDistinctiveWord);
      specs.push({ phrase: name, caseSensitive: !distinct, payload: payload(distinct ? 0.5 : 0.4) });
    } else if (isDistinctiveWord(name)) specs.push({ phrase: name, caseSensitive: false, payload: payload(0.5) });
  }
  return specs;
}

/** How an alias may be matched; null when it must not be matched in free text. */
export function aliasSpecs<T>(alias: string, canonical: boolean, payload: (confidence: number) => T): Array<PhraseSpec<T>> {
  const a = alias.trim();
  const tokens = tokenize(a);
  if (tokens.length === 0) return [];
  const base = canonical ? 0.85 : 0.75;
  if (/\s/.test(a) || tokens.length >= 2) return [{ phrase: a, caseSensitive: false, payload: payload(base) }];
  if (a.length < 3) return [];
  const lower = a.toLowerCase();
  const allCaps = /^[\p{Lu}\p{N}]+$/u.test(a) && /\p{Lu}/u.test(a);
  if (COMMON_WORDS.has(lower)) return [{ phrase: a, caseSensitive: true, suffixAnyOf: TYPE_NOUNS, payload: payload(0.6) }];
  if (a.length <= 4) return [{ phrase: a, caseSensitive: true, payload: payload(0.65) }];
  if (allCaps) {
    const capitalised = a.charAt(0) + a.slice(1).toLowerCase();
    return [
      { phrase: a, caseSensitive: true, payload: payload(base) },
      { phrase: capitalised, caseSensitive: true, payload: payload(base - 0.05) },
    ];
  }
  return [{ phrase: a, caseSensitive: false, payload: payload(base) }];
}

const cache = new WeakMap<AttackCatalog, PhraseIndex<AttackPayload>>();

/** The compiled name matcher for a catalog (built once per catalog object). */
export function attackMatcher(catalog: AttackCatalog): PhraseIndex<AttackPayload> {
  const hit = cache.get(catalog);
  if (hit) return hit;
  const specs = techniqueSpecs(catalog);
  catalog.groups.forEach((g, index) => {
    const names = [g.name, ...g.aliases.filter((a) => a.toLowerCase() !== g.name.toLowerCase())];
    names.forEach((n, i) => specs.push(...aliasSpecs<AttackPayload>(n, i === 0, (confidence) => ({ kind: 'group', index, confidence }))));
  });
  const groupAliases = new Set(catalog.groups.flatMap((g) => [g.name, ...g.aliases]).map((a) => a.toLowerCase()));
  catalog.software.forEach((s, index) => {
    if (isSystemUtility(s)) return;
    const penalty = s.type === 'tool' ? 0.1 : 0;
    // A software alias that is also a group name/alias ("Sofacy" for CORESHELL) means the group.
    const aliases = s.aliases.filter((a) => a.toLowerCase() !== s.name.toLowerCase() && !groupAliases.has(a.toLowerCase()));
    const names = [s.name, ...aliases];
    names.forEach((n, i) =>
      specs.push(...aliasSpecs<AttackPayload>(n, i === 0, (confidence) => ({ kind: 'software', index, confidence: confidence - penalty }))),
    );
  });
  const index = compilePhrases(specs);
  cache.set(catalog, index);
  return index;
}
