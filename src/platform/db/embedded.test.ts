import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { asError, EmbeddedStartError, startEmbeddedDatabase } from './embedded.js';

describe('asError', () => {
  it('keeps Errors and wraps anything else with context, never printing a bare undefined', () => {
    const e = new Error('boom');
    expect(asError(e, 'x')).toBe(e);
    expect(asError(undefined, 'starting the embedded PostgreSQL').message).toBe('starting the embedded PostgreSQL failed without a reason');
    expect(asError('port taken', 'start-up').message).toBe('start-up failed: port taken');
    expect(asError({ code: 1 }, 'start-up').message).toBe('start-up failed: {"code":1}');
  });
});

describe('the data directory', () => {
  it('says plainly when RAMPART_DATA_DIR cannot be a folder, before anything starts', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-datadir-'));
    try {
      const file = path.join(parent, 'not-a-folder');
      fs.writeFileSync(file, '');
      for (const dataDir of [file, path.join(file, 'below')]) {
        const err = await startEmbeddedDatabase(dataDir).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(EmbeddedStartError);
        expect((err as Error).message).toBe(
          `The data directory ${dataDir} (RAMPART_DATA_DIR) cannot be created: it, or a folder above it, is a file.\n  What to do: point RAMPART_DATA_DIR at a folder this user can write, or create it with that owner.`,
        );
      }
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
