import type { z } from 'zod';
import { CRITICALITIES, parseCpeName, parsePurl, upstreamVersion, type AssetInput, type Criticality, type SoftwareInput } from './inventory.fns.js';
import { AssetFields, MAX_SOFTWARE_PER_ASSET, Software } from './hunt.schemas.js';

/**
 * The inventory formats teams already have, turned into assets: a plain CSV, a CycloneDX JSON
 * SBOM and osquery results (`programs`, `deb_packages`, `rpm_packages`). Pure: the service
 * writes what these return. Each error names the row (1-based; CSV rows count the header).
 *
 * Every row is held to the rules of `POST /api/assets` (the same schemas) before it is
 * returned, and fields of the wrong JSON type are row errors: an import never writes what the
 * API would refuse, and never fails on a malformed row.
 */
export interface ImportError {
  row: number;
  message: string;
}

export interface Parsed {
  assets: AssetInput[];
  errors: ImportError[];
}

/** The content is not the format at all (nothing is imported): the service answers 400 naming `path`. */
export class NotTheFormat extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** What one import may create or replace; beyond it the service answers 413 (docs/security.md). */
export const IMPORT_LIMITS = { assets: 5_000, softwarePerAsset: MAX_SOFTWARE_PER_ASSET, software: 100_000 } as const;

/** Why `parsed` is more than one import may write, or null. */
export function overLimit(parsed: Parsed): string | null {
  if (parsed.assets.length > IMPORT_LIMITS.assets) return `The import has ${parsed.assets.length} assets; one import may create or replace at most ${IMPORT_LIMITS.assets} (split it)`;
  const big = parsed.assets.find((a) => a.software.length > IMPORT_LIMITS.softwarePerAsset);
  if (big) return `The asset ${JSON.stringify(big.identifier)} has ${big.software.length} software entries; at most ${IMPORT_LIMITS.softwarePerAsset} per asset`;
  const total = parsed.assets.reduce((n, a) => n + a.software.length, 0);
  if (total > IMPORT_LIMITS.software) return `The import has ${total} software entries; one import may hold at most ${IMPORT_LIMITS.software} (split it)`;
  return null;
}

/** The first problem of `value` under `schema` ("product: Too big: …"), or null when it passes. */
function problem(schema: z.ZodType, value: unknown): string | null {
  const r = schema.safeParse(value);
  if (r.success) return null;
  const issue = r.error.issues[0]!;
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/** The first of `fields` of `obj` present with another type than a string, as a message. */
function notStrings(obj: Record<string, unknown>, fields: readonly string[]): string | null {
  const bad = fields.find((f) => obj[f] !== undefined && obj[f] !== null && typeof obj[f] !== 'string');
  return bad ? `${bad} must be a string, got ${Array.isArray(obj[bad]) ? 'array' : typeof obj[bad]}` : null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The asset identifier a document names, held to the asset rules (400 naming where it came from). */
function documentIdentifier(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new NotTheFormat(path, `${path} must be a string`);
  const bad = problem(AssetFields.shape.identifier, value);
  if (bad) throw new NotTheFormat(path, `${path}: ${bad}`);
  return value;
}

const CSV_COLUMNS = ['identifier', 'kind', 'platform', 'internetfacing', 'vendor', 'product', 'version'];

/** RFC 4180 fields: quotes, doubled quotes, commas and newlines inside quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) row.push(field), rows.push(row);
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

function bool(value: string): boolean | null {
  const v = value.trim().toLowerCase();
  if (['true', 'yes', '1', 'y'].includes(v)) return true;
  if (['false', 'no', '0', 'n', ''].includes(v)) return false;
  return null;
}

/** `identifier,kind,platform,internetFacing,vendor,product,version[,criticality]`; one row per software, rows of one identifier make one asset. */
export function parseInventoryCsv(text: string): Parsed {
  const rows = parseCsv(text);
  const errors: ImportError[] = [];
  if (rows.length === 0) throw new NotTheFormat('content', 'The CSV is empty; expected the header identifier,kind,platform,internetFacing,vendor,product,version');
  const header = rows[0]!.map((h) => h.trim().toLowerCase());
  const missing = CSV_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length) throw new NotTheFormat('content', `Missing column(s): ${missing.join(', ')}`);
  const col = (r: string[], name: string) => (r[header.indexOf(name)] ?? '').trim();
  const byId = new Map<string, AssetInput>();
  rows.slice(1).forEach((r, i) => {
    const rowNo = i + 2;
    const identifier = col(r, 'identifier');
    if (!identifier) return void errors.push({ row: rowNo, message: 'identifier is empty' });
    const internetFacing = bool(col(r, 'internetfacing'));
    if (internetFacing === null) return void errors.push({ row: rowNo, message: `internetFacing must be true or false, got ${JSON.stringify(col(r, 'internetfacing').slice(0, 50))}` });
    const criticalityRaw = header.includes('criticality') ? col(r, 'criticality').toLowerCase() : '';
    if (criticalityRaw && !(CRITICALITIES as readonly string[]).includes(criticalityRaw)) {
      return void errors.push({ row: rowNo, message: `criticality must be one of ${CRITICALITIES.join(', ')}` });
    }
    const fields = { identifier, kind: col(r, 'kind') || 'other', platform: col(r, 'platform') || null };
    const product = col(r, 'product');
    const software: SoftwareInput | null = product ? { vendor: col(r, 'vendor'), product, version: col(r, 'version') || null } : null;
    const bad = problem(AssetFields, fields) ?? (software && problem(Software, software));
    if (bad) return void errors.push({ row: rowNo, message: bad });
    const asset = byId.get(identifier) ?? { ...fields, internetFacing, software: [] };
    if (internetFacing) asset.internetFacing = true;
    if (criticalityRaw) asset.criticality = criticalityRaw as Criticality;
    byId.set(identifier, asset);
    if (software) asset.software.push(software);
  });
  return { assets: [...byId.values()], errors };
}

const CDX_STRINGS = ['type', 'group', 'name', 'version', 'cpe', 'purl', 'publisher'] as const;

/** One CycloneDX component as a software entry, or why it cannot be one. */
function cdxSoftware(c: unknown): SoftwareInput | string {
  if (!isObject(c)) return 'component is not an object';
  const wrong = notStrings(c, CDX_STRINGS);
  if (wrong) return wrong;
  if (c.supplier !== undefined && c.supplier !== null && !(isObject(c.supplier) && (c.supplier.name === undefined || typeof c.supplier.name === 'string'))) return 'supplier.name must be a string';
  if (c.components !== undefined && c.components !== null && !Array.isArray(c.components)) return 'components must be an array';
  const purl = str(c.purl);
  const cpe = str(c.cpe);
  const fromPurl = purl ? parsePurl(purl) : null;
  const fromCpe = cpe ? parseCpeName(cpe) : null;
  const product = str(c.name) ?? fromPurl?.product ?? fromCpe?.product;
  if (!product) return 'component has no name, purl or cpe';
  const software: SoftwareInput = {
    vendor: fromCpe?.vendor ?? str(c.publisher) ?? (isObject(c.supplier) ? str(c.supplier.name) : undefined) ?? str(c.group) ?? fromPurl?.vendor ?? '',
    product,
    version: str(c.version) ?? fromPurl?.version ?? fromCpe?.version ?? null,
    cpe: cpe ?? null,
    purl: purl ?? null,
  };
  return problem(Software, software) ?? software;
}

/** A CycloneDX JSON BOM (1.2–1.6): every component, nested ones included, becomes a software entry of one asset. */
export function parseCycloneDx(bom: unknown, assetIdentifier: string | undefined): Parsed {
  if (!isObject(bom) || bom.bomFormat !== 'CycloneDX') throw new NotTheFormat('content.bomFormat', 'content is not a CycloneDX JSON document (bomFormat must be "CycloneDX")');
  if (bom.components !== undefined && bom.components !== null && !Array.isArray(bom.components)) throw new NotTheFormat('content.components', 'content.components must be an array of components');
  const meta = isObject(bom.metadata) && isObject(bom.metadata.component) ? bom.metadata.component : undefined;
  const identifier = assetIdentifier ?? documentIdentifier(meta?.name, 'content.metadata.component.name');
  if (!identifier) throw new NotTheFormat('assetIdentifier', 'assetIdentifier is required when the SBOM has no metadata.component.name');
  const errors: ImportError[] = [];
  const software: SoftwareInput[] = [];
  let index = 0;
  // Depth is bounded by the edge's JSON nesting limit (128 levels).
  const walk = (list: unknown[]) => {
    for (const c of list) {
      index++;
      const read = cdxSoftware(c);
      if (typeof read === 'string') {
        errors.push({ row: index, message: read });
        continue;
      }
      software.push(read);
      if (Array.isArray((c as { components?: unknown }).components)) walk((c as { components: unknown[] }).components);
    }
  };
  walk((bom.components as unknown[] | undefined) ?? []);
  const kind = meta?.type === 'container' ? 'container' : meta?.type === 'device' ? 'device' : meta?.type === 'application' ? 'application' : 'other';
  return { assets: [{ identifier, kind, software }], errors };
}

const OSQUERY_STRINGS = ['name', 'version', 'publisher', 'vendor'] as const;

/**
 * osquery `--json` results (an array of rows, or a scheduled-query log line with `snapshot`
 * or `diffResults.added`) of `programs` (Windows), `deb_packages` or `rpm_packages`.
 */
export function parseOsquery(content: unknown, assetIdentifier: string | undefined): Parsed {
  const log = isObject(content) ? content : undefined;
  const rows: unknown = Array.isArray(content) ? content : (log?.snapshot ?? (isObject(log?.diffResults) ? log.diffResults.added : undefined));
  if (!Array.isArray(rows)) throw new NotTheFormat('content', 'content must be osquery JSON rows (an array, or a result log with snapshot or diffResults.added)');
  const identifier = assetIdentifier ?? documentIdentifier(log?.hostIdentifier, 'content.hostIdentifier');
  if (!identifier) throw new NotTheFormat('assetIdentifier', 'assetIdentifier is required (or a result log with hostIdentifier)');
  const errors: ImportError[] = [];
  const software: SoftwareInput[] = [];
  let platform: string | null = null;
  rows.forEach((r, i) => {
    if (!isObject(r)) return void errors.push({ row: i + 1, message: 'row is not an object' });
    const wrong = notStrings(r, OSQUERY_STRINGS);
    if (wrong) return void errors.push({ row: i + 1, message: wrong });
    const name = str(r.name);
    if (!name) return void errors.push({ row: i + 1, message: 'row has no name' });
    const debian = 'maintainer' in r || 'source' in r;
    const version = str(r.version);
    const entry: SoftwareInput = { vendor: str(r.publisher) ?? str(r.vendor) ?? '', product: name, version: version ? (debian ? upstreamVersion(version) : version) : null };
    const bad = problem(Software, entry);
    if (bad) return void errors.push({ row: i + 1, message: bad });
    if ('publisher' in r) platform ??= 'windows';
    else if (debian || 'release' in r) platform ??= 'linux';
    software.push(entry);
  });
  return { assets: [{ identifier, kind: 'host', platform, software }], errors };
}
