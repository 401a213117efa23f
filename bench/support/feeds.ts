/**
 * Generated, realistic feed content for the ingest benchmark: an RSS 2.0 document whose items
 * read like vendor research posts (a paragraph or two of prose with defanged indicators, ~1-2 kB
 * each), and STIX 2.1 indicator objects with patterns as a TAXII collection serves them.
 */
import { createHash } from 'node:crypto';
import { prng } from './stats.js';

const ACTORS = ['LockBit affiliate', 'APT29', 'FIN7', 'Scattered Spider', 'Volt Typhoon', 'TA505', 'Lazarus Group', 'Sandworm', 'BlackCat operator', 'Kimsuky'];
const VERBS = ['exploits', 'abuses', 'targets', 'weaponises', 'pivots through', 'backdoors'];
const PRODUCTS = ['FortiOS SSL-VPN', 'Ivanti Connect Secure', 'Citrix NetScaler', 'Confluence Data Center', 'MOVEit Transfer', 'Exchange Server', 'PAN-OS GlobalProtect', 'VMware ESXi', 'Jenkins', 'Atlassian Jira'];
const SECTORS = ['healthcare', 'manufacturing', 'government', 'finance', 'education', 'energy', 'retail', 'telecommunications'];
const SENTENCES = [
  'The intrusion began with a phishing email carrying a password-protected ZIP archive that contained a malicious LNK file.',
  'Once executed, the loader decrypted a second-stage payload in memory and established persistence through a scheduled task.',
  'Operators used living-off-the-land binaries such as rundll32 and certutil to avoid dropping additional tooling on disk.',
  'Lateral movement relied on stolen credentials harvested from LSASS memory and remote service creation over SMB.',
  'Command-and-control traffic was tunnelled over HTTPS with a custom user agent and a jittered beacon interval of sixty seconds.',
  'Data was staged in a hidden directory, compressed with 7-Zip and exfiltrated to attacker-controlled cloud storage.',
  'We recommend applying the vendor patch immediately, rotating credentials and reviewing authentication logs for anomalies.',
  'Defenders should hunt for the indicators below in proxy, DNS and EDR telemetry covering the last ninety days.',
  'The campaign overlaps with previously reported activity, sharing infrastructure, code signing certificates and tradecraft.',
  'Initial access brokers advertised access to the victim networks on underground forums several weeks before the attack.',
];
const TLDS = ['com', 'net', 'org', 'ru', 'xyz', 'top', 'info', 'io'];
const WORDS = ['cdn-sync', 'secure-login', 'update-check', 'docs-share', 'vpn-gateway', 'mail-auth', 'cloud-files', 'status-api', 'telemetry', 'onedrive-sso'];

const hex = (s: string, alg: 'sha256' | 'md5' = 'sha256') => createHash(alg).update(s).digest('hex');
const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)]!;
}

function indicatorsFor(i: number, rand: () => number) {
  const ip = `${45 + Math.floor(rand() * 150)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${1 + Math.floor(rand() * 254)}`;
  const domain = `${pick(rand, WORDS)}-${i}.${pick(rand, ['example', 'contoso', 'fabrikam', 'northwind'])}-${Math.floor(rand() * 1000)}.${pick(rand, TLDS)}`;
  return { ip, domain, sha256: hex(`sample-${i}`), md5: hex(`dropper-${i}`, 'md5'), cve: `CVE-${2021 + (i % 5)}-${1000 + (i % 40000)}` };
}

/** One RSS 2.0 document with `count` items, newest first; `first` numbers them (distinct ids, CVEs and indicators per range). */
export function generateRssFeed(count: number, seed = 1, first = 0): string {
  const rand = prng(seed);
  const base = Date.UTC(2026, 10, 20, 12, 0, 0);
  const items: string[] = [];
  for (let i = first; i < first + count; i++) {
    const ioc = indicatorsFor(i, rand);
    const title = `${pick(rand, ACTORS)} ${pick(rand, VERBS)} ${ioc.cve} in ${pick(rand, PRODUCTS)} against ${pick(rand, SECTORS)} organisations`;
    const prose = Array.from({ length: 6 + Math.floor(rand() * 5) }, () => pick(rand, SENTENCES)).join(' ');
    const html =
      `<p>${escapeXml(prose)}</p>` +
      `<p>Indicators of compromise: C2 server <code>${ioc.ip.replace(/\.(\d+)$/, '[.]$1')}</code>, ` +
      `domain <code>${ioc.domain.replace(/\.([a-z]+)$/, '[.]$1')}</code>, ` +
      `payload SHA-256 <code>${ioc.sha256}</code> and dropper MD5 <code>${ioc.md5}</code>. ` +
      `Tracked as ${ioc.cve}; see <a href="https://nvd.nist.gov/vuln/detail/${ioc.cve}">NVD</a>.</p>`;
    const pubDate = new Date(base - i * 7 * 60_000).toUTCString();
    items.push(
      `<item><title>${escapeXml(title)}</title><link>https://research.vendor.example/posts/${i}-${ioc.cve.toLowerCase()}</link>` +
        `<guid isPermaLink="false">urn:vendor:post:${i}</guid><pubDate>${pubDate}</pubDate>` +
        `<category>threat-intel</category><category>${pick(rand, SECTORS)}</category>` +
        `<description><![CDATA[${html}]]></description></item>`,
    );
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Vendor Threat Research</title>` +
    `<link>https://research.vendor.example/</link><description>Posts from the research team</description><language>en</language>\n` +
    `${items.join('\n')}\n</channel></rss>\n`
  );
}

export type StixWithDate = Record<string, unknown> & { date_added: string };

/** `count` STIX 2.1 indicators (a mix of pattern shapes), each with a TAXII date_added; `first` numbers them. */
export function generateStixIndicators(count: number, seed = 2, first = 0): StixWithDate[] {
  const rand = prng(seed);
  const base = Date.UTC(2026, 9, 1);
  const out: StixWithDate[] = [];
  for (let i = first; i < first + count; i++) {
    const ioc = indicatorsFor(i, rand);
    const shape = i % 5;
    const pattern =
      shape === 0 ? `[ipv4-addr:value = '${ioc.ip}']`
      : shape === 1 ? `[domain-name:value = '${ioc.domain}']`
      : shape === 2 ? `[file:hashes.'SHA-256' = '${ioc.sha256}']`
      : shape === 3 ? `[url:value = 'https://${ioc.domain}/gate/${ioc.md5.slice(0, 8)}.php']`
      : `[ipv4-addr:value = '${ioc.ip}'] OR [domain-name:value = '${ioc.domain}'] OR [file:hashes.MD5 = '${ioc.md5}']`;
    const ts = new Date(base + i * 1000).toISOString();
    const uuid = hex(`stix-${seed}-${i}`).slice(0, 32);
    out.push({
      type: 'indicator',
      spec_version: '2.1',
      id: `indicator--${uuid.slice(0, 8)}-${uuid.slice(8, 12)}-4${uuid.slice(13, 16)}-8${uuid.slice(17, 20)}-${uuid.slice(20, 32)}`,
      created: ts,
      modified: ts,
      name: `${pick(rand, ACTORS)} infrastructure ${i}`,
      description: `${pick(rand, SENTENCES)} ${pick(rand, SENTENCES)}`,
      indicator_types: ['malicious-activity'],
      pattern,
      pattern_type: 'stix',
      valid_from: ts,
      confidence: 50 + Math.floor(rand() * 50),
      labels: [pick(rand, SECTORS)],
      date_added: ts,
    });
  }
  return out;
}
