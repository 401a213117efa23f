import { sql } from 'kysely';
import { stringify } from 'yaml';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { writeAudit } from '../../platform/audit.js';
import { missingPermissions, type Permission } from '../../platform/auth/permissions.js';
import { AppError, ForbiddenError, ValidationError, type ValidationIssue } from '../../platform/http/errors.js';
import { API_VERSION, ConfigDocument, KINDS, type ChangeT, type Kind, type NotComparedT, type PlanBodyT, outboundUrlPaths, SECRET_FIELDS } from './config.schemas.js';
import { literalAddressRefusal } from '../../platform/outbound/index.js';
import { diffSpecs, documentPath, getPath, secretPlaceholder, setPath, withoutSecrets } from './plan.fns.js';
import { hasUrlSecrets } from '../../platform/outbound/url-secrets.js';
import { configJsonSchema } from './json-schema.js';
import { UnresolvedReference, type ApplyStep, type Current, type Desired, type IdsByName, type KindHandler, type NamesById } from './kinds/kind.js';

/** A plan's writes, undone: thrown out of its transaction with the plan's answer. */
class RolledBack extends Error {
  constructor(readonly result: { changes: ChangeT[]; notCompared: NotComparedT[] }) {
    super('plan rolled back');
  }
}

/** Issues in document order (then as found), so a reader goes through the files once. */
function sortedIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const indexOf = (i: ValidationIssue) => Number(/^documents\.(\d+)/.exec(i.path)?.[1] ?? Number.MAX_SAFE_INTEGER);
  return issues.map((i, n) => ({ i, n })).sort((a, b) => indexOf(a.i) - indexOf(b.i) || a.n - b.n).map((x) => x.i);
}

/** A change with what applying it needs. */
interface PlannedChange extends ChangeT {
  handler: KindHandler;
  current: Current | null;
  desired: Desired | null;
}

const ACTION_PERMISSION = { create: 'create', update: 'update', delete: 'remove' } as const;

/**
 * Plan: check every document (schema, duplicates, references by name against the documents and
 * the organization), compare with what is stored, answer the changes. Apply: the same plan, then
 * every change through its owning module's commands in ONE transaction (all or nothing), with the
 * permissions each change would need by hand. Resources it writes are marked managed by code.
 */
export function createConfigService(deps: { db: Database; kinds: KindHandler[]; allowPrivateNetworks: boolean }) {
  const { db } = deps;
  const handlers = new Map(deps.kinds.map((k) => [k.kind, k]));
  const ordered = KINDS.map((k) => handlers.get(k)).filter((h): h is KindHandler => !!h);

  function requirePermissions(ctx: RequestContext, required: Iterable<Permission>): void {
    const missing = missingPermissions(ctx.actor.permissions, [...new Set(required)]);
    if (missing.length) throw new ForbiddenError(missing);
  }

  /** Each document checked (envelope, spec, duplicates, URLs), by kind, with the references to resolve, and every problem found (the documents that have one are left out). */
  function checkDocuments(documents: unknown[]) {
    const issues: ValidationIssue[] = [];
    const byKind = new Map<Kind, Desired[]>();
    const seen = new Map<string, number>();
    const refs: Array<{ index: number; path: (string | number)[]; kind: Kind; name: string }> = [];
    const issue = (path: (string | number)[], message: string, code: string) => issues.push({ path: path.join('.'), message, code, location: 'body' });
    documents.forEach((raw, index) => {
      const envelope = ConfigDocument.safeParse(raw);
      if (!envelope.success) {
        for (const i of envelope.error.issues) issue(['documents', index, ...i.path.map(String)], i.message, i.code);
        return;
      }
      const { kind, metadata, spec } = envelope.data;
      const handler = handlers.get(kind)!;
      const key = `${kind}/${metadata.name}`;
      if (seen.has(key)) return issue(['documents', index, 'metadata', 'name'], `${key} is also document ${seen.get(key)}`, 'duplicate');
      seen.set(key, index);
      const parsed = handler.parse(metadata.name, spec);
      if (!parsed.success) {
        for (const i of parsed.error.issues) issue(['documents', index, 'spec', ...i.path.map(String)], i.message, i.code);
        return;
      }
      // URLs Rampart will call: refused at plan time when they name a forbidden address, as the API's routes do.
      for (const p of outboundUrlPaths(kind)) {
        const value = getPath(parsed.data, p);
        const why = typeof value === 'string' ? literalAddressRefusal(value, deps.allowPrivateNetworks) : null;
        if (why) issue(['documents', index, 'spec', ...p], `points at a ${why} address, which outbound calls refuse${deps.allowPrivateNetworks ? '' : ' (RAMPART_ALLOW_PRIVATE_NETWORKS is off)'}`, 'forbidden_address');
      }
      byKind.set(kind, [...(byKind.get(kind) ?? []), { name: metadata.name, spec: parsed.data, index }]);
      for (const ref of handler.references(spec)) refs.push({ index, ...ref });
    });
    return { byKind, refs, issues };
  }

  /**
   * The changes, the names → ids of what is stored (apply adds what it creates), and every issue
   * the documents have (schema, references, names): the changes are those of the sound documents,
   * so the writes can still be tried and their refusals reported in the same answer.
   */
  async function computePlan(ctx: RequestContext, body: PlanBodyT): Promise<{ changes: PlannedChange[]; notCompared: NotComparedT[]; ids: IdsByName; issues: ValidationIssue[] }> {
    const { byKind, refs, issues } = checkDocuments(body.documents);
    const issue = (path: (string | number)[], message: string, code: string) => issues.push({ path: path.join('.'), message, code, location: 'body' });

    // Reading: the kinds the documents describe, and every kind when pruning.
    const involved = ordered.filter((h) => body.prune || byKind.has(h.kind));
    requirePermissions(ctx, involved.flatMap((h) => h.permissions.read));

    const currents = new Map<Kind, Current[]>();
    const names: NamesById = new Map();
    for (const h of ordered) {
      const list = await h.current(ctx, names);
      // Compared in the form a document takes once parsed (defaults applied), as the desired side is.
      currents.set(h.kind, list.map((c) => {
        const parsed = h.parse(c.name, c.spec);
        return parsed.success ? { ...c, spec: parsed.data } : c;
      }));
      names.set(h.kind, new Map(list.map((c) => [c.id, c.name])));
    }

    for (const r of refs) {
      const known = byKind.get(r.kind)?.some((d) => d.name === r.name) || currents.get(r.kind)?.some((c) => c.name === r.name);
      if (!known) issue(['documents', r.index, 'spec', ...r.path], `no ${r.kind} named "${r.name}" in the documents or the organization`, 'unknown_reference');
    }
    for (const h of involved) {
      const list = currents.get(h.kind) ?? [];
      for (const d of byKind.get(h.kind) ?? []) {
        if (list.filter((c) => c.name === d.name).length > 1) {
          issue(['documents', d.index, 'metadata', 'name'], `the organization has several ${h.kind} resources named "${d.name}": rename all but one through the API first`, 'ambiguous_name');
        }
      }
    }
    issues.push(...providerConflicts(byKind.get('Model') ?? []));

    const writes: PlannedChange[] = [];
    const deletes: PlannedChange[] = [];
    const notCompared: NotComparedT[] = [];
    for (const h of involved) {
      const list = currents.get(h.kind) ?? [];
      const desiredList = byKind.get(h.kind) ?? [];
      // Secret values are compared only for who could read or change them anyway (no guessing oracle).
      const manage = h.permissions.update;
      const compareSecrets = missingPermissions(ctx.actor.permissions, manage).length === 0;
      for (const d of desiredList) {
        const current = list.find((c) => c.name === d.name) ?? null;
        const planned = diffSpecs(current, d.spec, SECRET_FIELDS[h.kind], compareSecrets);
        const diff = { ...planned.diff, ...h.generated?.(current, d) };
        if (planned.notCompared.length) notCompared.push({ kind: h.kind, name: d.name, fields: planned.notCompared, permission: manage.join(', ') });
        // A resource made by hand that a document now describes is adopted: managed by code from now on.
        if (current && current.managedBy !== 'code') diff.managedBy = { from: current.managedBy, to: 'code' };
        if (current && Object.keys(diff).length === 0) continue;
        writes.push({ action: current ? 'update' : 'create', kind: h.kind, name: d.name, diff, handler: h, current, desired: d });
      }
      if (!body.prune) continue;
      const named = new Set(desiredList.map((d) => d.name));
      for (const c of list) {
        if (c.managedBy !== 'code' || named.has(c.name)) continue;
        deletes.push({ action: 'delete', kind: h.kind, name: c.name, diff: diffSpecs(c, {}, SECRET_FIELDS[h.kind].map((s) => ({ ...s, keepWhenOmitted: false }))).diff, handler: h, current: c, desired: null });
      }
    }
    // Creates and updates in dependency order, then deletions in reverse (a trigger before its agent, an agent before its destination).
    const ids: IdsByName = new Map([...currents].map(([kind, list]) => [kind, new Map(list.map((c) => [c.name, c.id]))]));
    return { changes: [...writes, ...deletes.reverse()], notCompared, ids, issues };
  }

  /**
   * Every change through its owning module's commands, each in a savepoint: a refusal (a
   * technique the ATT&CK catalog does not know, a routing loop, a resource still in use) is
   * collected as an issue at the document's field and the next change is tried, so one answer
   * names every problem. A change that needs a resource whose create was refused is skipped
   * (that refusal is the issue). The plan runs this too and rolls it back: what the apply would
   * refuse, the plan refuses.
   */
  async function runChanges(step: ApplyStep, changes: PlannedChange[]): Promise<ValidationIssue[]> {
    const issues: ValidationIssue[] = [];
    let n = 0;
    for (const c of changes) {
      const savepoint = sql.raw(`config_change_${n++}`);
      await sql`SAVEPOINT ${savepoint}`.execute(step.tx);
      try {
        if (c.action === 'create') step.ids.get(c.kind)!.set(c.name, await c.handler.create(step, c.desired!));
        else if (c.action === 'update') await c.handler.update(step, c.current!, c.desired!);
        else await c.handler.remove(step, c.current!);
        await sql`RELEASE SAVEPOINT ${savepoint}`.execute(step.tx);
      } catch (err) {
        if (!(err instanceof UnresolvedReference) && !(err instanceof AppError && err.statusCode !== 403 && err.statusCode < 500)) throw err;
        await sql`ROLLBACK TO SAVEPOINT ${savepoint}`.execute(step.tx);
        if (err instanceof AppError) issues.push(...refusalIssues(c, err));
      }
    }
    return issues;
  }

  /** A module's refusal of one change, at its document's fields (a deletion has no document: named by kind and name). */
  function refusalIssues(c: PlannedChange, err: AppError): ValidationIssue[] {
    const at = c.desired ? `documents.${c.desired.index}` : `prune.${c.kind}.${c.name}`;
    const prefix = c.desired ? '' : `${c.kind}/${c.name} cannot be deleted: `;
    if (err instanceof ValidationError) {
      return err.issues.map((i) => ({ ...i, path: [at, 'spec', documentPath(i.path, c.handler.apiFields)].filter(Boolean).join('.'), message: `${prefix}${i.message}`, location: 'body' }));
    }
    return [{ path: c.desired ? `${at}.metadata.name` : at, message: `${prefix}${err.message}`, code: err.statusCode === 409 ? 'conflict' : 'refused', location: 'body' }];
  }

  /** Plan and apply are one procedure: apply commits it, a plan rolls it back. */
  async function attempt(ctx: RequestContext, body: PlanBodyT, commit: boolean): Promise<{ changes: ChangeT[]; notCompared: NotComparedT[] }> {
    try {
      return await withTransaction(db, async (tx) => {
        // One apply at a time per organization: the plan is computed after the previous one committed.
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`config-apply:${ctx.actor.organizationId}`}, 0))`.execute(tx);
        const { changes, notCompared, ids, issues } = await computePlan(ctx, body);
        // Broken documents are a 400 before any permission is asked for; the writes of the sound ones are still tried, to report everything at once.
        if (commit && issues.length === 0) requirePermissions(ctx, changes.flatMap((c) => c.handler.permissions[ACTION_PERMISSION[c.action]]));
        const step: ApplyStep = { ctx, tx, opts: { tx, managed: { source: body.source ?? null } }, ids };
        issues.push(...(await runChanges(step, changes)));
        if (issues.length) throw new ValidationError(sortedIssues(issues));
        const result = { changes: changes.map(publicChange), notCompared };
        if (!commit) throw new RolledBack(result);
        if (changes.length) {
          await writeAudit(tx, ctx, {
            action: 'config.apply',
            resourceType: 'config',
            resourceId: null,
            metadata: { source: body.source ?? null, prune: body.prune, changes: changes.map((c) => `${c.action} ${c.kind}/${c.name}`).slice(0, 200) },
          });
        }
        return result;
      });
    } catch (err) {
      if (err instanceof RolledBack) return err.result;
      throw err;
    }
  }

  /** Model documents naming one provider must describe it alike. */
  function providerConflicts(models: Desired[]): ValidationIssue[] {
    const first = new Map<string, Desired>();
    const issues: ValidationIssue[] = [];
    for (const d of models) {
      const provider = d.spec.provider as Record<string, unknown>;
      const name = String(provider.name);
      const other = first.get(name);
      if (!other) first.set(name, d);
      else if (JSON.stringify(provider) !== JSON.stringify(other.spec.provider)) {
        issues.push({ path: `documents.${d.index}.spec.provider`, message: `describes provider "${name}" differently from Model/${other.name}`, code: 'conflict', location: 'body' });
      }
    }
    return issues;
  }

  let jsonSchema: Record<string, unknown> | null = null;
  const publicChange = ({ action, kind, name, diff }: PlannedChange): ChangeT => ({ action, kind, name, diff });

  return {
    /** The JSON Schema of the documents (built once). */
    jsonSchema: () => (jsonSchema ??= configJsonSchema(ordered)),

    /** What applying would change, or a 400 naming everything the apply would refuse: the apply's own writes, rolled back. */
    plan: (ctx: RequestContext, body: PlanBodyT) => attempt(ctx, body, false),

    apply: (ctx: RequestContext, body: PlanBodyT) => attempt(ctx, body, true),

    /**
     * The organization's configuration as YAML documents. Every secret field becomes a `${env:…}`
     * reference, for every caller: stored secrets, and URLs that carry a credential. So an export
     * never carries a secret, and every other field is what the resource's GET shows.
     */
    async export(ctx: RequestContext): Promise<string> {
      requirePermissions(ctx, ordered.flatMap((h) => h.permissions.read));
      const names: NamesById = new Map();
      const docs: string[] = [];
      for (const h of ordered) {
        const list = await h.current(ctx, names);
        names.set(h.kind, new Map(list.map((c) => [c.id, c.name])));
        for (const c of [...list].sort((a, b) => a.name.localeCompare(b.name))) {
          const spec = withoutSecrets(c.spec, SECRET_FIELDS[h.kind].map((s) => s.path));
          for (const s of SECRET_FIELDS[h.kind]) {
            const stored = s.url ? getPath(c.spec, s.path) : c.secrets[s.path.join('.')];
            if (s.url) setPath(spec, s.path, typeof stored === 'string' && hasUrlSecrets(stored) ? secretPlaceholder(h.kind, c.name, s.path) : stored);
            else if (stored != null) setPath(spec, s.path, secretPlaceholder(h.kind, c.name, s.path));
          }
          docs.push(stringify({ apiVersion: API_VERSION, kind: h.kind, metadata: { name: c.name }, spec }, { lineWidth: 0 }));
        }
      }
      return docs.join('---\n');
    },
  };
}

export type ConfigService = ReturnType<typeof createConfigService>;
