import { z } from 'zod';
import { IocTypeFilter } from '../intel/index.js';
import { EXPORT_FORMATS } from './export.service.js';
import { CSV_COLUMNS } from './export.fns.js';

const IOC_STATUSES = ['found', 'clean', 'unchecked', 'unknown'] as const;

export const ExportQuerySchema = z.object({
  format: z.enum(EXPORT_FORMATS).describe(`txt: one value per line (block lists); csv: RFC 4180 with the columns ${CSV_COLUMNS.join(', ')}; stix: a STIX 2.1 bundle; misp: one MISP event`),
  type: IocTypeFilter,
  status: z.enum(IOC_STATUSES).optional().describe('Indicators with a row of this hunt status'),
  search: z.string().trim().min(1).max(500).optional().describe('Substring of the normalized value, case-insensitive; a defanged term is refanged first, as on /iocs'),
  since: z.iso.datetime({ offset: true }).optional().describe('Only indicators changed (STIX `modified`) at or after this time'),
  minConfidence: z.coerce.number().min(0).max(100).optional().describe('Only indicators whose confidence (0..100, the STIX scale) is at least this'),
  defang: z.enum(['true', 'false']).optional().transform((v) => v === 'true').describe('txt and csv: write values defanged (hxxp, [.])'),
});

export const ExportBody = z.string().describe('The export, streamed (text/plain, text/csv, application/stix+json or application/json by format)');
