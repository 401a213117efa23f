/**
 * The extraction bench's corpus, generated (seeded, so every run reads the same text): threat
 * reports of prose with numbers, versions, dates, abbreviations and benign references
 * (attack.mitre.org, 8.8.8.8, github.com…), inline indicators, defanged forms of every kind, and
 * IOC appendix lists. Most of the text is ordinary prose, as in real reports, because that is
 * what an extractor spends its time skipping. With `withTruth` it also returns what a correct
 * extractor should report.
 */
import type { IocKind } from '../../src/modules/intel/extract/extract.fns.js';
import { prng } from './stats.js';

/** Ordinary report prose: no indicators, few structural characters (most of a real report). */
const PLAIN_SENTENCES = [
  'The intrusion set has been tracked under several names by different vendors over the past three years.',
  'Initial access was most often obtained through exposed remote access services protected by weak passwords.',
  'Once inside the network, the operators enumerated domain controllers and collected information about backups.',
  'The malware family is modular, and each plugin is loaded on demand after a request from the controller.',
  'We assess that the group is likely to continue targeting the manufacturing and logistics sectors.',
  'Defenders should prioritize patching internet-facing appliances and reviewing privileged account activity.',
  'The payload is written in Go and compiled for both Windows and Linux, which simplifies cross-platform operations.',
  'Communication with the server is encrypted and encoded before it is sent, making network detection harder.',
  'Several victims reported that their security tooling was disabled shortly before the encryption started.',
  'The campaign reused infrastructure from earlier operations, which helped analysts link the clusters together.',
  'Persistence relies on a service that masquerades as a legitimate component of the operating system.',
  'The threat actor often waits several days between initial access and the deployment of the final payload.',
  'Phishing messages impersonated human resources departments and referenced upcoming changes to benefits.',
  'The implant collects the host name, the user name, the domain and the list of running security products.',
  'Affected organizations were located in North America, Western Europe and Southeast Asia.',
  'The attackers staged the stolen data in compressed archives before moving it to cloud storage accounts.',
  'Detection opportunities include unusual parent-child process relationships and rare outbound connections.',
  'The loader uses a custom packer that changes with every build, so static signatures age quickly.',
  'Incident responders found web shells on two servers that had not been patched for more than a year.',
  'The group appears to operate during business hours in a single time zone, with a pause at the weekend.',
];

/** Prose with structural characters: numbers, versions, abbreviations, times, benign references. */
const SENTENCES = [
  'The threat actor leveraged spearphishing emails with malicious attachments to gain initial access.',
  'Analysts observed lateral movement via remote services and credential dumping from LSASS memory.',
  'The loader establishes persistence through scheduled tasks and registry run keys, then downloads additional modules.',
  'Researchers attribute the activity with moderate confidence to a financially motivated group active since 2019.',
  'Version 2.4 of the implant introduced string encryption, anti-analysis checks and a new configuration format.',
  'In Q3 2023, roughly 37% of the observed intrusions began with a phishing lure, e.g. a fake invoice or a shipping notice.',
  'The U.S. and EU agencies published a joint advisory on 14 March 2024 describing the campaign.',
  'Exfiltration happened over HTTPS to attacker-controlled infrastructure hosted on bulletproof providers.',
  'The dropper checks for 4 GB of RAM and at least 2 CPU cores before it unpacks the second stage.',
  'Operators used living-off-the-land binaries such as rundll32 and regsvr32 to evade detection.',
  'See the MITRE ATT&CK page at https://attack.mitre.org/techniques/T1566/001/ for mitigations.',
  'The affected build 10.0.19045.3693 was patched in the November cumulative update.',
  'Victims were told to call +1 202.555.0143 for support, a classic callback-phishing pattern.',
  'DNS queries to 8.8.8.8 and 1.1.1.1 are normal and were excluded from the analysis.',
  'The sample was first uploaded to VirusTotal at 09:41:17 UTC and detected by 12 of 70 engines.',
  'Upgrade to version 1.2.3.4 or later; earlier builds are vulnerable.',
  'Refer to the vendor advisory on github.com and to nvd.nist.gov for CVSS details.',
  'The configuration is decrypted with a 16-byte XOR key, then parsed as JSON.',
  'Internal hosts such as 10.0.0.5 and 192.168.1.20 were used as staging points.',
  'The ransom note, named README.txt, was dropped in every directory together with the encryptor update.py.',
];

const TLDS = ['com', 'net', 'org', 'ru', 'cn', 'info', 'xyz', 'top', 'io', 'biz', 'online', 'site', 'co.uk', 'de', 'su'];
const WORDS = ['update', 'secure', 'cdn', 'login', 'portal', 'cloud', 'sync', 'mail', 'api', 'static', 'files', 'auth', 'panel', 'data', 'news'];
const HEX = '0123456789abcdef';
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export interface GroundTruth {
  kind: IocKind;
  normalized: string;
}

class CorpusGen {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = prng(seed);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += HEX[this.int(16)];
    return s;
  }
  domain(): string {
    return `${this.pick(WORDS)}-${this.pick(WORDS)}${this.int(100)}.${this.pick(TLDS)}`;
  }
  publicIp(): string {
    // avoid reserved/private/benign ranges: first octet 11..99 or 101..126 or 131..168
    const first = this.pick([this.int(89) + 11, this.int(26) + 101, this.int(38) + 131]);
    return `${first === 100 ? 101 : first}.${this.int(256)}.${this.int(256)}.${1 + this.int(254)}`;
  }
  defangHost(h: string): string {
    const forms = ['[.]', '(.)', '[dot]', '{.}', '[.]', '[.]'];
    const f = this.pick(forms);
    return h.replace(/\./g, f);
  }
  /** One indicator as written, plus what a correct extractor should report. */
  indicator(): { text: string; truth: GroundTruth[] } {
    const k = this.int(16);
    switch (k) {
      case 0: {
        const d = this.domain();
        return { text: this.defangHost(d), truth: [{ kind: 'domain', normalized: d }] };
      }
      case 1: {
        const d = this.domain();
        const p = `/${this.pick(WORDS)}/${this.hex(6)}.php?id=${this.int(1000)}`;
        const scheme = this.pick(['hxxp', 'hxxps', 'hXXp', 'http', 'https']);
        const written = `${scheme}://${this.r() < 0.7 ? this.defangHost(d) : d}${p}`;
        return {
          text: written,
          truth: [
            { kind: 'url', normalized: `${scheme.toLowerCase().replace('hxxp', 'http')}://${d}${p}` },
            { kind: 'domain', normalized: d },
          ],
        };
      }
      case 2:
      case 3: {
        const ip = this.publicIp();
        return { text: this.r() < 0.5 ? ip.replace(/\./g, '[.]') : ip, truth: [{ kind: 'ipv4', normalized: ip }] };
      }
      case 4:
        return this.hash(32, 'md5');
      case 5:
        return this.hash(40, 'sha1');
      case 6:
      case 7:
        return this.hash(64, 'sha256');
      case 8: {
        const cve = `CVE-${2015 + this.int(10)}-${1000 + this.int(50000)}`;
        return { text: cve, truth: [{ kind: 'cve', normalized: cve }] };
      }
      case 9: {
        const t = `T1${String(this.int(1000)).padStart(3, '0')}${this.r() < 0.4 ? `.00${1 + this.int(9)}` : ''}`;
        return { text: t, truth: [{ kind: 'attack-technique', normalized: t }] };
      }
      case 10: {
        const name = `${this.pick(WORDS)}${this.int(100)}.exe`;
        return { text: name, truth: [{ kind: 'process', normalized: name }] };
      }
      case 11: {
        const key = `HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\${this.pick(WORDS)}${this.int(100)}`;
        return { text: key, truth: [{ kind: 'registry-key', normalized: key.replace('HKCU', 'HKEY_CURRENT_USER').toLowerCase().replace('hkey_current_user', 'HKEY_CURRENT_USER') }] };
      }
      case 12: {
        const d = this.domain();
        const local = `${this.pick(WORDS)}.${this.pick(WORDS)}`;
        return { text: `${local}[@]${this.defangHost(d)}`, truth: [{ kind: 'email', normalized: `${local}@${d}` }] };
      }
      case 13: {
        const ip = this.publicIp();
        return { text: `tcp://${ip}:${1024 + this.int(60000)}`, truth: [{ kind: 'ipv4', normalized: ip }] };
      }
      case 14: {
        const parts: string[] = [];
        for (let i = 0; i < 8; i++) parts.push(this.hex(4).replace(/^0+(?=.)/, ''));
        parts[0] = `2a0${1 + this.int(8)}`;
        const v6 = parts.join(':');
        return { text: v6, truth: [{ kind: 'ipv6', normalized: v6 }] };
      }
      default: {
        if (this.int(4) !== 0) return this.hash(64, 'sha256');
        let a = '1';
        for (let i = 0; i < 33; i++) a += B58[this.int(58)];
        return { text: `wallet ${a}`, truth: [] }; // random Base58 fails the checksum: not a BTC address
      }
    }
  }
  private hash(n: number, kind: IocKind): { text: string; truth: GroundTruth[] } {
    const h = this.hex(n);
    return { text: this.r() < 0.2 ? h.toUpperCase() : h, truth: [{ kind, normalized: h }] };
  }
}

/** ~`bytes` of mixed text; `truth` only when `withTruth` (it grows with the corpus). */
export function generateCorpus(bytes: number, seed = 42, withTruth = false): { text: string; truth: GroundTruth[] } {
  const g = new CorpusGen(seed);
  const parts: string[] = [];
  const truth: GroundTruth[] = [];
  let len = 0;
  const push = (s: string): void => {
    parts.push(s);
    len += s.length;
  };
  while (len < bytes) {
    // a report: title, 3-6 paragraphs with inline indicators, then an IOC appendix
    push(`\n\nThreat report ${g.int(100000)}: campaign update\n\n`);
    const paras = 3 + g.int(4);
    for (let p = 0; p < paras; p++) {
      const n = 4 + g.int(5);
      for (let i = 0; i < n; i++) {
        push(g.int(3) === 0 ? g.pick(SENTENCES) : g.pick(PLAIN_SENTENCES));
        push(' ');
        if (g.int(6) === 0) {
          const ind = g.indicator();
          push(`The sample contacted ${ind.text} during execution. `);
          if (withTruth) truth.push(...ind.truth);
        }
      }
      push('\n\n');
    }
    push('Indicators of compromise:\n');
    const m = 3 + g.int(13);
    for (let i = 0; i < m; i++) {
      const ind = g.indicator();
      push(`- ${ind.text}\n`);
      if (withTruth) truth.push(...ind.truth);
    }
  }
  return { text: parts.join(''), truth };
}

