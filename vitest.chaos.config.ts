import { defineConfig } from 'vitest/config';

/** `npm run test:chaos`: real processes killed at random points; bounded to a few minutes. */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.chaos.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    reporters: ['default'],
  },
});
