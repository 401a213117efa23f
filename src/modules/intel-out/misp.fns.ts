import { uuidv5 } from './stix.fns.js';

/**
 * Pure MISP functions of intel out: Rampart indicators as MISP attributes, items as MISP events
 * (the feed format: `{"Event": {...}}`, the same MISP's own feeds and Rampart's MISP connector read).
 */

const HASHES: Record<number, string> = { 32: 'x509-fingerprint-md5', 40: 'x509-fingerprint-sha1', 64: 'x509-fingerprint-sha256' };

/** Rampart indicator type → [MISP attribute type, category]; null for types MISP has no attribute for. */
export function mispType(type: string, value: string): [string, string] | null {
  switch (type) {
    case 'ipv4':
    case 'ipv6':
      return ['ip-dst', 'Network activity'];
    case 'domain':
      return ['domain', 'Network activity'];
    case 'url':
      return ['url', 'Network activity'];
    case 'email':
      return ['email-src', 'Payload delivery'];
    case 'md5':
    case 'sha1':
    case 'sha256':
    case 'sha512':
    case 'ssdeep':
    case 'filename':
      return [type, 'Payload delivery'];
    case 'registry-key':
      return ['regkey', 'Persistence mechanism'];
    case 'mutex':
      return ['mutex', 'Artifacts dropped'];
    case 'asn':
      return ['AS', 'Network activity'];
    case 'cert': {
      const t = HASHES[value.replace(/:/g, '').length];
      return t ? [t, 'Network activity'] : null;
    }
    default:
      return null;
  }
}

export function unixSeconds(d: Date): string {
  return String(Math.floor(d.getTime() / 1000));
}

/** A `to_ids` attribute; its uuid is derived from the event and the value, so it is stable. */
export function mispAttribute(eventUuid: string, a: { type: string; value: string; timestamp: Date; comment?: string }): Record<string, unknown> | null {
  const mapped = mispType(a.type, a.value);
  if (!mapped) return null;
  return {
    uuid: uuidv5(`misp-attribute|${eventUuid}|${a.type}|${a.value}`),
    type: mapped[0],
    category: mapped[1],
    value: a.value,
    to_ids: true,
    distribution: '5',
    timestamp: unixSeconds(a.timestamp),
    comment: a.comment ?? '',
    deleted: false,
  };
}

const THREAT_LEVEL: Record<string, string> = { critical: '1', high: '1', medium: '2', low: '3', none: '4' };

export interface EventHead {
  uuid: string;
  info: string;
  date: Date;
  timestamp: Date;
  severity?: string | undefined;
  orgName: string;
  orgUuid: string;
  tags?: string[] | undefined;
}

/** The event without its attributes: `{"Event": {...head, "Attribute": [` … `]}}` is written around them. */
export function mispEventHead(e: EventHead): Record<string, unknown> {
  return {
    uuid: e.uuid,
    info: e.info || 'Rampart intel',
    date: e.date.toISOString().slice(0, 10),
    timestamp: unixSeconds(e.timestamp),
    publish_timestamp: unixSeconds(e.timestamp),
    published: true,
    analysis: '2',
    threat_level_id: THREAT_LEVEL[e.severity ?? ''] ?? '4',
    distribution: '3',
    Orgc: { name: e.orgName, uuid: e.orgUuid },
    Tag: (e.tags ?? []).map((name) => ({ name, colour: '#0088cc', exportable: true })),
  };
}

/** Writes a whole event document around an already serialized attribute list. */
export function mispEventPrefix(head: Record<string, unknown>): string {
  return `{"Event":${JSON.stringify({ ...head, Attribute: [] }).slice(0, -3)}[`;
}
export const MISP_EVENT_SUFFIX = ']}}';
