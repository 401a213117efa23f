import { readFileSync } from 'node:fs';

/**
 * The Sigma rule JSON Schema (sigma-rule.schema.json, written from SigmaHQ's rules specification):
 * what Rampart's drafted rules satisfy and what the Sigma import of code detections checks.
 */
export const SIGMA_RULE_SCHEMA = JSON.parse(readFileSync(new URL('./sigma-rule.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
