import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serializerCompiler } from './serializer.js';

const compile = (schema: z.ZodType) => serializerCompiler({ schema, method: 'GET', url: '/', httpStatus: '200' }) as (data: unknown) => string;

describe('response serializer', () => {
  it('writes only declared properties, across union variants', () => {
    const A = z.object({ type: z.literal('a'), a: z.string(), config: z.object({ x: z.number() }) });
    const B = z.object({ type: z.literal('b'), b: z.number().nullable(), config: z.object({ y: z.boolean() }) });
    const out = compile(z.array(z.discriminatedUnion('type', [A, B])))([
      { type: 'a', a: 'x', config: { x: 1, secret: 's' }, token: 'never' },
      { type: 'b', b: null, config: { y: true } },
    ]);
    expect(JSON.parse(out)).toEqual([
      { type: 'a', a: 'x', config: { x: 1 } },
      { type: 'b', b: null, config: { y: true } },
    ]);
    expect(out).not.toContain('never');
    expect(out).not.toContain('secret');
  });

  it('keeps records and unknown values whole', () => {
    const out = compile(z.object({ meta: z.record(z.string(), z.unknown()), any: z.unknown() }))({ meta: { k: [1, { v: 2 }] }, any: 'x' });
    expect(JSON.parse(out)).toEqual({ meta: { k: [1, { v: 2 }] }, any: 'x' });
  });
});
