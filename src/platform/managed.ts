import { z } from 'zod';
import type { Tx } from './db/database.js';
import { ConflictError } from './http/errors.js';

/**
 * Resources written by config apply (issue 30, the config module) are "managed by code": their
 * truth is a file in a repository. Each owning module stores `managedBy`/`managedSource` and
 * refuses a hand edit without `force` (409 naming the document), so a change made by hand does
 * not silently diverge from the repository (the next apply would overwrite it anyway).
 */
export interface ManagedColumns {
  managedBy: 'code' | null;
  managedSource: string | null;
}

/** How a command was asked to write: by hand (the API), or by config apply inside its transaction. */
export interface WriteOptions {
  /** Run inside this transaction (config apply: every change of a plan in one). */
  tx?: Tx;
  /** Set by config apply: record the resource as managed by code, from this source (a commit id, or null); null: no longer managed. */
  managed?: { source: string | null } | null;
  /** A hand edit of a code-managed resource anyway (`?force=true`). */
  force?: boolean;
}

/** The columns a write records: apply marks the resource; a hand edit keeps what it was. */
export function managedColumns(opts: WriteOptions | undefined): Partial<ManagedColumns> {
  if (opts?.managed === null) return { managedBy: null, managedSource: null };
  return opts?.managed ? { managedBy: 'code', managedSource: opts.managed.source } : {};
}

/** 409 when a code-managed resource is edited or deleted by hand without `force`. */
export function assertEditable(row: ManagedColumns, kind: string, name: string, opts: WriteOptions | undefined, advice?: string): void {
  if (row.managedBy !== 'code' || opts?.managed || opts?.force) return;
  const source = row.managedSource ? ` from source ${row.managedSource}` : '';
  throw new ConflictError(
    `${kind} "${name}" is managed by code (document ${kind}/${name}${source}): ${advice ?? 'change its file and apply it, or pass force=true to edit it here anyway'}`,
  );
}

/** `?force=true` on the PUT/PATCH/DELETE of a resource that can be managed by code. */
export const ForceQuery = z.object({
  force: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .describe('Edit or delete a resource managed by code (config apply) anyway; without it that is 409'),
});

/** The fields every code-manageable resource shows. */
export const managedFields = {
  managedBy: z.enum(['code']).nullable().describe('`code`: written by config apply (agents as code); edits through the API need `force=true`'),
  managedSource: z.string().nullable().describe('The source of the last apply that changed it (e.g. a commit id), when given'),
};
