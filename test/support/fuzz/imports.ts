import fc from 'fast-check';
import { HOSTILE_STRINGS } from './arbitraries.js';

/**
 * Structural arbitraries for `POST /api/assets/import`: the OpenAPI document says only "object"
 * or "string" for its content, so the generic fuzz never builds a CycloneDX component tree, an
 * osquery row or a CSV. These do, with the right shapes filled with wrong types, nulls, deep
 * nesting, huge fields and bad percent-encoding.
 */
const huge = fc.constantFrom('P'.repeat(300), 'P'.repeat(301), 'x'.repeat(100_000), '\u00e9'.repeat(5_000));
const badPurls = fc.constantFrom('pkg:npm/foo%@1.0', 'pkg:npm/%E0%A4%A@1', 'pkg:maven/a%zz/b@%', 'pkg:/@', 'pkg:npm/' + 'a'.repeat(2000), 'cpe:2.3:a:x');
const badCpes = fc.constantFrom('cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*', 'cpe:/a:x', 'cpe:2.3:a:\\:' + 'v'.repeat(600), 'cpe:2.3:*:*:*:*');

/** A value of any JSON type, weighted towards the ones that break field handling. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: huge },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, [], {}, [[]], { a: 1 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const field = (good: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary: good }, { weight: 2, arbitrary: anyValue });

const component: fc.Arbitrary<unknown> = fc.letrec<{ component: unknown }>((tie) => ({
  component: fc.oneof(
    { depthSize: 'small', maxDepth: 6 },
    { weight: 8, arbitrary: fc.record(
      {
        type: field(fc.constantFrom('library', 'application', 'container')),
        name: field(fc.string({ minLength: 1, maxLength: 20 })),
        group: field(fc.string({ maxLength: 10 })),
        version: field(fc.string({ maxLength: 12 })),
        publisher: field(fc.string({ maxLength: 12 })),
        supplier: fc.oneof(fc.record({ name: field(fc.string({ maxLength: 12 })) }), anyValue),
        purl: fc.oneof(badPurls, field(fc.constant('pkg:npm/left-pad@1.3.0'))),
        cpe: fc.oneof(badCpes, anyValue),
        components: fc.oneof({ weight: 2, arbitrary: fc.array(tie('component'), { maxLength: 3 }) }, { weight: 1, arbitrary: anyValue }),
      },
      { requiredKeys: [] },
    ) },
    { weight: 1, arbitrary: anyValue },
  ),
})).component;

/** A deeply nested chain of components (the edge refuses JSON deeper than 128 levels). */
const deepChain = fc.integer({ min: 10, max: 70 }).map((depth) => {
  let c: Record<string, unknown> = { name: 'leaf' };
  for (let i = 0; i < depth; i++) c = { name: `n${i}`, components: [c] };
  return [c];
});

export const cycloneDxBody = fc.record(
  {
    format: fc.constant('cyclonedx'),
    content: fc.record(
      {
        bomFormat: fc.oneof({ weight: 5, arbitrary: fc.constant('CycloneDX') }, { weight: 1, arbitrary: anyValue }),
        specVersion: field(fc.constant('1.5')),
        metadata: fc.oneof(fc.record({ component: fc.oneof(fc.record({ name: field(fc.string({ minLength: 1, maxLength: 20 })), type: field(fc.constant('application')) }, { requiredKeys: [] }), anyValue) }), anyValue),
        components: fc.oneof({ weight: 5, arbitrary: fc.array(component, { maxLength: 6 }) }, { weight: 1, arbitrary: deepChain }, { weight: 1, arbitrary: anyValue }),
      },
      { requiredKeys: [] },
    ),
    assetIdentifier: fc.option(fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constant('h'.repeat(255))), { nil: undefined }),
  },
  { requiredKeys: ['format', 'content'] },
);

const osqueryRow = fc.oneof(
  { weight: 5, arbitrary: fc.record({ name: field(fc.string({ minLength: 1, maxLength: 20 })), version: field(fc.constantFrom('1:2.17.1-1ubuntu1', '7.0', '')), publisher: field(fc.string()), vendor: field(fc.string()), maintainer: field(fc.string()), release: field(fc.string()), source: field(fc.string()) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: anyValue },
);

export const osqueryBody = fc.record(
  {
    format: fc.constant('osquery'),
    content: fc.oneof(
      fc.array(osqueryRow, { maxLength: 8 }),
      fc.record({ hostIdentifier: field(fc.string({ minLength: 1, maxLength: 20 })), snapshot: fc.oneof(fc.array(osqueryRow, { maxLength: 8 }), anyValue) }, { requiredKeys: [] }),
      fc.record({ hostIdentifier: field(fc.string({ minLength: 1, maxLength: 20 })), diffResults: fc.oneof(fc.record({ added: fc.oneof(fc.array(osqueryRow, { maxLength: 8 }), anyValue) }), anyValue) }, { requiredKeys: [] }),
      anyValue,
    ),
    assetIdentifier: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
  },
  { requiredKeys: ['format', 'content'] },
);

const csvCell = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 15 }) },
  { weight: 2, arbitrary: fc.constantFrom('true', 'false', 'maybe', '', 'critical', 'extreme', '"', '""', '"a,b"', 'a\nb', '\r\n', '=1+2') },
  { weight: 1, arbitrary: huge },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
);
const COLUMNS = ['identifier', 'kind', 'platform', 'internetFacing', 'vendor', 'product', 'version', 'criticality'];

export const csvBody = fc
  .record({
    header: fc.oneof({ weight: 4, arbitrary: fc.shuffledSubarray(COLUMNS, { minLength: 7 }) }, { weight: 1, arbitrary: fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }) }),
    rows: fc.array(fc.array(csvCell, { maxLength: 10 }), { maxLength: 8 }),
    eol: fc.constantFrom('\n', '\r\n', '\r'),
    quoteAll: fc.boolean(),
  })
  .map(({ header, rows, eol, quoteAll }) => {
    const quote = (c: string) => (quoteAll || /[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
    const content = [header.join(','), ...rows.map((r) => r.map(quote).join(','))].join(eol) || ' ';
    return { format: 'csv', content };
  });

export const importBody = fc.oneof(cycloneDxBody, osqueryBody, csvBody);
