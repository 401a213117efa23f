import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality of two secrets of possibly different lengths (a presented bearer value
 * against the configured or stored secret): both are hashed first, so neither the content nor
 * the length leaks through timing.
 */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}
