import { isNode, LineCounter, parseAllDocuments, type Document } from 'yaml';
import { SECRET_FIELDS, type SecretField } from './config.schemas.js';
import { getPath, setPath } from './plan.fns.js';

/**
 * Configuration files as `rampart apply` reads them: YAML (JSON is YAML too), one or more
 * documents per file, each remembered with its file and positions so an issue the server reports
 * at `documents.<i>.spec.…` is shown as `file:line`. Secret references (`${env:NAME}`,
 * `${file:path}`) in secret fields are resolved here, where apply runs: their values never sit in a file.
 */
export interface ParsedFile {
  file: string;
  text: string;
}

interface Located {
  file: string;
  doc: Document.Parsed;
  lines: LineCounter;
}

export class ConfigFileError extends Error {}

export function parseConfigFiles(files: readonly ParsedFile[]) {
  const located: Located[] = [];
  const documents: unknown[] = [];
  for (const { file, text } of files) {
    const lines = new LineCounter();
    for (const doc of parseAllDocuments(text, { lineCounter: lines, prettyErrors: false })) {
      const error = doc.errors[0];
      if (error) throw new ConfigFileError(`${file}:${lines.linePos(error.pos[0]).line}: ${error.message.split('\n')[0]}`);
      // An empty document (a trailing `---`) is nothing to apply.
      if (doc.contents === null) continue;
      let value: unknown;
      try {
        value = doc.toJS();
      } catch (err) {
        // yaml refuses alias expansion past its limit (a "billion laughs" file) with a ReferenceError.
        const at = doc.contents.range ? lines.linePos(doc.contents.range[0]).line : 1;
        const reason = /alias/i.test((err as Error).message) ? 'too many alias expansions (*name) for one document; write the values out' : (err as Error).message.split('\n')[0];
        throw new ConfigFileError(`${file}:${at}: ${reason}`);
      }
      located.push({ file, doc, lines });
      documents.push(value);
    }
  }

  /** `file:line` of `documents.<i>.<path…>` (the deepest part of the path the file has). */
  function locate(issuePath: string): string | null {
    const [head, index, ...path] = issuePath.split('.');
    const at = head === 'documents' ? located[Number(index)] : undefined;
    if (!at) return null;
    const keys = path.map((k) => (/^\d+$/.test(k) ? Number(k) : k));
    for (let n = keys.length; n >= 0; n--) {
      const node = at.doc.getIn(keys.slice(0, n), true);
      if (isNode(node) && node.range) return `${at.file}:${at.lines.linePos(node.range[0]).line}`;
    }
    return at.file;
  }

  return { documents, locate };
}

const REFERENCE = /^\$\{(env|file):([^}]+)\}$/;

/** A secret field whose value came from a reference: the plan printed for it shows no value. */
export interface ResolvedReference {
  kind: string;
  name: string;
  /** The field's path under `spec`, dotted (`token`, `config.url`): as the plan's diff names it. */
  field: string;
}

/**
 * `${env:NAME}` and `${file:path}` replaced by that variable or the file's content (one trailing
 * newline dropped, as secret files usually end with one) — ONLY in the fields the kind's schema
 * declares secret (SECRET_FIELDS: tokens, signing secrets, API keys, credential-bearing URLs).
 * Anywhere else the same text is plain text, stored as written: a prompt or a description
 * cannot pull the operator's environment or files into a resource others can read. Where a file
 * may be read is `readFile`'s rule (the CLI allows only the directory of the files applied). A
 * missing variable or file is an error naming where it is referenced.
 */
export function resolveSecretReferences(
  documents: unknown[],
  sources: { env: NodeJS.ProcessEnv; readFile: (path: string) => string; where: (issuePath: string) => string | null },
): { documents: unknown[]; resolved: ResolvedReference[] } {
  const resolved: ResolvedReference[] = [];
  const resolveOne = (value: string, issuePath: string): string => {
    const m = REFERENCE.exec(value);
    if (!m) return value;
    const [, scheme, ref] = m as unknown as [string, 'env' | 'file', string];
    const where = sources.where(issuePath) ?? issuePath;
    if (scheme === 'env') {
      const v = sources.env[ref];
      if (v === undefined || v === '') throw new ConfigFileError(`${where}: environment variable ${ref} is not set (referenced as ${value})`);
      return v;
    }
    try {
      return sources.readFile(ref).replace(/\r?\n$/, '');
    } catch (err) {
      throw new ConfigFileError(`${where}: cannot read ${ref} (referenced as ${value}): ${(err as Error).message}`);
    }
  };
  const out = documents.map((doc, i) => {
    const d = doc as { kind?: unknown; metadata?: { name?: unknown }; spec?: unknown } | null;
    const fields = d && typeof d === 'object' && typeof d.kind === 'string' ? (SECRET_FIELDS as Record<string, readonly SecretField[] | undefined>)[d.kind] : undefined;
    if (!fields?.length || !d!.spec || typeof d!.spec !== 'object') return doc;
    const spec = structuredClone(d!.spec) as Record<string, unknown>;
    for (const f of fields) {
      const value = getPath(spec, f.path);
      if (typeof value !== 'string' || !REFERENCE.test(value)) continue;
      setPath(spec, f.path, resolveOne(value, ['documents', i, 'spec', ...f.path].join('.')));
      resolved.push({ kind: d!.kind as string, name: String(d!.metadata?.name ?? ''), field: f.path.join('.') });
    }
    return { ...d, spec };
  });
  return { documents: out, resolved };
}
