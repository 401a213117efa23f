import { CRITICALITIES, parseCpeName, parsePurl, upstreamVersion, type AssetInput, type Criticality, type SoftwareInput } from './inventory.fns.js';

/**
 * The inventory formats teams already have, turned into assets: a plain CSV, a CycloneDX JSON
 * SBOM and osquery results (`programs`, `deb_packages`, `rpm_packages`). Pure: the service
 * writes what these return. Each error names the row (1-based; CSV rows count the header).
 */
export interface ImportError {
  row: number;
  message: string;
}

export interface Parsed {
  assets: AssetInput[];
  errors: ImportError[];
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
  if (rows.length === 0) return { assets: [], errors: [{ row: 1, message: 'The CSV is empty; expected the header identifier,kind,platform,internetFacing,vendor,product,version' }] };
  const header = rows[0]!.map((h) => h.trim().toLowerCase());
  const missing = CSV_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length) return { assets: [], errors: [{ row: 1, message: `Missing column(s): ${missing.join(', ')}` }] };
  const col = (r: string[], name: string) => (r[header.indexOf(name)] ?? '').trim();
  const byId = new Map<string, AssetInput>();
  rows.slice(1).forEach((r, i) => {
    const rowNo = i + 2;
    const identifier = col(r, 'identifier');
    if (!identifier) return void errors.push({ row: rowNo, message: 'identifier is empty' });
    const internetFacing = bool(col(r, 'internetfacing'));
    if (internetFacing === null) return void errors.push({ row: rowNo, message: `internetFacing must be true or false, got ${JSON.stringify(col(r, 'internetfacing'))}` });
    const criticalityRaw = header.includes('criticality') ? col(r, 'criticality').toLowerCase() : '';
    if (criticalityRaw && !(CRITICALITIES as readonly string[]).includes(criticalityRaw)) {
      return void errors.push({ row: rowNo, message: `criticality must be one of ${CRITICALITIES.join(', ')}` });
    }
    const asset = byId.get(identifier) ?? { identifier, kind: col(r, 'kind') || 'other', platform: col(r, 'platform') || null, internetFacing, software: [] };
    if (internetFacing) asset.internetFacing = true;
    if (criticalityRaw) asset.criticality = criticalityRaw as Criticality;
    byId.set(identifier, asset);
    const product = col(r, 'product');
    if (product) asset.software.push({ vendor: col(r, 'vendor'), product, version: col(r, 'version') || null });
  });
  return { assets: [...byId.values()], errors };
}

interface CdxComponent {
  type?: string;
  group?: string;
  name?: string;
  version?: string;
  cpe?: string;
  purl?: string;
  publisher?: string;
  supplier?: { name?: string };
  components?: CdxComponent[];
}

/** A CycloneDX JSON BOM (1.2–1.6): every component, nested ones included, becomes a software entry of one asset. */
export function parseCycloneDx(bom: unknown, assetIdentifier: string | undefined): Parsed {
  const doc = bom as { bomFormat?: string; metadata?: { component?: CdxComponent }; components?: CdxComponent[] } | null;
  if (!doc || typeof doc !== 'object' || doc.bomFormat !== 'CycloneDX') {
    return { assets: [], errors: [{ row: 0, message: 'content is not a CycloneDX JSON document (bomFormat must be "CycloneDX")' }] };
  }
  const identifier = assetIdentifier ?? doc.metadata?.component?.name;
  if (!identifier) return { assets: [], errors: [{ row: 0, message: 'assetIdentifier is required when the SBOM has no metadata.component.name' }] };
  const errors: ImportError[] = [];
  const software: SoftwareInput[] = [];
  let index = 0;
  const walk = (list: CdxComponent[] | undefined) => {
    for (const c of list ?? []) {
      index++;
      const fromPurl = c.purl ? parsePurl(c.purl) : null;
      const fromCpe = c.cpe ? parseCpeName(c.cpe) : null;
      const product = c.name ?? fromPurl?.product ?? fromCpe?.product;
      if (!product) errors.push({ row: index, message: 'component has no name, purl or cpe' });
      else {
        software.push({
          vendor: fromCpe?.vendor ?? c.publisher ?? c.supplier?.name ?? c.group ?? fromPurl?.vendor ?? '',
          product,
          version: c.version ?? fromPurl?.version ?? fromCpe?.version ?? null,
          cpe: c.cpe ?? null,
          purl: c.purl ?? null,
        });
      }
      walk(c.components);
    }
  };
  walk(doc.components);
  const meta = doc.metadata?.component;
  const kind = meta?.type === 'container' ? 'container' : meta?.type === 'device' ? 'device' : meta?.type === 'application' ? 'application' : 'other';
  return { assets: [{ identifier, kind, software }], errors };
}

interface OsqueryRow {
  name?: string;
  version?: string;
  publisher?: string;
  vendor?: string;
  maintainer?: string;
  release?: string;
  arch?: string;
}

/**
 * osquery `--json` results (an array of rows, or a scheduled-query log line with `snapshot`
 * or `diffResults.added`) of `programs` (Windows), `deb_packages` or `rpm_packages`.
 */
export function parseOsquery(content: unknown, assetIdentifier: string | undefined): Parsed {
  const c = content as { snapshot?: OsqueryRow[]; diffResults?: { added?: OsqueryRow[] }; hostIdentifier?: string; name?: string } | OsqueryRow[] | null;
  const rows: unknown = Array.isArray(c) ? c : c?.snapshot ?? c?.diffResults?.added;
  const identifier = assetIdentifier ?? (!Array.isArray(c) ? c?.hostIdentifier : undefined);
  if (!Array.isArray(rows)) return { assets: [], errors: [{ row: 0, message: 'content must be osquery JSON rows (an array, or a result log with snapshot or diffResults.added)' }] };
  if (!identifier) return { assets: [], errors: [{ row: 0, message: 'assetIdentifier is required (or a result log with hostIdentifier)' }] };
  const errors: ImportError[] = [];
  const software: SoftwareInput[] = [];
  let platform: string | null = null;
  rows.forEach((raw, i) => {
    const r = raw as OsqueryRow;
    if (!r || typeof r !== 'object' || !r.name) return void errors.push({ row: i + 1, message: 'row has no name' });
    if ('publisher' in r) platform ??= 'windows';
    else if ('maintainer' in r || 'source' in r) platform ??= 'linux';
    else if ('release' in r) platform ??= 'linux';
    const debian = 'maintainer' in r || 'source' in r;
    software.push({
      vendor: r.publisher ?? r.vendor ?? '',
      product: r.name,
      version: r.version ? (debian ? upstreamVersion(r.version) : r.version) : null,
    });
  });
  return { assets: [{ identifier, kind: 'host', platform, software }], errors };
}
