import type { z } from 'zod';
import type { Tx } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import type { Permission } from '../../../platform/auth/permissions.js';
import type { WriteOptions } from '../../../platform/managed.js';
import type { Kind } from '../config.schemas.js';

/**
 * One kind of document: how its spec is checked, what it references, what the organization has
 * of it now (in document form) and how a change is written — always through the owning module's
 * commands (its index.ts), never its tables.
 */
export interface Current {
  id: string;
  name: string;
  /** The stored resource in document form, references by name, secrets left out. */
  spec: Record<string, unknown>;
  /** Secret field path ("token", "provider.apiKey") → the stored value, or null when none. */
  secrets: Record<string, string | null>;
  managedBy: 'code' | null;
  managedSource: string | null;
  /** What a write needs besides the id (a trigger's agent). */
  owner?: string;
}

export interface Desired {
  name: string;
  /** The parsed spec, defaults applied. */
  spec: Record<string, unknown>;
  /** Its index in the request's documents (where issues point). */
  index: number;
}

export interface Reference {
  /** Under the document's `spec`. */
  path: (string | number)[];
  kind: Kind;
  name: string;
}

/** Names → ids of every kind, as stored plus what this apply created so far. */
export type IdsByName = Map<Kind, Map<string, string>>;
/** Ids → names of every kind as stored (document form of references). */
export type NamesById = Map<Kind, Map<string, string>>;

export interface ApplyStep {
  ctx: RequestContext;
  tx: Tx;
  opts: WriteOptions;
  ids: IdsByName;
}

export interface KindHandler {
  kind: Kind;
  /** What each action needs, as the same change made by hand through the API. */
  permissions: Record<'read' | 'create' | 'update' | 'remove', Permission[]>;
  /** The schema of `spec` in the published JSON Schema. */
  schema: z.ZodType;
  /** Checks and normalizes a document's spec (issues' paths are under `spec`). */
  parse(name: string, spec: unknown): z.ZodSafeParseResult<Record<string, unknown>>;
  /** References to other documents, from the raw spec as written. */
  references(spec: Record<string, unknown>): Reference[];
  /** The organization's resources of this kind now; `names` holds the kinds before it in KINDS order. */
  current(ctx: RequestContext, names: NamesById): Promise<Current[]>;
  create(step: ApplyStep, desired: Desired): Promise<string>;
  update(step: ApplyStep, current: Current, desired: Desired): Promise<void>;
  remove(step: ApplyStep, current: Current): Promise<void>;
  /**
   * API field → document field, where the owning module's write schema names a field otherwise
   * (`outputDestinationIds` → `outputDestinations`): an issue a write reports is shown at the
   * document's field (and so at its file:line).
   */
  apiFields?: Readonly<Record<string, string>>;
  /**
   * What applying the document would generate rather than take from it (a webhook trigger's
   * secret and URL), as diff entries: a plan says so instead of looking like "no changes".
   */
  generated?(current: Current | null, desired: Desired): Record<string, { from: unknown; to: unknown }>;
}

/** A reference to a resource this apply could not create (its own issue is already reported): the change is skipped. */
export class UnresolvedReference extends Error {}

/** The id of a referenced resource: stored, or created earlier in this apply (a miss means that create failed, or the reference is unknown: both reported). */
export function idOf(ids: IdsByName, kind: Kind, name: string): string {
  const id = ids.get(kind)?.get(name);
  if (!id) throw new UnresolvedReference(`config apply: no ${kind} "${name}"`);
  return id;
}
