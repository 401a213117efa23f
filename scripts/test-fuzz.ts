import { spawnSync } from 'node:child_process';

/**
 * `npm run test:fuzz [-- --long] [-- --seed N]`: the API fuzz test alone. `--long` is the
 * nightly-style mode (ten minutes, many more runs per operation), the same as FUZZ_LONG=1.
 */
const args = process.argv.slice(2);
const env = { ...process.env };
if (args.includes('--long')) env.FUZZ_LONG = '1';
const seedAt = args.indexOf('--seed');
if (seedAt >= 0 && args[seedAt + 1]) env.FUZZ_SEED = args[seedAt + 1];
const result = spawnSync('npx', ['vitest', 'run', 'test/security/api-fuzz.test.ts'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
