import { ValidationError } from '../../platform/http/errors.js';
import type { Position } from './objects.store.js';

/** Pure TAXII 2.1 server functions: content negotiation, filters, the `next` token. */

export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';
export const STIX_MEDIA_TYPE = 'application/stix+json;version=2.1';

/**
 * Whether an Accept header asks for TAXII 2.1: `application/taxii+json` with `version=2.1` or
 * no version (TAXII 2.1 §1.6.8.1). Anything else (a missing header, `*\/*`, `application/json`,
 * version 2.0) is refused with 406: a TAXII 2.0 client must not read 2.1 envelopes.
 */
export function acceptsTaxii21(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'application/taxii+json') return false;
    const version = params.find((p) => p.startsWith('version='))?.slice('version='.length);
    const q = params.find((p) => p.startsWith('q='))?.slice(2);
    return (version === undefined || version === '2.1') && (q === undefined || Number(q) > 0);
  });
}

/** The opaque `next` token: the position of the last object of the page. */
export function encodeNext(p: Position): string {
  return Buffer.from(`${p.at}|${p.seq}`, 'utf8').toString('base64url');
}

export function decodeNext(token: string): Position {
  const decoded = Buffer.from(token, 'base64url').toString('utf8');
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|(\d{1,18})$/.exec(decoded);
  if (!m || Number.isNaN(new Date(m[1]!).getTime())) throw ValidationError.single('next', 'Not a "next" token of this server', 'invalid_next', 'query');
  return { at: m[1]!, seq: m[2]! };
}

export interface MatchFilters {
  /** False when the filters exclude every object this server holds (only STIX 2.1 indicators). */
  possible: boolean;
  stixIds?: string[];
  versions?: Date[];
}

const INDICATOR_ID = /^indicator--([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

function list(v: string | undefined): string[] | undefined {
  return v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * `match[type]`, `match[id]`, `match[version]`, `match[spec_version]` (comma-separated, OR
 * within a field, AND across fields). Only the latest version of each object is kept, so
 * `first`, `last` and `all` all mean it; timestamps select the versions whose `modified` is one.
 */
export function matchFilters(q: { 'match[type]'?: string | undefined; 'match[id]'?: string | undefined; 'match[version]'?: string | undefined; 'match[spec_version]'?: string | undefined }): MatchFilters {
  const types = list(q['match[type]']);
  const specs = list(q['match[spec_version]']);
  if ((types && !types.includes('indicator')) || (specs && !specs.includes('2.1'))) return { possible: false };
  const out: MatchFilters = { possible: true };
  const ids = list(q['match[id]']);
  if (ids) {
    out.stixIds = ids.flatMap((id) => INDICATOR_ID.exec(id)?.[1]?.toLowerCase() ?? []);
    if (out.stixIds.length === 0) return { possible: false };
  }
  const versions = list(q['match[version]']);
  if (versions && !versions.some((v) => v === 'first' || v === 'last' || v === 'all')) {
    out.versions = versions.map((v) => {
      const t = new Date(v);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(t.getTime())) throw ValidationError.single('match[version]', 'Expected first, last, all or STIX timestamps', 'invalid_version', 'query');
      return t;
    });
  }
  return out;
}
