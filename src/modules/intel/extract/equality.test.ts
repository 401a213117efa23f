/**
 * The extractor's output pinned over 80,000 seeded texts (test/support/extraction-fuzz.ts: fragments of every kind,
 * the edges its speed work touched). Each chunk of 2,000 texts (every fourth with `fileContext`) is digested as the
 * JSON of `extractIocs`, key order included; the digests were recorded from commit 2b307f9, before the compact
 * results (issue 50 §3). A change that alters any output for any of these texts fails its chunk: to see which text,
 * run the same chunk on the commit before the change and diff the JSON.
 *
 * A deliberate behaviour change re-records the digests (print them with EXTRACT_DIGESTS=print) and says why in its
 * commit. The texts avoid CVE years near the current one, whose validity moves with the calendar.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fuzzTexts } from '../../../../test/support/extraction-fuzz.js';
import { extractIocs, scanIocs } from './extract.fns.js';

const CHUNK = 2_000;
const RECORDED = [
  '1c6500a0e557d94f', '73096394ff97b0ae', '654202881a1a1626', '9199a1247b32b1f9', '0c58ae732c8e528e', '90dea8fb9bbc5f27', '6e8ffe0a2fb9e1bf', '82948502db031cb4',
  '671a09663e996189', '1154ab49781018b2', '07b5fbb7f8f05f25', 'f7417e1543e60ecb', 'ece8fb282c36f682', '3fcb0eb49fb13509', 'e74cd18691caa159', 'b529305482ecbf98',
  '95c7203d8c604ed1', '23e4f147fe8d8978', '8801ea5af3642e5f', 'a5b7bfe5d24bad56', 'c81873d0877a1e52', '36dd83173c4a056c', '3aa6f491b3397c54', '519de722944cd856',
  '8fe48d3c6edc95f8', '392329af971433be', '3143f672c24410da', 'd7ebe3424e932619', '1df283315ae2032b', '6c8dda23eba52d4a', '82ed6ef38a4a8d54', '0c268039ba85a2e8',
  'e3df6a4352f0a02b', '161ea2156c6001f6', 'b184ced28f5f191b', '76dd147460cec925', '344b996e607dc92b', '8e949aaa2ec08ffb', '5e2e410b0753f3b2', '456bf2ec9e80a2bf',
];
const texts = fuzzTexts(RECORDED.length * CHUNK);
const optionsOf = (i: number) => ({ fileContext: i % 4 === 3 });

function chunkDigest(chunk: number): string {
  const h = createHash('sha256');
  for (let i = chunk * CHUNK; i < (chunk + 1) * CHUNK; i++) {
    h.update(JSON.stringify(extractIocs(texts[i] as string, optionsOf(i))));
    h.update('\n');
  }
  return h.digest('hex').slice(0, 16);
}

describe('extraction output over 80,000 seeded texts', () => {
  // eight tests of five chunks each, so that a slow machine does not hit one test's timeout
  for (let part = 0; part < 8; part++) {
    it(`chunks ${part * 5}–${part * 5 + 4} match the digests recorded before the compact results`, () => {
      const chunks = [0, 1, 2, 3, 4].map((k) => part * 5 + k);
      const digests = chunks.map(chunkDigest);
      if (process.env.EXTRACT_DIGESTS === 'print') console.log(JSON.stringify(digests));
      expect(digests).toEqual(chunks.map((c) => RECORDED[c]));
    }, 120_000);
  }

  it('the compact columns read the same as the objects, for every indicator, span and dropped candidate', () => {
    for (let i = 0; i < texts.length; i += 16) {
      const text = texts[i] as string;
      const x = scanIocs(text, optionsOf(i));
      const { iocs, dropped } = extractIocs(text, optionsOf(i));
      expect(x.size).toBe(iocs.length);
      expect(x.droppedSize).toBe(dropped.length);
      iocs.forEach((ioc, j) => {
        const fromColumns = {
          kind: x.kind(j),
          value: x.value(j),
          normalizedValue: x.normalizedValue(j),
          confidence: x.confidence(j),
          spans: Array.from({ length: x.spanCount(j) }, (_, k) => ({ start: x.spanStart(j, k), end: x.spanEnd(j, k) })),
          defanged: x.defanged(j),
          ...(x.subtype(j) ? { subtype: x.subtype(j) } : {}),
        };
        expect(fromColumns).toEqual(ioc);
        expect({ start: x.start(j), end: x.end(j) }).toEqual(ioc.spans[0]);
      });
      dropped.forEach((d, k) => {
        const fromColumns = {
          kind: x.droppedKind(k),
          value: x.droppedValue(k),
          reason: x.droppedReason(k),
          span: { start: x.droppedStart(k), end: x.droppedEnd(k) },
          category: x.droppedCategory(k),
          ...(x.droppedNormalizedValue(k) !== undefined ? { normalizedValue: x.droppedNormalizedValue(k) } : {}),
        };
        expect(fromColumns).toEqual(d);
      });
    }
  }, 120_000);
});
