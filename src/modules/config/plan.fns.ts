import { isDeepStrictEqual } from 'node:util';
import type { ChangeT, SecretField } from './config.schemas.js';
import { hasUrlSecrets, redactUrlSecrets } from '../../platform/outbound/url-secrets.js';

/**
 * The pure part of a plan: field diffs (secrets shown as "(secret)", never their values) and the
 * secret reference placeholders export writes.
 */
export const SECRET_MASK = '(secret)';

/** A value as JSON has it: undefined properties gone, undefined itself null. */
export function jsonValue(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

export function getPath(obj: Record<string, unknown>, path: readonly string[]): unknown {
  let v: unknown = obj;
  for (const k of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

export function setPath(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let o = obj;
  for (const k of path.slice(0, -1)) {
    if (!o[k] || typeof o[k] !== 'object') o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  if (value === undefined) delete o[path.at(-1)!];
  else o[path.at(-1)!] = value;
}

/** A copy of `spec` without the secret fields (they are compared apart). */
export function withoutSecrets(spec: Record<string, unknown>, secretPaths: readonly (readonly string[])[]): Record<string, unknown> {
  const copy = jsonValue(spec) as Record<string, unknown>;
  for (const p of secretPaths) setPath(copy, p, undefined);
  return copy;
}

export type { SecretField };

/** What a plan shows for a secret the change sets: never the value. */
export const SECRET_CHANGE = '(secret: will change)';
/** What a plan shows for a secret the apply generates (the document gives none). */
export const SECRET_GENERATED = '(secret: will be generated)';
/** What a plan shows for a URL the apply generates (a new webhook trigger's). */
export const URL_GENERATED = '(generated: a new URL, read it with GET /api/agents/{agentId}/trigger)';

/** What the kind's secret fields of one resource compare to (the stored values). */
export interface Compared {
  spec: Record<string, unknown>;
  secrets: Record<string, string | null>;
}

export interface SpecDiff {
  diff: ChangeT['diff'];
  /** Secret fields present on both sides but not compared (the caller lacks the kind's manage permission). */
  notCompared: string[];
}

const isUrlWithSecrets = (v: unknown): v is string => typeof v === 'string' && hasUrlSecrets(v);
const shownUrl = (v: unknown): unknown => (typeof v === 'string' ? redactUrlSecrets(v) : jsonValue(v));

/**
 * Field → {from, to} between what is stored and what the document says, top-level field by
 * field; secret fields apart, by their path ("token", "config.url"). A secret is never shown:
 * a stored one is "(secret)", a new one "(secret: will change)"; a URL is shown with its
 * credential redacted. Secret values are compared only when `compareSecrets` (the caller holds
 * the kind's manage permission): otherwise a guess would be confirmed or refuted by the plan,
 * so only what the caller's GET shows is compared (whether a secret is set, the URL redacted),
 * and the rest is listed as not compared.
 */
export function diffSpecs(current: Compared | null, desired: Record<string, unknown>, secretFields: readonly SecretField[], compareSecrets = true): SpecDiff {
  const diff: ChangeT['diff'] = {};
  const notCompared: string[] = [];
  const paths = secretFields.map((s) => s.path);
  const from = current ? withoutSecrets(current.spec, paths) : {};
  const to = withoutSecrets(desired, paths);
  for (const key of [...new Set([...Object.keys(from), ...Object.keys(to)])].sort()) {
    const a = jsonValue(from[key]);
    const b = jsonValue(to[key]);
    if (!isDeepStrictEqual(a, b)) diff[key] = { from: current ? a : null, to: b };
  }
  for (const field of secretFields) {
    const key = field.path.join('.');
    if (field.url) {
      const stored = current ? (jsonValue(getPath(current.spec, field.path)) as unknown) : null;
      const wanted = jsonValue(getPath(desired, field.path));
      const shownFrom = shownUrl(stored);
      const shownTo = shownUrl(wanted);
      // Without the manage permission, equal and different credentials must plan alike (no oracle).
      if (!isDeepStrictEqual(shownFrom, shownTo)) diff[key] = { from: current ? shownFrom : null, to: shownTo };
      else if (!compareSecrets) {
        if (isUrlWithSecrets(stored)) notCompared.push(key);
      } else if (stored !== wanted) diff[key] = { from: shownFrom, to: SECRET_CHANGE };
      continue;
    }
    const wanted = getPath(desired, field.path) as string | null | undefined;
    if (wanted === undefined && field.keepWhenOmitted) continue;
    const stored = current?.secrets[key] ?? null;
    const change = { from: stored === null ? null : SECRET_MASK, to: wanted == null ? null : SECRET_CHANGE };
    if ((stored === null) !== (wanted == null)) diff[key] = change;
    else if (stored === null) continue;
    else if (!compareSecrets) notCompared.push(key);
    else if (stored !== wanted) diff[key] = change;
  }
  return { diff, notCompared };
}

/** `${env:RAMPART_OUTPUTDESTINATION_SOC_SLACK_TOKEN}`: where export points a stored secret. */
export function secretPlaceholder(kind: string, name: string, path: readonly string[]): string {
  const part = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  return `\${env:RAMPART_${part(kind)}_${part(name)}_${path.map(part).join('_')}}`;
}

/** An issue's path in an owning module's write schema, in the document's field names (`outputDestinationIds.1` → `outputDestinations.1`). */
export function documentPath(apiPath: string, apiFields: Readonly<Record<string, string>> = {}): string {
  return apiPath.split('.').filter(Boolean).map((part) => apiFields[part] ?? part).join('.');
}
