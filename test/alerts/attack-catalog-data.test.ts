/**
 * The ATT&CK catalog shipped with Rampart (issue 18 item 8): present, readable, with MITRE's
 * terms of use beside it, and exactly what scripts/build-attack-catalog.ts makes of MITRE's index.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCatalog, serializeCatalog, type AttackIndex } from '../../scripts/build-attack-catalog.js';
import { SHIPPED_ATTACK_VERSION, shippedAttackCatalog } from '../../src/modules/intel/attack/catalog.repo.js';
import { SHARED_DIR } from '../support/shared-dir.js';

const DATA = new URL('../../src/modules/intel/attack/attack-data/', import.meta.url);
const INDEX = path.join(SHARED_DIR, 'fixtures/attack/enterprise-attack-index.json');
const index = fs.existsSync(INDEX) ? INDEX : undefined;

describe('the shipped ATT&CK catalog', () => {
  it('names techniques and sub-techniques, and knows groups and software by their aliases', () => {
    const { catalog, releasedAt } = shippedAttackCatalog();
    // mitre/cti of 2025-11-13 is ATT&CK v18.1: the version coverage names (regenerating the catalog means updating both).
    expect([releasedAt.toISOString(), SHIPPED_ATTACK_VERSION]).toEqual(['2025-11-13T00:00:00.000Z', '18.1']);
    expect(catalog.techniques.get('T1566.001')).toEqual({ id: 'T1566.001', name: 'Spearphishing Attachment', tactics: ['initial-access'], platforms: expect.arrayContaining(['Windows']) });
    expect(catalog.techniques.get('T1059')?.name).toBe('Command and Scripting Interpreter');
    expect(catalog.groups.find((g) => g.id === 'G0007')?.aliases).toEqual(expect.arrayContaining(['APT28', 'Fancy Bear', 'STRONTIUM']));
    expect(catalog.software.find((s) => s.name === 'Lumma Stealer')).toMatchObject({ type: 'malware' });
    expect(catalog.techniques.size).toBeGreaterThan(600);
  });

  it('carries campaigns with aliases and MITRE\'s terms of use', () => {
    const json = JSON.parse(fs.readFileSync(new URL('enterprise-attack.json', DATA), 'utf8')) as { campaigns: Array<{ id: string; aliases: string[] }>; license: string };
    expect(json.campaigns.length).toBeGreaterThan(40);
    expect(json.campaigns[0]).toEqual({ id: expect.stringMatching(/^C\d{4}$/), name: expect.any(String), aliases: expect.any(Array) });
    const notice = fs.readFileSync(new URL('NOTICE.md', DATA), 'utf8');
    expect(notice).toContain('The MITRE Corporation (MITRE) hereby grants you a non-exclusive, royalty-free license to use ATT&CK');
    expect(notice).toContain('This work is reproduced and distributed with the permission of The MITRE Corporation.');
    expect(notice).not.toContain('CAPEC');
  });

  it.skipIf(!index)('is what scripts/build-attack-catalog.ts generates from MITRE\'s index', () => {
    const generated = serializeCatalog(buildCatalog(JSON.parse(fs.readFileSync(index!, 'utf8')) as AttackIndex));
    expect(generated === fs.readFileSync(new URL('enterprise-attack.json', DATA), 'utf8')).toBe(true);
  });
});
