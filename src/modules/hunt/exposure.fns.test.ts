import { describe, expect, it } from 'vitest';
import { iocTypeOf } from './exposure.fns.js';

describe('iocTypeOf', () => {
  it("names an indicator's type by intel's groups (an ssdeep is a hash, as in the IOC API's type=hash), and files and registry keys by hunt's names", () => {
    expect(['sha256', 'ssdeep', 'ipv6', 'filename', 'registry-key', 'domain', 'mutex'].map(iocTypeOf)).toEqual(['hash', 'hash', 'ip', 'file', 'registry', 'domain', 'mutex']);
  });
});
