import { describe, expect, it } from 'vitest';
import { diffSpecs, secretPlaceholder } from './plan.fns.js';

describe('diffSpecs', () => {
  const secrets = [{ path: ['token'] }, { path: ['secret'], keepWhenOmitted: true }];

  it('answers only the fields that differ, ignoring key order and undefined', () => {
    const current = { spec: { a: { x: 1, y: [1, 2] }, b: 'same', c: undefined }, secrets: { token: 't', secret: 's' } };
    expect(diffSpecs(current, { b: 'same', a: { y: [1, 2], x: 1 }, token: 't' }, secrets)).toEqual({});
    expect(diffSpecs(current, { b: 'other', a: { y: [1, 2], x: 1 }, token: 't' }, secrets)).toEqual({ b: { from: 'same', to: 'other' } });
  });

  it('shows secrets as "(secret)", clears an omitted one, and keeps a keep-when-omitted one', () => {
    const current = { spec: {}, secrets: { token: 'old', secret: 's' } };
    expect(diffSpecs(current, { token: 'new' }, secrets)).toEqual({ token: { from: '(secret)', to: '(secret)' } });
    expect(diffSpecs(current, {}, secrets)).toEqual({ token: { from: '(secret)', to: null } });
    expect(diffSpecs(current, { token: 'old', secret: 'other' }, secrets)).toEqual({ secret: { from: '(secret)', to: '(secret)' } });
    expect(JSON.stringify(diffSpecs(null, { token: 'value-1' }, secrets))).not.toContain('value-1');
  });
});

describe('secretPlaceholder', () => {
  it('names an environment variable after kind, name and field', () => {
    expect(secretPlaceholder('OutputDestination', 'soc slack #2', ['token'])).toBe('${env:RAMPART_OUTPUTDESTINATION_SOC_SLACK_2_TOKEN}');
    expect(secretPlaceholder('Model', 'gpt-4o.mini', ['provider', 'apiKey'])).toBe('${env:RAMPART_MODEL_GPT_4O_MINI_PROVIDER_APIKEY}');
  });
});
