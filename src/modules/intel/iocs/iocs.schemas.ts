import { z } from 'zod';
import { INDICATOR_TYPES, parseTypeFilter, TYPE_ALIASES } from './indicator-types.fns.js';

export const IOC_STATUSES = ['found', 'clean', 'unchecked', 'unknown'] as const;

export const IocRowSchema = z
  .object({
    id: z.uuid(),
    value: z.string().describe('As first written in the item\'s text, possibly defanged (`185.220.101[.]47`)'),
    normalizedValue: z.string().describe('Refanged and canonical, as in the item\'s `iocs` lists: what a firewall or SIEM can use'),
    defanged: z.boolean().describe('`value` was written defanged (`hxxp`, `[.]`, `[at]`…): it differs from its refanged form'),
    type: z.string(),
    intelItemId: z.uuid(),
    intelTitle: z.string(),
    sourceLabel: z.string(),
    status: z.enum(IOC_STATUSES).describe('The value\'s hunt status, the same on every row of this type and normalized value. found: a check saw it; clean: checked, not seen; unchecked: never checked; unknown: the last check was inconclusive or failed'),
    lastCheckedAt: z.string().nullable(),
  })
  .meta({ id: 'IocRow' });

/** `type=` on /iocs and its exports: comma lists and aliases, anything unknown a 400 (never a silent empty answer). */
export const IocTypeFilter = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .transform((s, ctx) => {
    const parsed = parseTypeFilter(s);
    if ('types' in parsed) return parsed.types;
    ctx.addIssue({ code: 'custom', message: `Unknown indicator type(s) ${parsed.unknown.join(', ')}; allowed: ${[...TYPE_ALIASES.keys(), ...INDICATOR_TYPES].join(', ')}` });
    return z.NEVER;
  })
  .optional()
  .describe(`Indicator type(s), comma-separated (\`ipv4,domain\`), case-insensitive: ${INDICATOR_TYPES.join(', ')}; aliases ${[...TYPE_ALIASES].map(([k, v]) => `\`${k}\` = ${v.join('+')}`).join(', ')}. Anything else is a 400.`);

export const IocListQuery = z.strictObject({
  page: z.coerce.number().int().min(1).default(1),
  perPage: z.coerce.number().int().min(1).max(200).default(50).describe('Page size, 1..200 (default 50)'),
  status: z.enum(IOC_STATUSES).optional(),
  type: IocTypeFilter,
  search: z.string().trim().min(1).max(500).optional().describe('Substring of the normalized value, case-insensitive. A defanged term is refanged first (`hxxp://45.142.212[.]100:8080/gate.php` finds `http://45.142.212.100:8080/gate.php`)'),
});
export type IocListQueryT = z.infer<typeof IocListQuery>;

export const IocList = z.object({
  rows: z.array(IocRowSchema),
  total: z.number().int(),
  page: z.number().int(),
  perPage: z.number().int(),
  hasNext: z.boolean(),
  statusCounts: z.object({ found: z.number().int(), clean: z.number().int(), unchecked: z.number().int(), unknown: z.number().int() }).describe('Over the whole filtered set (search and type), whatever the status filter'),
  availableTypes: z.array(z.string()).describe('Indicator types present in this organization'),
});

export const CheckBody = z.strictObject({
  outcome: z.enum(['found', 'clean', 'unknown']),
  evidence: z.string().max(10_000).optional().describe('What the check saw, e.g. "3 hits in proxy logs, 2026-11-20"'),
  checkedAt: z.iso.datetime({ offset: true }).optional().describe('When the check ran (default: now)'),
});

export const CheckResult = z.object({
  id: z.uuid(),
  indicatorId: z.uuid(),
  outcome: z.enum(['found', 'clean', 'unknown']),
  evidence: z.string().nullable(),
  checkedAt: z.string(),
  ioc: IocRowSchema,
});
