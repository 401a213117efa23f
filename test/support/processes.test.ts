import { describe, expect, it } from 'vitest';
import { killNow, spawnLogged, untilOutput } from './processes.js';

/** A child that prints `lines` (one every 20 ms), then exits with `code` or, without one, waits to be killed. */
function child(lines: string[], code?: number) {
  const script = `const lines = ${JSON.stringify(lines)}; let i = 0;
    const t = setInterval(() => { if (i < lines.length) console.log(lines[i++]); else { clearInterval(t); ${code === undefined ? 'setInterval(() => {}, 1000);' : `process.exit(${code});`} } }, 20);`;
  return spawnLogged(process.execPath, ['-e', script], {});
}

describe('untilOutput', () => {
  it('returns what the match found once the child printed it', async () => {
    const c = child(['starting', 'in-window 0199-abc', 'more']);
    expect(await untilOutput(c, 'the window', (out) => /in-window (\S+)/.exec(out)?.[1])).toBe('0199-abc');
    await killNow(c);
    expect(c.child.signalCode).toBe('SIGKILL');
  });

  // Without the exit check, until would time out instead (another message, after 60 s).
  it('fails at once, with the output, when the child exits before printing it', async () => {
    const c = child(['boom: cannot connect'], 3);
    await expect(untilOutput(c, 'the child to be ready', (out) => out.includes('ready'))).rejects.toThrow(
      /the child exited \(code 3, signal null\) before the child to be ready:\nboom: cannot connect/,
    );
  });
});
