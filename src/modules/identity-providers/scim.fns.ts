/**
 * SCIM 2.0 (RFC 7643/7644) as Okta and Microsoft Entra ID send it, parsed into the few changes
 * Rampart keeps: a user's userName (email), name, externalId and `active`; a group's name,
 * externalId and members. Both providers bend the RFC: Entra capitalises `op` ("Replace") and
 * sends booleans as strings ("False"), Okta sends attributes inside `value` with no `path`.
 * Profile attributes Rampart does not keep (title, department, phone numbers, the enterprise
 * extension) are accepted and ignored; an operation on `active` or on members that cannot be
 * read is a 400, never skipped (a skipped deactivation would answer 200 and keep the person in).
 */
export const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const SCIM_LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export class ScimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: 'invalidFilter' | 'invalidValue' | 'invalidPath' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'noTarget',
  ) {
    super(message);
  }
}

/** `true`, `"True"`, `"true"`, `[{"value": "False"}]` → a boolean; anything else is a 400. */
export function scimBoolean(value: unknown): boolean {
  const v = Array.isArray(value) && value.length === 1 && typeof value[0] === 'object' && value[0] !== null ? (value[0] as { value?: unknown }).value : value;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw new ScimError(400, `active must be a boolean, got ${JSON.stringify(value)?.slice(0, 50)}`, 'invalidValue');
}

/** `userName eq "x"`, `externalId eq "x"`, `displayName eq "x"`: the filters both providers send. */
export function parseEqFilter(filter: string | undefined, attributes: readonly string[]): { attribute: string; value: string } | null {
  if (filter === undefined || filter.trim() === '') return null;
  const m = /^\s*([A-Za-z][\w.]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  const attribute = m ? attributes.find((a) => a.toLowerCase() === m[1]!.toLowerCase()) : undefined;
  if (!m || !attribute) throw new ScimError(400, `Unsupported filter; use ${attributes.map((a) => `${a} eq "…"`).join(' or ')}`, 'invalidFilter');
  return { attribute, value: m[2]!.replace(/\\(.)/g, '$1') };
}

export interface UserChange {
  /** The SCIM userName as the provider sends it (Entra: often the UPN), answered back as given. */
  userName?: string;
  /** The email Rampart signs the person in with: userName when it is one, else the primary email. */
  email?: string;
  name?: string;
  externalId?: string | null;
  active?: boolean;
}

interface ScimName {
  formatted?: unknown;
  givenName?: unknown;
  familyName?: unknown;
}

function nameOf(name: ScimName | undefined, displayName: unknown): string | undefined {
  if (typeof displayName === 'string' && displayName.trim()) return displayName.trim();
  if (!name || typeof name !== 'object') return undefined;
  if (typeof name.formatted === 'string' && name.formatted.trim()) return name.formatted.trim();
  const parts = [name.givenName, name.familyName].filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  return parts.length ? parts.join(' ') : undefined;
}

/** The primary (or work, or first) email of a SCIM user's `emails`. */
function emailOf(emails: unknown): string | undefined {
  if (!Array.isArray(emails)) return undefined;
  const list = emails.filter((e): e is { value: string; primary?: unknown; type?: unknown } => typeof e === 'object' && e !== null && typeof (e as { value?: unknown }).value === 'string');
  return (list.find((e) => e.primary === true || e.primary === 'True') ?? list.find((e) => e.type === 'work') ?? list[0])?.value;
}

/** A whole user (POST, PUT). userName is the email Rampart keeps (both providers send the UPN or email there). */
export function userFromResource(body: Record<string, unknown>): Required<Pick<UserChange, 'userName' | 'email' | 'active'>> & UserChange {
  const userName = typeof body.userName === 'string' ? body.userName.trim() : '';
  if (!userName || userName.length > 320) throw new ScimError(400, 'userName is required (at most 320 characters)', 'invalidValue');
  const email = userName.includes('@') ? userName : emailOf(body.emails);
  if (!email || !email.includes('@')) throw new ScimError(400, 'userName or a primary email must be an email address', 'invalidValue');
  return {
    userName,
    email: email.trim(),
    name: nameOf(body.name as ScimName | undefined, body.displayName) ?? email.split('@')[0]!,
    externalId: typeof body.externalId === 'string' ? body.externalId : null,
    active: body.active === undefined ? true : scimBoolean(body.active),
  };
}

interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

export function operationsOf(body: Record<string, unknown>): PatchOperation[] {
  const ops = body.Operations ?? body.operations;
  if (!Array.isArray(ops) || ops.length === 0 || ops.length > 1000) throw new ScimError(400, 'Operations must be a non-empty array (at most 1000)', 'invalidSyntax');
  return ops.map((raw) => {
    const o = raw as { op?: unknown; path?: unknown; value?: unknown };
    const op = typeof o.op === 'string' ? o.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw new ScimError(400, `Unsupported op ${JSON.stringify(o.op)}`, 'invalidSyntax');
    if (o.path !== undefined && typeof o.path !== 'string') throw new ScimError(400, 'path must be a string', 'invalidPath');
    return { op, ...(o.path !== undefined ? { path: o.path as string } : {}), value: o.value };
  });
}

/** A user PATCH → the changes, in order (a later operation wins). */
export function userPatch(body: Record<string, unknown>): UserChange {
  const change: UserChange = {};
  const name: ScimName = {};
  let nameTouched = false;
  const apply = (path: string, value: unknown, op: string) => {
    const p = path.toLowerCase();
    if (p === 'active') {
      if (op === 'remove') throw new ScimError(400, 'active cannot be removed; replace it with false', 'mutability');
      change.active = scimBoolean(value);
    } else if (p === 'username') {
      if (typeof value !== 'string' || !value.trim()) throw new ScimError(400, 'userName must be a non-empty string', 'invalidValue');
      change.userName = value.trim();
      if (value.includes('@')) change.email = value.trim();
    } else if (p === 'externalid') change.externalId = op === 'remove' ? null : typeof value === 'string' ? value : null;
    else if (p === 'displayname' && typeof value === 'string') change.name = value.trim();
    else if (p === 'name.formatted' || p === 'name.givenname' || p === 'name.familyname') {
      nameTouched = true;
      (name as Record<string, unknown>)[p === 'name.formatted' ? 'formatted' : p === 'name.givenname' ? 'givenName' : 'familyName'] = value;
    } else if (p === 'name' && typeof value === 'object' && value !== null) {
      nameTouched = true;
      Object.assign(name, value);
    } else if ((p === 'emails' || /^emails\[.*\]\.value$/.test(p)) && op !== 'remove') {
      const email = typeof value === 'string' ? value : emailOf(value);
      if (email?.includes('@')) change.email = email.trim();
    }
    // Anything else is a profile attribute Rampart does not keep.
  };
  for (const o of operationsOf(body)) {
    if (o.path) apply(o.path, o.value, o.op);
    else if (typeof o.value === 'object' && o.value !== null && !Array.isArray(o.value)) {
      for (const [k, v] of Object.entries(o.value)) apply(k, v, o.op);
    } else throw new ScimError(400, 'An operation without path needs an object value', 'invalidValue');
  }
  if (nameTouched) {
    const n = nameOf(name, undefined);
    if (n) change.name = n;
  }
  return change;
}

export type MemberChange = { kind: 'add' | 'remove'; ids: string[] } | { kind: 'replace'; ids: string[] } | { kind: 'rename'; displayName: string } | { kind: 'externalId'; externalId: string | null };

function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' && Array.isArray((value as { members?: unknown }).members) ? (value as { members: unknown[] }).members : null;
  if (!list) throw new ScimError(400, 'members must be an array of {"value": "<user id>"}', 'invalidValue');
  return list.map((m) => {
    const id = (m as { value?: unknown })?.value;
    if (typeof id !== 'string') throw new ScimError(400, 'members must be an array of {"value": "<user id>"}', 'invalidValue');
    return id;
  });
}

/** A group PATCH → its changes, in order. */
export function groupPatch(body: Record<string, unknown>): MemberChange[] {
  const changes: MemberChange[] = [];
  for (const o of operationsOf(body)) {
    const path = o.path?.trim();
    const filtered = path ? /^members\[\s*value\s+eq\s+"([^"]+)"\s*\]$/i.exec(path) : null;
    if (filtered) {
      if (o.op !== 'remove') throw new ScimError(400, 'Only remove takes a filtered members path', 'invalidPath');
      changes.push({ kind: 'remove', ids: [filtered[1]!] });
    } else if (path?.toLowerCase() === 'members') {
      if (o.op === 'remove' && o.value === undefined) changes.push({ kind: 'replace', ids: [] });
      else changes.push({ kind: o.op === 'replace' ? 'replace' : o.op, ids: memberIds(o.value) });
    } else if (path?.toLowerCase() === 'displayname') {
      if (typeof o.value !== 'string' || !o.value.trim()) throw new ScimError(400, 'displayName must be a non-empty string', 'invalidValue');
      changes.push({ kind: 'rename', displayName: o.value.trim() });
    } else if (path?.toLowerCase() === 'externalid') {
      changes.push({ kind: 'externalId', externalId: typeof o.value === 'string' ? o.value : null });
    } else if (!path && typeof o.value === 'object' && o.value !== null) {
      // Okta's rename: no path, {id, displayName} in the value (the read-only id is ignored).
      const v = o.value as { displayName?: unknown; externalId?: unknown; members?: unknown };
      if (typeof v.displayName === 'string' && v.displayName.trim()) changes.push({ kind: 'rename', displayName: v.displayName.trim() });
      if (typeof v.externalId === 'string') changes.push({ kind: 'externalId', externalId: v.externalId });
      if (v.members !== undefined) changes.push({ kind: o.op === 'add' ? 'add' : 'replace', ids: memberIds(v.members) });
    } else {
      throw new ScimError(400, `Unsupported group path ${JSON.stringify(o.path ?? null)}`, 'invalidPath');
    }
  }
  return changes;
}
