import { z } from 'zod';

/**
 * Loose zod schemas for the MISP core format as served by `/events/restSearch`, `/events/view`
 * and CIRCL-style feeds (`<uuid>.json`). Only the fields the connector reads are described; every
 * object is a `looseObject`, so unknown fields are kept verbatim (the event is stored as `raw`).
 *
 * MISP serialises most scalars as strings (`"timestamp": "1465681801"`, `"threat_level_id": "1"`)
 * but some producers (PyMISP, feed generators, newer servers) emit numbers or booleans; the schemas
 * accept both and leave the values as given. Use {@link mispFlag} / {@link mispUnixSeconds} to read them.
 */

const Scalar = z.union([z.string(), z.number()]);
const OptScalar = Scalar.nullable().optional();
/** `to_ids`, `deleted`, `published`: boolean, `"1"`/`"0"`, `1`/`0`, `"true"`/`"false"`. */
const Flag = z.union([z.boolean(), z.string(), z.number()]).nullable().optional();

export const MispTagSchema = z.looseObject({
  name: z.string().nullable().optional(),
});

export const MispAttributeSchema = z.looseObject({
  type: z.string(),
  value: Scalar,
  uuid: z.string().nullable().optional(),
  id: OptScalar,
  category: z.string().nullable().optional(),
  comment: z.string().nullable().optional(),
  to_ids: Flag,
  deleted: Flag,
  timestamp: OptScalar,
  Tag: z.array(MispTagSchema).nullable().optional(),
});

export const MispObjectSchema = z.looseObject({
  name: z.string().nullable().optional(),
  uuid: z.string().nullable().optional(),
  deleted: Flag,
  Attribute: z.array(MispAttributeSchema).nullable().optional(),
});

export const MispGalaxyClusterSchema = z.looseObject({
  type: z.string().nullable().optional(),
  value: z.string().nullable().optional(),
  tag_name: z.string().nullable().optional(),
});

export const MispGalaxySchema = z.looseObject({
  type: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  GalaxyCluster: z.array(MispGalaxyClusterSchema).nullable().optional(),
});

const MispOrgSchema = z.looseObject({ name: z.string().nullable().optional() });

export const MispEventSchema = z.looseObject({
  uuid: z.string().refine((s) => s.trim() !== '', 'event uuid is empty'),
  id: OptScalar,
  info: z.string().nullable().optional(),
  date: z.string().nullable().optional(),
  timestamp: OptScalar,
  publish_timestamp: OptScalar,
  published: Flag,
  threat_level_id: OptScalar,
  Orgc: MispOrgSchema.nullable().optional(),
  Org: MispOrgSchema.nullable().optional(),
  Attribute: z.array(MispAttributeSchema).nullable().optional(),
  Object: z.array(MispObjectSchema).nullable().optional(),
  Tag: z.array(MispTagSchema).nullable().optional(),
  /** `/events/index` rows carry their tags as `EventTag[].Tag`. */
  EventTag: z.array(z.looseObject({ Tag: MispTagSchema.nullable().optional() })).nullable().optional(),
  Galaxy: z.array(MispGalaxySchema).nullable().optional(),
});

export type MispEvent = z.infer<typeof MispEventSchema>;
export type MispAttribute = z.infer<typeof MispAttributeSchema>;
export type MispObject = z.infer<typeof MispObjectSchema>;
export type MispGalaxy = z.infer<typeof MispGalaxySchema>;

/** One `manifest.json` entry of a MISP feed. */
export interface MispFeedManifestEntry {
  uuid: string;
  /** Unix seconds of the event's last change. */
  timestamp: number;
  info: string;
}

/** MISP booleans: `true`, `1`, `"1"`, `"true"` are true; anything else (incl. missing) is false. */
export function mispFlag(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    return s === '1' || s === 'true';
  }
  return false;
}

/** Unix seconds from a MISP number or digit string; null when missing or not a whole number ≥ 0. */
export function mispUnixSeconds(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : null;
  if (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v)) return Number(v);
  return null;
}
