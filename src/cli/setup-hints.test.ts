import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { baseUrlWarning } from './setup-hints.js';

describe('the RAMPART_BASE_URL warning', () => {
  it('is given on a shared (external) database without RAMPART_BASE_URL, and only then', () => {
    const external = 'postgres://rampart@db.internal/rampart';
    expect(baseUrlWarning(loadConfig({ DATABASE_URL: external }))).toMatch(/^RAMPART_BASE_URL is not set/);
    expect(baseUrlWarning(loadConfig({ DATABASE_URL: external, RAMPART_BASE_URL: 'https://rampart.example.com' }))).toBeNull();
    // The embedded database belongs to one process: its own address is the right one.
    expect(baseUrlWarning(loadConfig({}))).toBeNull();
  });
});
