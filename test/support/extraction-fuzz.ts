/**
 * Seeded texts for the extractor's equality test (src/modules/intel/extract/equality.test.ts): short texts built
 * from fragments of every kind the extractor reads, the edges that changed its code before (casing, defang forms,
 * leading zeros, octets > 255, doubled and trailing backslashes, context words for versions, phones, certificates
 * and mobile ids, the Azure/GCP/ids passes), joined by the separators prose uses. Deterministic: the same seed gives
 * the same texts on every machine, so a digest of the extractor's output over them pins its behaviour.
 *
 * Years of CVE ids stay inside 1999–2025 or far outside it: the valid range ends a year after the current one.
 */

/** mulberry32: a small seeded generator (the bench's, bench/support/stats.ts). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HEX = '0123456789abcdef';
const ALNUM = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const DOTS = ['.', '[.]', '(.)', '{.}', '[dot]', '(dot)', '{dot}', '[ . ]', ' [dot] ', ' (dot) ', ' {dot} ', ' [.] ', ' dot ', '\\.'];
const ATS = ['@', '[@]', '(@)', '{@}', '[at]', '(at)', '{at}', ' [at] ', ' (at) ', ' [@] '];
const SCHEMES = ['http', 'https', 'hxxp', 'hxxps', 'hXXps', 'h**p', 'h[tt]p', 'h[xx]ps', 'fxp', 'ftp', 'sftp', 'wss', 'tcp', 'udp', 'ssh', 'HTTP'];
const SCHEME_SEPS = ['://', '[:]//', '(:)//', '{:}//', '[://]', '[:/]/', ':[//]', '[:][//]'];
const TLDS = ['com', 'net', 'org', 'ru', 'cn', 'io', 'xyz', 'top', 'co.uk', 'de', 'onion', 'exe', 'dll', 'zip', 'py', 'js', 'pl', 'ai', 'ps', 'txt', 'local', 'example', 'test', 'invalid', 'zz', 'json', 'php', 'html'];
const WORDS = ['update', 'secure', 'cdn', 'login', 'portal', 'cloud', 'mail', 'api', 'files', 'auth', 'panel', 'data', 'node', 'asp', 'google', 'microsoft', 'github', 'example', 'com', 'org', 'telegram', 'xn--80ak6aa92e', 'пример', 'bücher', 'e', 'g', 'U', 'S'];
const CONTEXT = ['version', 'ver.', 'v', 'build', 'call', 'phone', 'tel:', 'fingerprint', 'thumbprint', 'certificate', 'SHA1', 'serial', 'package', 'bundle id', 'app id', 'com.', 'subscription id:', 'tenant', 'subscriptions/', 'projects/', 'wallet', 'see', 'e.g.', 'i.e.', 'AS', 'ASN', 'at', 'dot', 'and', '-', '—'];
const SEPARATORS = [' ', ' ', ' ', '\n', ', ', '; ', ' (', ') ', '"', "'", '\t', '. ', '', '/', ':', ' - ', '[', ']', '<', '>', '|', '\r\n'];
const HIVES = ['HKLM', 'HKCU', 'HKCR', 'HKU', 'HKCC', 'HKEY_LOCAL_MACHINE', 'HKEY_CURRENT_USER', 'HKEY_CLASSES_ROOT', 'HKEY_USERS', 'hklm'];
const AWS_PREFIXES = ['AKIA', 'ASIA', 'AROA', 'AIDA', 'AGPA', 'AIPA', 'ANPA', 'ANVA', 'APKA', 'ABIA', 'ACCA', 'AKIB'];
const FIXED = [
  'EXAMPLE.COM', 'www.example.com', 'sub.domain.co.uk', 'localhost.localdomain', '1.0.0.127.in-addr.arpa', '45.77.12.9.sslip.io',
  'node.js', 'asp.net', 'README.txt', 'update.py', 'C:\\Windows\\.hidden', 'https://attack.mitre.org/techniques/T1566/001/',
  'https://www.virustotal.com/gui/file/', 'https://play.google.com/store/apps/details?id=com.evil.app&hl=en', '+1 202.555.0143',
  '10.0.19045.3693', '09:41:17', '12:30', '2001:db8::1', 'fe80::1%eth0', '::ffff:192.0.2.1', '::', '1::', '[2a01:4f8::1]',
  'arn:aws:iam::123456789012:role/Admin Role/x', 'arn:aws:s3:::my-bucket/key.txt.', 'arn:aws-cn:lambda:cn-north-1:123456789012:function:f',
  'projects/my-project-123', 'projects/evil-proj-42/zones', 'projects/projects/abcdef-12', '00000000-0000-0000-0000-000000000000',
  'e.g.', 'U.S.', 'i.e', 'Fig. 3', 'v1.2.3.4', 'version 10.1.2.3', 'ver. 1.2.3.4', '3.14', '192.168.1.1', '8.8.8.8', '0.0.0.0',
  'user@gmail.com', 'first.last+tag@evil-mail.ru', 'a@b', '@handle', 'x@localhost', 'root@example.org',
  '%APPDATA%\\Microsoft\\svchost.exe', '\\\\server\\share\\dir\\tool.ps1', 'C:\\Program Files\\App Dir\\run me.bat',
  'HKLM\\\\Software\\\\Run\\\\', 'HKCU\\', 'HKEY_CURRENT_USER\\Volatile Environment', 'HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon (T1547.004)',
  '0x', '0xdeadbeef', 'bc1', 'T1', 'CVE', 'cve-', 'AS0', 'AS23456', 'AS64500', 'AS4294967295', 'ASN 13335', 'AS13335.5',
];

/** The generator: fragments of every kind, each a small random variation. */
class Fuzz {
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
  chars(alphabet: string, n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
  casing(s: string): string {
    const k = this.int(4);
    return k === 0 ? s.toUpperCase() : k === 1 ? s.toLowerCase() : k === 2 ? s[0]?.toUpperCase() + s.slice(1).toLowerCase() : s;
  }
  host(): string {
    const labels = 1 + this.int(3);
    const parts: string[] = [];
    for (let i = 0; i < labels; i++) parts.push(this.int(3) === 0 ? this.pick(WORDS) : `${this.pick(WORDS)}${this.int(3) === 0 ? '-' : ''}${this.int(100)}`);
    parts.push(this.pick(TLDS));
    const dot = this.int(3) === 0 ? this.pick(DOTS) : '.';
    return this.casing(parts.join(dot));
  }
  octet(): string {
    const k = this.int(10);
    return k === 0 ? String(256 + this.int(700)) : k === 1 ? `0${this.int(100)}` : String(this.int(256));
  }
  ipv4(): string {
    const dot = this.int(3) === 0 ? this.pick(DOTS) : '.';
    return [this.octet(), this.octet(), this.octet(), this.octet()].join(dot);
  }
  ipv6(): string {
    const n = 2 + this.int(7);
    const groups: string[] = [];
    for (let i = 0; i < n; i++) groups.push(this.chars(HEX, this.int(5)));
    if (this.int(3) === 0) groups[0] = `2a0${1 + this.int(8)}`;
    let s = groups.join(':');
    if (this.int(4) === 0) s = s.replace(/:(?=[^:]*$)/, '::');
    return this.casing(s);
  }
  path(): string {
    const segs = this.int(4);
    let p = '';
    for (let i = 0; i < segs; i++) p += `/${this.pick(['', this.pick(WORDS), this.chars(ALNUM, 1 + this.int(10)), '[.]', 'a[/]b', '..', 'x.php', 'index.html'])}`;
    if (this.int(3) === 0) p += `?id=${this.int(1000)}&q=${this.pick(WORDS)}`;
    if (this.int(5) === 0) p += `#${this.pick(WORDS)}`;
    if (this.int(4) === 0) p += this.pick(['.', ',', ')', ']', '}', '!', '?', ':', '"', "'", '...', ').']);
    return p;
  }
  url(): string {
    const userinfo = this.int(8) === 0 ? `${this.pick(WORDS)}${this.int(2) ? ':pw' : ''}${this.int(2) ? '@' : '[@]'}` : '';
    const host = this.int(6) === 0 ? this.ipv4() : this.int(10) === 0 ? `[${this.ipv6()}]` : this.host();
    const port = this.int(4) === 0 ? `${this.pick([':', '[:]', '(:)'])}${this.pick(['80', '8080', '443', '65535', '65536', '99999', '0'])}` : '';
    return `${this.pick(SCHEMES)}${this.pick(SCHEME_SEPS)}${userinfo}${host}${port}${this.path()}`;
  }
  email(): string {
    const local = `${this.pick(WORDS)}${this.pick(['', '.', '[.]', '(.)', '+', '%', '_'])}${this.pick(WORDS)}`;
    return `${local}${this.pick(ATS)}${this.host()}`;
  }
  hexRun(): string {
    const n = this.pick([31, 32, 33, 39, 40, 41, 48, 56, 63, 64, 65, 96, 127, 128, 129, 20, 24]);
    const h = this.int(8) === 0 ? '0'.repeat(n) : this.chars(HEX, n);
    return this.int(5) === 0 ? h.toUpperCase() : h;
  }
  registry(): string {
    const sep = this.pick(['\\', '\\\\']);
    const comps = 1 + this.int(5);
    const parts: string[] = [];
    for (let i = 0; i < comps; i++) parts.push(this.pick(['Software', 'Microsoft', 'Windows', 'CurrentVersion', 'Run', 'Windows NT', 'Volatile Environment', 'Policies', `${this.pick(WORDS)}${this.int(100)}`, '{GUID-1234}', '']));
    return `${this.pick(HIVES)}${this.int(6) === 0 ? ':' : ''}${sep}${parts.join(sep)}${this.int(4) === 0 ? sep : ''}`;
  }
  winPath(): string {
    const root = this.pick(['C:', 'c:', 'D:', '%APPDATA%', '%TEMP%', '%ProgramFiles(x86)%', '\\\\srv01', '\\\\10.0.0.5']);
    const sep = this.pick(['\\', '\\\\']);
    const comps = 1 + this.int(4);
    const parts: string[] = [];
    for (let i = 0; i < comps; i++) parts.push(this.pick(['Users', 'Public', 'Program Files', 'AppData', 'Local', 'Temp', `${this.pick(WORDS)}${this.int(10)}`]));
    const file = this.int(4) === 0 ? '' : `${this.pick(WORDS)}${this.int(100)}.${this.pick(['exe', 'dll', 'ps1', 'bat', 'vbs', 'lnk', 'txt', 'docx', 'tmp', 'dat', 'js', 'scr'])}`;
    return `${root}${sep}${parts.join(sep)}${sep}${file}${this.int(5) === 0 ? sep : ''}`;
  }
  id(): string {
    const sep = this.pick(['-', '-', '_', ' ', '\u2010', '\u2013', '']);
    switch (this.int(6)) {
      case 0:
      case 1:
        return `${this.pick(['CVE', 'cve', 'Cve', 'CVe', 'xCVE'])}${sep}${this.pick(['1999', '2014', '2021', '2024', '2025', '1998', '1900', '2999', '20245'])}${this.pick(['-', '_', ' ', '\u2011', ''])}${this.chars('0123456789', 3 + this.int(6))}`;
      case 2:
        return `${this.pick(['', '-', '.', 'x', ' '])}T1${this.chars('0123456789', 2 + this.int(3))}${this.pick(['', '.001', '/002', '.0011', '.1'])}`;
      case 3:
        return `${this.pick(['AS', 'ASN', 'ASN ', 'as', 'xAS'])}${this.pick(['0', '23456', '64496', '65535', '65540', '4294967295', '13335', String(this.int(1e6)), '12345678901'])}${this.pick(['', '.5', '.', ',', '9'])}`;
      case 4:
        return `${this.pick(AWS_PREFIXES)}${this.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 15 + this.int(3))}${this.pick(['', '', 'a', 'EXAMPLE'])}`;
      default:
        return `${this.pick(['subscription', 'Subscriptions-ids', 'tenant_id', 'TENANT', 'subscription id is', 'tenant='])}${this.pick(['', ' ', ': ', ' = ', ' : is  '])}${this.chars(HEX, 8)}-${this.chars(HEX, 4)}-${this.chars(HEX, 4)}-${this.chars(HEX, 4)}-${this.chars(HEX, 12 + this.int(2) * 4)}`;
    }
  }
  wallet(): string {
    switch (this.int(5)) {
      case 0:
        return `${this.pick(['1', '3'])}${this.chars(B58, 25 + this.int(10))}`;
      case 1:
        return `${this.pick(['bc1', 'BC1', 'bc1q'])}${this.chars(BECH32, 30 + this.int(30))}`;
      case 2:
        return `0x${this.chars(HEX, this.pick([38, 40, 42]))}`;
      case 3:
        return `4${this.chars(B58, 94)}`;
      default:
        return `${this.chars('abcdefghijklmnopqrstuvwxyz234567', this.pick([16, 55, 56, 57]))}${this.pick(['', '.onion', '[.]onion', '.ONION'])}`;
    }
  }
  misc(): string {
    switch (this.int(7)) {
      case 0:
        return `${this.pick(['3', '48', '96', '192', '1536', '12288', '7'])}:${this.chars(ALNUM + '/+', 3 + this.int(60))}:${this.chars(ALNUM + '/+', 3 + this.int(60))}`;
      case 1: {
        const n = this.pick([20, 32, 19]);
        const parts: string[] = [];
        for (let i = 0; i < n; i++) parts.push(this.chars(HEX, 2));
        return this.casing(parts.join(':'));
      }
      case 2:
        return `arn:${this.pick(['aws', 'aws-cn', 'aws-us-gov', 'aws-iso-b'])}:${this.pick(['iam', 's3', 'lambda', 'ec2'])}:${this.pick(['', 'us-east-1', '*'])}:${this.pick(['', '123456789012', '*', 'aws'])}:${this.pick(['role/x', 'user/a b c/d', 'bucket/*', 'function:f', 'instance/i-1'])}${this.pick(['', '.', ';', '"'])}`;
      case 3:
        return `${this.pick(['com', 'org', 'net', 'io', 'de', 'uk'])}.${this.pick(WORDS)}.${this.pick(WORDS)}${this.int(2) ? `.${this.pick(WORDS)}` : ''}`;
      case 4:
        return `${this.pick(['https://www.virustotal.com/gui/file/', 'https://bazaar.abuse.ch/sample/', 'https://play.google.com/store/apps/details?id='])}${this.int(2) ? this.hexRun() : `com.${this.pick(WORDS)}.${this.pick(WORDS)}`}`;
      case 5:
        return `${this.pick(WORDS)}${this.int(100)}.${this.pick(['exe', 'dll', 'doc', 'pdf', 'sys', 'ps1', 'py', 'sh', 'zip', 'rar'])}`;
      default:
        return this.pick(FIXED);
    }
  }
  fragment(): string {
    switch (this.int(12)) {
      case 0:
      case 1:
        return this.host();
      case 2:
        return this.ipv4();
      case 3:
        return this.ipv6();
      case 4:
        return this.url();
      case 5:
        return this.email();
      case 6:
        return this.hexRun();
      case 7:
        return this.int(2) ? this.registry() : this.winPath();
      case 8:
        return this.id();
      case 9:
        return this.wallet();
      case 10:
        return this.pick(CONTEXT);
      default:
        return this.misc();
    }
  }
  text(): string {
    const n = 1 + this.int(10);
    let s = this.int(4) === 0 ? this.pick(SEPARATORS) : '';
    for (let i = 0; i < n; i++) s += this.fragment() + this.pick(SEPARATORS);
    // a mutation now and then: a character flipped in case, removed or doubled
    if (this.int(4) === 0 && s.length > 1) {
      const at = this.int(s.length);
      const k = this.int(3);
      s = k === 0 ? s.slice(0, at) + s.charAt(at).toUpperCase() + s.slice(at + 1) : k === 1 ? s.slice(0, at) + s.slice(at + 1) : s.slice(0, at) + s.charAt(at) + s.slice(at);
    }
    return s;
  }
}

/** `count` texts from `seed`. */
export function fuzzTexts(count: number, seed = 50): string[] {
  const f = new Fuzz(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(f.text());
  return out;
}
