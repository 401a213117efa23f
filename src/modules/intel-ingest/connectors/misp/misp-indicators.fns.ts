import { isIP } from 'node:net';
import type { AssertedIndicatorType } from '../../../intel/index.js';

/**
 * MISP attribute type → indicator type(s). Compound types (`a|b`) carry a compound value split on
 * the first `|`; some yield both halves (`domain|ip`, `filename|<hash>`), some only the left one
 * (`ip-dst|port`, `regkey|value`). Types with no mapping become `other`.
 */

export interface TypedValue {
  type: AssertedIndicatorType;
  value: string;
}

const HASH_TYPES: ReadonlySet<string> = new Set(['md5', 'sha1', 'sha256', 'sha512', 'ssdeep']);

/** MISP types that are prose or metadata, never indicators, even when flagged `to_ids`. */
export const NON_INDICATOR_TYPES: ReadonlySet<string> = new Set(['comment', 'text']);

function splitCompound(value: string): [string, string] {
  const i = value.indexOf('|');
  return i < 0 ? [value, ''] : [value.slice(0, i), value.slice(i + 1)];
}

/** `ipv4`/`ipv6` by the address part (a CIDR suffix is kept in the value); `other` when not an IP. */
function ip(value: string): TypedValue {
  const [addr = ''] = value.split('/', 1);
  const family = isIP(addr.trim());
  return { type: family === 6 ? 'ipv6' : family === 4 ? 'ipv4' : 'other', value };
}

function hash(mispType: string, value: string): TypedValue {
  return { type: HASH_TYPES.has(mispType) ? (mispType as AssertedIndicatorType) : 'other', value };
}

function single(mispType: string, value: string): TypedValue[] {
  switch (mispType) {
    case 'ip-src':
    case 'ip-dst':
      return [ip(value)];
    case 'domain':
    case 'hostname':
      return [{ type: 'domain', value }];
    case 'url':
    case 'uri':
    case 'link':
      return [{ type: 'url', value }];
    case 'email':
    case 'email-src':
    case 'email-dst':
      return [{ type: 'email', value }];
    case 'md5':
    case 'sha1':
    case 'sha256':
    case 'sha512':
    case 'ssdeep':
      return [hash(mispType, value)];
    case 'filename':
      return [{ type: 'filename', value }];
    case 'regkey':
      return [{ type: 'registry-key', value }];
    case 'mutex':
      return [{ type: 'mutex', value }];
    case 'AS':
      return [{ type: 'asn', value }];
    case 'vulnerability':
      return [{ type: 'cve', value }];
    default:
      if (mispType.startsWith('x509-fingerprint-')) return [{ type: 'cert', value }];
      return [{ type: 'other', value }];
  }
}

/**
 * The typed values one `to_ids` attribute asserts. Values are trimmed; empty parts are dropped.
 * `comment`/`text` attributes yield nothing.
 */
export function typedValuesForAttribute(mispType: string, rawValue: string): TypedValue[] {
  const value = rawValue.trim();
  if (!value || NON_INDICATOR_TYPES.has(mispType)) return [];
  let out: TypedValue[];
  const bar = mispType.indexOf('|');
  if (bar >= 0) {
    const [left, right] = splitCompound(value).map((s) => s.trim()) as [string, string];
    const leftType = mispType.slice(0, bar);
    const rightType = mispType.slice(bar + 1);
    switch (mispType) {
      case 'ip-src|port':
      case 'ip-dst|port':
        out = [ip(left)];
        break;
      case 'hostname|port':
        out = [{ type: 'domain', value: left }];
        break;
      case 'domain|ip':
        out = [{ type: 'domain', value: left }, ip(right)];
        break;
      case 'regkey|value':
        out = [{ type: 'registry-key', value: left }];
        break;
      default:
        // filename|md5, filename|sha256, filename|ssdeep, filename|imphash (→ other), …
        if (leftType === 'filename') out = [{ type: 'filename', value: left }, hash(rightType, right)];
        else out = [{ type: 'other', value }];
    }
  } else if (mispType === 'malware-sample') {
    // Value is `<filename>|<md5>`; the sample itself travels as base64 `data`.
    const [left, right] = splitCompound(value).map((s) => s.trim()) as [string, string];
    out = [{ type: 'filename', value: left }, { type: 'md5', value: right }];
  } else {
    out = single(mispType, value);
  }
  return out.filter((t) => t.value !== '');
}
