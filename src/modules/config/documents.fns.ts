import { isNode, LineCounter, parseAllDocuments, type Document } from 'yaml';

/**
 * Configuration files as `rampart apply` reads them: YAML (JSON is YAML too), one or more
 * documents per file, each remembered with its file and positions so an issue the server reports
 * at `documents.<i>.spec.…` is shown as `file:line`. Secret references (`${env:NAME}`,
 * `${file:/path}`) are resolved here, where apply runs: their values never sit in a file.
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
      located.push({ file, doc, lines });
      documents.push(doc.toJS());
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

/**
 * Every string that is exactly `${env:NAME}` or `${file:/path}` replaced by that variable or the
 * file's content (one trailing newline dropped, as secret files usually end with one). A missing
 * variable or file is an error naming where it is referenced.
 */
export function resolveSecretReferences(
  documents: unknown[],
  sources: { env: NodeJS.ProcessEnv; readFile: (path: string) => string; where: (issuePath: string) => string | null },
): unknown[] {
  const resolve = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      const m = REFERENCE.exec(value);
      if (!m) return value;
      const [, scheme, ref] = m as unknown as [string, 'env' | 'file', string];
      const where = sources.where(path) ?? path;
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
    }
    if (Array.isArray(value)) return value.map((v, i) => resolve(v, `${path}.${i}`));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, `${path}.${k}`)]));
    return value;
  };
  return documents.map((d, i) => resolve(d, `documents.${i}`));
}
