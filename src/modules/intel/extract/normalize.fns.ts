/**
 * Normalization into `normalizedValue`: refanged, lowercase hosts, punycode, canonical IPv6, normalized URLs,
 * canonical registry roots.
 */
import { domainToASCII } from 'node:url';
import { refang } from './refang.fns.js';

// eslint-disable-next-line no-control-regex
const NON_ASCII_RE = /[^\x00-\x7f]/;

/** Lowercase, punycoded hostname without a trailing dot ('' when not convertible). `host` is already refanged. */
export function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.endsWith('.')) h = h.slice(0, -1);
  // ASCII fast path: domainToASCII is only needed for non-ASCII labels
  return NON_ASCII_RE.test(h) ? domainToASCII(h) : h;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443', ftp: '21', ws: '80', wss: '443' };

export interface UrlParts {
  scheme: string; // refanged, lowercase
  userinfo: string; // as written ('' if none), without the '@'
  host: string; // normalized host (punycode / canonical IPv6 in brackets / dotted quad)
  port: string; // '' if none
  path: string; // as written (possibly defanged), '' if none
}

/** scheme://[userinfo@]host[:port]path, lowercase scheme + host, default port removed, path refanged but kept. */
export function normalizeUrl(p: UrlParts): string {
  const port = p.port && DEFAULT_PORTS[p.scheme] !== p.port.replace(/^0+(?=\d)/, '') ? `:${Number(p.port)}` : '';
  const user = p.userinfo ? `${refang(p.userinfo)}@` : '';
  return `${p.scheme}://${user}${p.host}${port}${refang(p.path)}`;
}

const REG_ROOTS: Readonly<Record<string, string>> = {
  HKLM: 'HKEY_LOCAL_MACHINE',
  HKCU: 'HKEY_CURRENT_USER',
  HKCR: 'HKEY_CLASSES_ROOT',
  HKU: 'HKEY_USERS',
  HKCC: 'HKEY_CURRENT_CONFIG',
};

/** Full root name, single backslashes, no trailing backslash, path lowercased (the registry is case-insensitive). */
export function normalizeRegistryKey(root: string, path: string): string {
  return fullRoot(root) + canonicalPath(path).toLowerCase();
}

/** Full root name, single backslashes, no trailing backslash, the path's case as written (for rules people read). */
export function canonicalRegistryKey(root: string, path: string): string {
  return fullRoot(root) + canonicalPath(path);
}

const DOUBLE_BACKSLASH_RE = /\\{2}/g;
const TRAILING_BACKSLASHES_RE = /\\+$/;
const COLONS_RE = /:/g;
const fullRoot = (root: string) => REG_ROOTS[root.toUpperCase()] ?? root.toUpperCase();
/** Single backslashes, no trailing one (most keys as written already are: returned as they are, no regex). */
const canonicalPath = (path: string) =>
  path.indexOf('\\\\') < 0 && path.charCodeAt(path.length - 1) !== 92 ? path : path.replace(DOUBLE_BACKSLASH_RE, '\\').replace(TRAILING_BACKSLASHES_RE, '');

/** A registry key as written in a text (`HKCU\\Software\\…`, `HKLM:\\…`) in canonical form with its case kept; null if it is not one. */
export function registryKeyAsWritten(written: string): string | null {
  const m = /^(HKEY_[A-Z_]+|HK(?:LM|CU|CR|U|CC)):?(\\.*)$/i.exec(written.trim());
  return m ? canonicalRegistryKey(m[1]!, m[2]!) : null;
}

/** Lowercase local part + normalized domain. */
export function normalizeEmail(local: string, asciiHost: string): string {
  return `${refang(local).toLowerCase()}@${asciiHost}`;
}

/** Windows paths and names are case-insensitive: lowercase them; collapse doubled backslashes. */
export function normalizeWindowsPath(path: string): string {
  return path.replace(DOUBLE_BACKSLASH_RE, '\\').toLowerCase();
}

/** Colon-separated or contiguous fingerprint → lowercase hex without separators. */
export function normalizeFingerprint(fp: string): string {
  return fp.replace(COLONS_RE, '').toLowerCase();
}

/** CVE id as CVE-YYYY-NNNN (upper case, ASCII hyphens). */
export const normalizeCve = (year: string, num: string): string => `CVE-${year}-${num}`;

/** ATT&CK id as T1234 or T1234.001. */
export const normalizeTechnique = (raw: string): string => raw.replace('/', '.');
