import { z } from 'zod';

/** `limit`/`offset` paging of non-intel lists (docs/api.md); answers carry `totalCount`. */
export const LimitOffsetQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Page size, 1..200 (default 50)'),
  offset: z.coerce.number().int().min(0).default(0).describe('Rows to skip (default 0)'),
});
export type LimitOffset = z.infer<typeof LimitOffsetQuery>;

export const IdParams = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
