import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The service's logger buffers lines (src/platform/logger.ts): these prove no line waits for the
// buffer to fill, that none is lost when the process exits, and that redaction still applies.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const script = (body: string): string[] => [
  '--import',
  'tsx',
  '--input-type=module',
  '-e',
  `import { createLogger } from './src/platform/logger.ts';\nconst log = createLogger('info');\n${body}`,
];

describe('service logger', () => {
  it('writes every line at exit, even one logged just before process.exit', () => {
    const r = spawnSync(process.execPath, script(`log.info({ n: 1 }, 'first'); log.warn({ headers: { authorization: 'Bearer rk_secret' } }, 'second'); process.exit(3);`), {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(3);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.msg)).toEqual(['first', 'second']);
    expect(lines[1]!.headers).toEqual({ authorization: '[redacted]' });
    expect(r.stdout).not.toContain('rk_secret');
  });

  it('writes a line of a running process without waiting for more lines', async () => {
    // The child logs once and stays alive until its stdin closes: the line must arrive while it runs.
    const child = spawn(process.execPath, script(`log.info('alone'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`), {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        if (out.includes('\n')) resolve(out);
      });
      child.on('exit', () => reject(new Error(`child exited before writing its line (stdout: ${out})`)));
    });
    child.stdin.end();
    expect((JSON.parse(line.trim()) as { msg: string }).msg).toBe('alone');
  });
});
