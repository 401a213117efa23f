import { isDeepStrictEqual } from 'node:util';
import type { ChangeT } from './config.schemas.js';

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

export interface SecretField {
  path: readonly string[];
  /** Omitted from a document: keep what is stored (a generated trigger secret) instead of clearing it. */
  keepWhenOmitted?: boolean;
}

/**
 * Field → {from, to} between what is stored and what the document says, top-level field by
 * field; secret fields compare their values and show only "(secret)".
 */
export function diffSpecs(
  current: { spec: Record<string, unknown>; secrets: Record<string, string | null> } | null,
  desired: Record<string, unknown>,
  secretFields: readonly SecretField[],
): ChangeT['diff'] {
  const diff: ChangeT['diff'] = {};
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
    const wanted = getPath(desired, field.path) as string | null | undefined;
    if (wanted === undefined && field.keepWhenOmitted) continue;
    const stored = current?.secrets[key] ?? null;
    if ((wanted ?? null) !== stored) diff[key] = { from: stored === null ? null : SECRET_MASK, to: wanted == null ? null : SECRET_MASK };
  }
  return diff;
}

/** `${env:RAMPART_OUTPUTDESTINATION_SOC_SLACK_TOKEN}`: where export points a stored secret. */
export function secretPlaceholder(kind: string, name: string, path: readonly string[]): string {
  const part = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  return `\${env:RAMPART_${part(kind)}_${part(name)}_${path.map(part).join('_')}}`;
}
