import { describe, expect, it } from 'vitest';
import { diffSpecs, secretPlaceholder } from './plan.fns.js';

describe('diffSpecs', () => {
  const secrets = [{ path: ['token'] }, { path: ['secret'], keepWhenOmitted: true }];

  it('answers only the fields that differ, ignoring key order and undefined', () => {
    const current = { spec: { a: { x: 1, y: [1, 2] }, b: 'same', c: undefined }, secrets: { token: 't', secret: 's' } };
    expect(diffSpecs(current, { b: 'same', a: { y: [1, 2], x: 1 }, token: 't' }, secrets).diff).toEqual({});
    expect(diffSpecs(current, { b: 'other', a: { y: [1, 2], x: 1 }, token: 't' }, secrets).diff).toEqual({ b: { from: 'same', to: 'other' } });
  });

  it('never shows a secret: "(secret)" stored, "(secret: will change)" new; clears an omitted one, keeps a keep-when-omitted one', () => {
    const current = { spec: {}, secrets: { token: 'old', secret: 's' } };
    expect(diffSpecs(current, { token: 'new' }, secrets).diff).toEqual({ token: { from: '(secret)', to: '(secret: will change)' } });
    expect(diffSpecs(current, {}, secrets).diff).toEqual({ token: { from: '(secret)', to: null } });
    expect(diffSpecs(current, { token: 'old', secret: 'other' }, secrets).diff).toEqual({ secret: { from: '(secret)', to: '(secret: will change)' } });
    expect(JSON.stringify(diffSpecs(null, { token: 'value-1' }, secrets))).not.toContain('value-1');
  });

  it('without the manage permission, a set secret is not compared: a right and a wrong guess plan the same', () => {
    const current = { spec: {}, secrets: { token: 'right', secret: null } };
    const right = diffSpecs(current, { token: 'right' }, secrets, false);
    const wrong = diffSpecs(current, { token: 'wrong' }, secrets, false);
    expect(right).toEqual({ diff: {}, notCompared: ['token'] });
    expect(wrong).toEqual(right);
    // Whether one is set is what the resource's GET shows (`hasToken`): that is still compared.
    expect(diffSpecs(current, {}, secrets, false)).toEqual({ diff: { token: { from: '(secret)', to: null } }, notCompared: [] });
  });

  it('shows a credential-bearing URL redacted, and compares its credential only with the manage permission', () => {
    const url = [{ path: ['config', 'url'], url: true }];
    const current = { spec: { config: { url: 'https://x.example/wf?api-version=1&sig=abc' } }, secrets: {} };
    const newSig = { config: { url: 'https://x.example/wf?api-version=1&sig=def' } };
    expect(diffSpecs(current, newSig, url).diff).toEqual({ 'config.url': { from: 'https://x.example/wf?api-version=1&sig=REDACTED', to: '(secret: will change)' } });
    expect(diffSpecs(current, newSig, url, false)).toEqual({ diff: {}, notCompared: ['config.url'] });
    expect(diffSpecs(current, { config: { url: 'https://x.example/wf?api-version=1&sig=abc' } }, url, false)).toEqual({ diff: {}, notCompared: ['config.url'] });
    const moved = diffSpecs(current, { config: { url: 'https://y.example/wf?sig=abc' } }, url, false);
    expect(moved.diff).toEqual({ 'config.url': { from: 'https://x.example/wf?api-version=1&sig=REDACTED', to: 'https://y.example/wf?sig=REDACTED' } });
    // A URL without a credential is an ordinary field.
    const plain = { spec: { config: { url: 'https://a.example/in' } }, secrets: {} };
    expect(diffSpecs(plain, { config: { url: 'https://a.example/in' } }, url, false)).toEqual({ diff: {}, notCompared: [] });
    expect(JSON.stringify(diffSpecs(null, newSig, url))).not.toContain('def');
  });
});

describe('secretPlaceholder', () => {
  it('names an environment variable after kind, name and field', () => {
    expect(secretPlaceholder('OutputDestination', 'soc slack #2', ['token'])).toBe('${env:RAMPART_OUTPUTDESTINATION_SOC_SLACK_2_TOKEN}');
    expect(secretPlaceholder('Model', 'gpt-4o.mini', ['provider', 'apiKey'])).toBe('${env:RAMPART_MODEL_GPT_4O_MINI_PROVIDER_APIKEY}');
  });
});
