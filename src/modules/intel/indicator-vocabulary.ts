/**
 * The one home of indicator type names (no imports: extraction, connectors and the IOC API all
 * build on it). Three views of one vocabulary:
 * - `IndicatorType`: every type an indicator row can have (the IOC API's filter and answers);
 * - `IocKind`: what the extractor recognises in text, the stored types but `mutex` and `other`
 *   (only connectors assert those) plus `cve` and `attack-technique`, which become classification,
 *   not indicators;
 * - `AssertedIndicatorType`: what a connector (MISP attribute, STIX pattern) can assert, `cve` included.
 */
export const INDICATOR_TYPES = [
  'ipv4', 'ipv6', 'domain', 'url', 'email', 'md5', 'sha1', 'sha256', 'sha512', 'ssdeep', 'filename', 'registry-key', 'process',
  'mutex', 'cert', 'cloud-id', 'mobile-id', 'btc', 'eth', 'xmr', 'onion', 'asn', 'other',
] as const;
export type IndicatorType = (typeof INDICATOR_TYPES)[number];

export type IocKind = Exclude<IndicatorType, 'mutex' | 'other'> | 'cve' | 'attack-technique';

export type AssertedIndicatorType =
  | Extract<IndicatorType, 'ipv4' | 'ipv6' | 'domain' | 'url' | 'email' | 'md5' | 'sha1' | 'sha256' | 'sha512' | 'ssdeep' | 'filename' | 'registry-key' | 'process' | 'mutex' | 'cert' | 'asn' | 'other'>
  | 'cve';

/**
 * Types that go by one group name: the IOC API's filter aliases (`type=hash`, `type=ip`) and hunt's
 * coarse `iocType` both read it, so a hash is a hash everywhere (ssdeep included).
 */
export const INDICATOR_GROUPS = {
  ip: ['ipv4', 'ipv6'],
  hash: ['md5', 'sha1', 'sha256', 'sha512', 'ssdeep'],
} as const satisfies Record<string, readonly IndicatorType[]>;

const GROUP_OF: ReadonlyMap<string, string> = new Map(Object.entries(INDICATOR_GROUPS).flatMap(([group, types]) => types.map((t) => [t, group] as const)));

/** The group a type belongs to (`sha256` → `hash`, `ssdeep` → `hash`, `ipv6` → `ip`), else the type itself. */
export function indicatorGroupOf(type: string): string {
  return GROUP_OF.get(type) ?? type;
}
