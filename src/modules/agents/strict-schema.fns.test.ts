import { describe, expect, it } from 'vitest';
import { dropStrictNulls, toStrictSchema } from './strict-schema.fns.js';

describe('toStrictSchema', () => {
  it('lists every property in required, makes optional ones nullable and closes every object', () => {
    const schema = {
      type: 'object',
      properties: {
        verdict: { enum: ['benign', 'malicious'] },
        note: { type: 'string' },
        iocs: { type: 'array', items: { type: 'object', properties: { value: { type: 'string' }, kind: { type: 'string', enum: ['ip', 'domain'] } }, required: ['value'] } },
        owner: { $ref: '#/$defs/person' },
      },
      required: ['verdict', 'iocs'],
      $defs: { person: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    };
    const result = toStrictSchema(schema);
    expect(result).toEqual({
      ok: true,
      schema: {
        type: 'object',
        properties: {
          verdict: { type: 'string', enum: ['benign', 'malicious'] },
          note: { type: ['string', 'null'] },
          iocs: {
            type: 'array',
            items: {
              type: 'object',
              properties: { value: { type: 'string' }, kind: { type: ['string', 'null'], enum: ['ip', 'domain', null] } },
              required: ['value', 'kind'],
              additionalProperties: false,
            },
          },
          owner: { anyOf: [{ $ref: '#/$defs/person' }, { type: 'null' }] },
        },
        required: ['verdict', 'iocs', 'note', 'owner'],
        additionalProperties: false,
        $defs: { person: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } },
      },
    });
    expect(schema.required).toEqual(['verdict', 'iocs']);
  });

  it('says why a schema cannot be strict', () => {
    expect(toStrictSchema({ type: 'object', properties: { a: { type: 'string', minLength: 3 } } })).toEqual({ ok: false, reason: '"minLength" at /properties/a is not supported in strict mode' });
    expect(toStrictSchema({ type: 'object', properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } } })).toMatchObject({ ok: false, reason: expect.stringContaining('/properties/tags allows additional properties') });
    expect(toStrictSchema({ type: 'object', properties: { raw: { type: 'object' } } })).toMatchObject({ ok: false, reason: expect.stringContaining('free-form') });
    expect(toStrictSchema({ type: 'object', allOf: [] })).toMatchObject({ ok: false, reason: '"allOf" at / is not supported in strict mode' });
    expect(toStrictSchema({ anyOf: [{ type: 'object' }] })).toMatchObject({ ok: false });
  });
});

describe('dropStrictNulls', () => {
  it('drops nulls of optional, non-nullable properties only, at any depth', () => {
    const schema = {
      type: 'object',
      properties: {
        note: { type: 'string' },
        maybe: { type: ['string', 'null'] },
        must: { type: ['string', 'null'] },
        iocs: { type: 'array', items: { type: 'object', properties: { kind: { type: 'string' } } } },
        owner: { $ref: '#/$defs/p' },
      },
      required: ['must'],
      $defs: { p: { type: 'object', properties: { name: { type: 'string' } } } },
    };
    const answer = { note: null, maybe: null, must: null, iocs: [{ kind: null }, { kind: 'ip' }], owner: { name: null } };
    expect(dropStrictNulls(answer, schema)).toEqual({ maybe: null, must: null, iocs: [{}, { kind: 'ip' }], owner: {} });
  });
});
