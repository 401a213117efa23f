import fs from 'node:fs';
import path from 'node:path';
import { SHARED_DIR } from './shared-dir.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { default as addFormatsModule } from 'ajv-formats';

/** The OASIS STIX 2.1 JSON schemas (../shared/interop/stix2-json-schemas), or null when absent. */
export const STIX_SCHEMAS_DIR = path.join(SHARED_DIR, 'interop/stix2-json-schemas/schemas');

export interface StixValidator {
  /** Problems of one object against the schema of its type (empty when valid). */
  object(o: Record<string, unknown>): string[];
  bundle(b: unknown): string[];
}

export function loadStixSchemas(): StixValidator | null {
  if (!fs.existsSync(STIX_SCHEMAS_DIR)) return null;
  // The schemas' patterns escape '-' outside classes, which the u flag refuses.
  const ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp: false });
  // ajv-formats is CommonJS: its default export is the plugin function or a namespace holding it.
  const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;
  addFormats(ajv);
  // ajv-formats has no idn-hostname (it needs an IDNA library); domain-name objects are not served.
  ajv.addFormat('idn-hostname', true);
  const byTitle = new Map<string, string>();
  for (const dir of fs.readdirSync(STIX_SCHEMAS_DIR)) {
    for (const file of fs.readdirSync(path.join(STIX_SCHEMAS_DIR, dir)).filter((f) => f.endsWith('.json'))) {
      const schema = JSON.parse(fs.readFileSync(path.join(STIX_SCHEMAS_DIR, dir, file), 'utf8')) as { $id: string };
      ajv.addSchema(schema);
      byTitle.set(`${dir}/${file.replace(/\.json$/, '')}`, schema.$id);
    }
  }
  const cache = new Map<string, ValidateFunction>();
  const validator = (key: string): ValidateFunction => {
    let v = cache.get(key);
    if (!v) {
      const id = byTitle.get(key);
      if (!id) throw new Error(`no STIX schema ${key}`);
      v = ajv.getSchema(id) as ValidateFunction;
      cache.set(key, v);
    }
    return v;
  };
  const check = (v: ValidateFunction, o: unknown) => (v(o) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
  return {
    object(o) {
      const type = String(o.type);
      const key = ['sdos', 'sros', 'observables', 'common'].map((d) => `${d}/${type}`).find((k) => byTitle.has(k));
      if (!key) return [`no schema for type ${type}`];
      return check(validator(key), o).map((p) => `${String(o.id)}: ${p}`);
    },
    bundle(b) {
      return check(validator('common/bundle'), b);
    },
  };
}
