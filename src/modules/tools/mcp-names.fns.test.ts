import { describe, expect, it } from 'vitest';
import { PROVIDER_TOOL_NAME_RE, providerSafeMcpName } from './mcp-names.fns.js';

describe('providerSafeMcpName', () => {
  it('is mcp__<server>__<tool> when that is already safe', () => {
    expect(providerSafeMcpName('inventory', 'lookup_asset')).toBe('mcp__inventory__lookup_asset');
  });

  it('replaces refused characters and disambiguates with a hash', () => {
    const dotted = providerSafeMcpName('inventory', 'assets.lookup');
    const underscored = providerSafeMcpName('inventory', 'assets_lookup');
    expect(dotted).toMatch(PROVIDER_TOOL_NAME_RE);
    expect(dotted).toMatch(/^mcp__inventory__assets_lookup_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(underscored);
  });

  it('fits long names into 64 characters, distinct and stable', () => {
    const a = providerSafeMcpName('a-very-long-server-name-for-testing', 'an_extremely_long_tool_name_that_goes_on_and_on_1');
    const b = providerSafeMcpName('a-very-long-server-name-for-testing', 'an_extremely_long_tool_name_that_goes_on_and_on_2');
    expect(a).toHaveLength(64);
    expect(a).toMatch(PROVIDER_TOOL_NAME_RE);
    expect(a).not.toBe(b);
    expect(providerSafeMcpName('a-very-long-server-name-for-testing', 'an_extremely_long_tool_name_that_goes_on_and_on_1')).toBe(a);
  });
});
