import { GoneError } from './errors.js';

/**
 * Deprecation (the API spec's "Versioning"; docs/api.md). A deprecated route keeps working and says so in every response:
 * `Deprecation` (RFC 9745, `@<unix seconds>`), `Sunset` (RFC 8594, an HTTP date) and
 * `Link: <replacement>; rel="successor-version"`. Past the sunset date it answers 410 naming
 * the replacement. The OpenAPI operation is marked `deprecated` with the replacement named.
 */
export interface DeprecationInfo {
  /** Path (or "METHOD path") of the operation to use instead. */
  replacement: string;
  deprecatedAt: Date;
  sunset?: Date;
}

export function deprecationHeaders(info: DeprecationInfo): Record<string, string> {
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(info.deprecatedAt.getTime() / 1000)}`,
    link: `<${info.replacement.replace(/^[A-Z]+\s+/, '')}>; rel="successor-version"`,
  };
  if (info.sunset) headers.sunset = info.sunset.toUTCString();
  return headers;
}

export function assertNotSunset(info: DeprecationInfo, now = new Date()): void {
  if (info.sunset && info.sunset.getTime() <= now.getTime()) {
    throw new GoneError(
      `This endpoint was retired on ${info.sunset.toISOString()}; use ${info.replacement} instead`,
    );
  }
}

export function deprecationDescription(info: DeprecationInfo): string {
  const sunset = info.sunset ? ` It stops working on ${info.sunset.toISOString()} (then 410).` : '';
  return `**Deprecated**: use \`${info.replacement}\` instead.${sunset}`;
}
