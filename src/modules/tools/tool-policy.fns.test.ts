import { describe, expect, it } from 'vitest';
import { callPolicy, configuredPolicy, mcpDefaultPolicy } from './tool-policy.fns.js';

describe('tool policies', () => {
  it('MCP defaults: read-only allowed, destructive or unannotated or additive wait for a person', () => {
    expect(mcpDefaultPolicy({ readOnlyHint: true })).toBe('allow');
    expect(mcpDefaultPolicy({ destructiveHint: true })).toBe('approve');
    expect(mcpDefaultPolicy(undefined)).toBe('approve');
    expect(mcpDefaultPolicy({ readOnlyHint: false, destructiveHint: false })).toBe('approve');
  });

  it('http_request: GET and HEAD take the declared default, any other method waits', () => {
    expect(callPolicy({ toolName: 'http_request', configured: undefined, declared: 'allow', input: { url: 'https://x', method: 'GET' } })).toBe('allow');
    expect(callPolicy({ toolName: 'http_request', configured: undefined, declared: 'allow', input: { url: 'https://x' } })).toBe('allow');
    expect(callPolicy({ toolName: 'http_request', configured: undefined, declared: 'allow', input: { url: 'https://x', method: 'head' } })).toBe('allow');
    expect(callPolicy({ toolName: 'http_request', configured: undefined, declared: 'allow', input: { url: 'https://x', method: 'POST' } })).toBe('approve');
    expect(callPolicy({ toolName: 'http_request', configured: 'allow', declared: 'allow', input: { method: 'DELETE' } })).toBe('allow');
  });

  it('the agent’s policy wins; an MCP tool falls back to its server’s wildcard', () => {
    const policies = { 'mcp:edr/*': 'deny', 'mcp:edr/lookup_host': 'allow', send_to_destination: 'approve', junk: 'maybe' };
    expect(configuredPolicy(policies, 'mcp:edr/lookup_host', 'edr')).toBe('allow');
    expect(configuredPolicy(policies, 'mcp:edr/isolate_host', 'edr')).toBe('deny');
    expect(configuredPolicy(policies, 'send_to_destination')).toBe('approve');
    expect(configuredPolicy(policies, 'junk')).toBeUndefined();
    expect(configuredPolicy({}, 'lookup_indicator')).toBeUndefined();
  });
});
