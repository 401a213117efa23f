import { Readable } from 'node:stream';

/**
 * A stream of the generator's chunks whose first chunk is already read: an error of the first
 * query (bad input the database refuses, an outage) becomes the response's status instead of a
 * 200 cut short.
 */
export async function primedStream(gen: AsyncGenerator<string>): Promise<Readable> {
  const first = await gen.next();
  async function* rest() {
    if (!first.done) yield first.value;
    yield* gen;
  }
  return Readable.from(rest());
}
