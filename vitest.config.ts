import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // A bound on a hang, not on speed. 20 s was too near what the heavier integration tests take
    // on a loaded CI machine: with vitest pinned to a core two busy loops shared, single tests
    // took 10-16 s (osv-shards, approvals-slack-journey, worker-capacity, startup-imports) and
    // the six-case evaluation went past 20 s. Tests that spawn processes set their own, longer.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll's own default (1 s) is a deadline on the event it waits for, and a loaded CI
    // machine (load 15, Node 24) can take longer than that to get there: the poll then fails a
    // correct run. The bound only turns a hang into a failure; it stays under testTimeout, so the
    // failure names the poll, not the test's timer.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // Two cores on CI machines; test files each get their own database, so they can overlap.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
