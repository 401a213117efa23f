import { describe, expect, it } from 'vitest';
import { emptyIocLists, IOC_LIST_NAMES, normalizeStructured } from './process.fns.js';

describe('normalizeStructured', () => {
  it('gives a structured registry key (MISP regkey, STIX windows-registry-key) the canonical form extraction gives', () => {
    expect(normalizeStructured('registry-key', ' HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\Updater ')).toBe('HKEY_CURRENT_USER\\software\\microsoft\\windows\\currentversion\\run\\updater');
    expect(normalizeStructured('registry-key', 'hklm:\\SYSTEM\\\\CurrentControlSet\\Services\\evil\\')).toBe('HKEY_LOCAL_MACHINE\\system\\currentcontrolset\\services\\evil');
    expect(normalizeStructured('registry-key', 'not a key')).toBe('not a key');
  });
});

describe('iocs lists', () => {
  it('has one empty list per list name, in the names’ order (the order of the stored JSON keys)', () => {
    expect(Object.keys(emptyIocLists())).toEqual(IOC_LIST_NAMES);
    expect(Object.values(emptyIocLists()).every((l) => Array.isArray(l) && l.length === 0)).toBe(true);
  });
});
