import semver from 'semver';
import * as pep440 from '@renovatebot/pep440';
import { compareVersions } from './versions.fns.js';
import { memoized } from '../../platform/memo.js';

/**
 * Version order by each ecosystem's own rules (docs/hunt.md "Version rules"). A well-kept
 * library where one exists (npm and Go: `semver`; PyPI: `@renovatebot/pep440`); the published
 * algorithm otherwise (Maven ComparableVersion, dpkg's verrevcmp, rpm's rpmvercmp), each tested
 * against its upstream test vectors (ecosystems.fns.test.ts). A version the ecosystem's rules
 * cannot parse falls back to the generic rule (versions.fns.ts), which is also the rule of
 * CPE and appliance versions (`9.3p1` < `9.8p1`). Pure, no I/O.
 */
export type VersionScheme = 'npm' | 'pypi' | 'maven' | 'go' | 'deb' | 'rpm' | 'generic';

/** The scheme of an OSV ecosystem name or a purl type ("PyPI", "pypi", "Debian:12", "Red Hat", "golang"). */
export function schemeOf(ecosystemOrPurlType: string): VersionScheme {
  const e = ecosystemOrPurlType.toLowerCase().split(':')[0]!.trim();
  if (e === 'npm') return 'npm';
  if (e === 'pypi') return 'pypi';
  if (e === 'maven') return 'maven';
  if (e === 'go' || e === 'golang') return 'go';
  if (e === 'debian' || e === 'ubuntu' || e === 'deb') return 'deb';
  if (['rpm', 'red hat', 'redhat', 'rocky linux', 'almalinux', 'suse', 'opensuse', 'mageia'].includes(e)) return 'rpm';
  return 'generic';
}

export function compareIn(scheme: VersionScheme, a: string, b: string): number {
  switch (scheme) {
    case 'npm':
      return compareSemver(a, b);
    case 'go':
      return compareSemver(a.replace(/^v/, '').replace(/\+incompatible$/, ''), b.replace(/^v/, '').replace(/\+incompatible$/, ''));
    case 'pypi':
      return pep440.valid(a) && pep440.valid(b) ? Math.sign(pep440.compare(a, b)) : compareVersions(a, b);
    case 'maven':
      return compareMaven(a, b);
    case 'deb':
      return compareDebian(a, b);
    case 'rpm':
      return compareRpm(a, b);
    default:
      return Math.sign(compareVersions(a, b));
  }
}

// Each version parsed once (semver.valid then semver.compare parsed both twice per comparison):
// a page of new threats compares ~50,000 installed versions against a few thousand bounds.
const parseSemver = memoized((v: string) => semver.parse(v));

function compareSemver(a: string, b: string): number {
  const va = parseSemver(a);
  const vb = parseSemver(b);
  return va && vb ? va.compare(vb) : Math.sign(compareVersions(a, b));
}

// ---------------------------------------------------------------------------------------------
// Maven: org.apache.maven.artifact.versioning.ComparableVersion (the algorithm of Maven 3).

type MItem = { k: 'int'; v: bigint } | { k: 'str'; v: string } | { k: 'list'; v: MItem[] };
const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function comparableQualifier(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? `${QUALIFIERS.length}-${q}` : String(i);
}

function strItem(value: string, followedByDigit: boolean): MItem {
  let v = value;
  if (followedByDigit && v.length === 1) v = v === 'a' ? 'alpha' : v === 'b' ? 'beta' : v === 'm' ? 'milestone' : v;
  return { k: 'str', v: ALIASES[v] ?? v };
}

function isNullItem(i: MItem): boolean {
  if (i.k === 'int') return i.v === 0n;
  if (i.k === 'str') return comparableQualifier(i.v) === RELEASE_INDEX;
  return i.v.length === 0;
}

function parseMaven(version: string): MItem {
  const v = version.toLowerCase();
  const root: MItem & { k: 'list' } = { k: 'list', v: [] };
  let list = root;
  const stack = [root];
  let isDigit = false;
  let start = 0;
  const item = (digit: boolean, s: string): MItem => (digit ? { k: 'int', v: BigInt(s) } : strItem(s, false));
  const push = () => {
    const next: MItem & { k: 'list' } = { k: 'list', v: [] };
    list.v.push(next);
    list = next;
    stack.push(next);
  };
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '.') {
      list.v.push(i === start ? { k: 'int', v: 0n } : item(isDigit, v.slice(start, i)));
      start = i + 1;
    } else if (c === '-') {
      list.v.push(i === start ? { k: 'int', v: 0n } : item(isDigit, v.slice(start, i)));
      start = i + 1;
      push();
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        list.v.push(strItem(v.slice(start, i), true));
        start = i;
        push();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.v.push(item(true, v.slice(start, i)));
        start = i;
        push();
      }
      isDigit = false;
    }
  }
  if (v.length > start) list.v.push(item(isDigit, v.slice(start)));
  while (stack.length) {
    const l = stack.pop()!;
    for (let i = l.v.length - 1; i >= 0; i--) {
      const last = l.v[i]!;
      if (isNullItem(last)) l.v.splice(i, 1);
      else if (last.k !== 'list') break;
    }
  }
  return root;
}

function cmpItem(a: MItem, b: MItem | null): number {
  if (a.k === 'int') {
    if (!b) return a.v === 0n ? 0 : 1;
    if (b.k === 'int') return a.v === b.v ? 0 : a.v < b.v ? -1 : 1;
    return 1;
  }
  if (a.k === 'str') {
    if (!b) return cmpStr(comparableQualifier(a.v), RELEASE_INDEX);
    if (b.k === 'int' || b.k === 'list') return -1;
    return cmpStr(comparableQualifier(a.v), comparableQualifier(b.v));
  }
  if (!b) return a.v.length === 0 ? 0 : cmpItem(a.v[0]!, null);
  if (b.k === 'int') return -1;
  if (b.k === 'str') return 1;
  for (let i = 0; i < Math.max(a.v.length, b.v.length); i++) {
    const l = a.v[i];
    const r = b.v[i] ?? null;
    const result = l ? cmpItem(l, r) : r ? -cmpItem(r, null) : 0;
    if (result !== 0) return result;
  }
  return 0;
}

const cmpStr = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);

export function compareMaven(a: string, b: string): number {
  return cmpItem(parseMaven(a), parseMaven(b));
}

// ---------------------------------------------------------------------------------------------
// Debian: dpkg's [epoch:]upstream[-revision], upstream and revision by verrevcmp (lib/dpkg/version.c).

function dpkgOrder(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c >= '0' && c <= '9') return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  if (c === '~') return -1;
  return c.charCodeAt(0) + 256;
}

function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  const digit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !digit(a[i])) || (j < b.length && !digit(b[j]))) {
      const ac = dpkgOrder(a[i]);
      const bc = dpkgOrder(b[j]);
      if (ac !== bc) return Math.sign(ac - bc);
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (digit(a[i]) && digit(b[j])) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (digit(a[i])) return 1;
    if (digit(b[j])) return -1;
    if (firstDiff) return Math.sign(firstDiff);
  }
  return 0;
}

function splitDebian(v: string): { epoch: number; upstream: string; revision: string } {
  const t = v.trim();
  const colon = t.indexOf(':');
  const epoch = colon > 0 && /^\d+$/.test(t.slice(0, colon)) ? Number(t.slice(0, colon)) : 0;
  const rest = colon > 0 ? t.slice(colon + 1) : t;
  const dash = rest.lastIndexOf('-');
  return { epoch, upstream: dash > 0 ? rest.slice(0, dash) : rest, revision: dash > 0 ? rest.slice(dash + 1) : '' };
}

export function compareDebian(a: string, b: string): number {
  const x = splitDebian(a);
  const y = splitDebian(b);
  if (x.epoch !== y.epoch) return x.epoch < y.epoch ? -1 : 1;
  return verrevcmp(x.upstream, y.upstream) || verrevcmp(x.revision, y.revision);
}

// ---------------------------------------------------------------------------------------------
// RPM: rpmvercmp (rpmio/rpmvercmp.c) on [epoch:]version[-release].

export function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  const alnum = (c: string | undefined) => c !== undefined && /[A-Za-z0-9]/.test(c);
  const digit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  const alpha = (c: string | undefined) => c !== undefined && /[A-Za-z]/.test(c);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while (i < a.length && !alnum(a[i]) && a[i] !== '~' && a[i] !== '^') i++;
    while (j < b.length && !alnum(b[j]) && b[j] !== '~' && b[j] !== '^') j++;
    if (a[i] === '~' || b[j] === '~') {
      if (a[i] !== '~') return 1;
      if (b[j] !== '~') return -1;
      i++;
      j++;
      continue;
    }
    if (a[i] === '^' || b[j] === '^') {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (!(i < a.length && j < b.length)) break;
    let ei = i;
    let ej = j;
    const isnum = digit(a[i]);
    const same = isnum ? digit : alpha;
    while (ei < a.length && same(a[ei])) ei++;
    while (ej < b.length && same(b[ej])) ej++;
    if (ej === j) return isnum ? 1 : -1;
    let s1 = a.slice(i, ei);
    let s2 = b.slice(j, ej);
    if (isnum) {
      s1 = s1.replace(/^0+/, '');
      s2 = s2.replace(/^0+/, '');
      if (s1.length !== s2.length) return s1.length > s2.length ? 1 : -1;
    }
    if (s1 !== s2) return s1 < s2 ? -1 : 1;
    i = ei;
    j = ej;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i < a.length ? 1 : -1;
}

export function compareRpm(a: string, b: string): number {
  const split = (v: string) => {
    const m = /^(?:(\d+):)?(.*?)(?:-([^-]*))?$/.exec(v.trim())!;
    return { epoch: Number(m[1] ?? 0), version: m[2] ?? '', release: m[3] };
  };
  const x = split(a);
  const y = split(b);
  if (x.epoch !== y.epoch) return x.epoch < y.epoch ? -1 : 1;
  const v = rpmvercmp(x.version, y.version);
  if (v !== 0 || x.release === undefined || y.release === undefined) return v;
  return rpmvercmp(x.release, y.release);
}
