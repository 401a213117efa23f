import { describe, expect, it } from 'vitest';
import { emptyIocLists, IOC_LIST_NAMES } from './process.fns.js';

describe('iocs lists', () => {
  it('has one empty list per list name, in the names’ order (the order of the stored JSON keys)', () => {
    expect(Object.keys(emptyIocLists())).toEqual(IOC_LIST_NAMES);
    expect(Object.values(emptyIocLists()).every((l) => Array.isArray(l) && l.length === 0)).toBe(true);
  });
});
