import fs from 'node:fs';

/** utime + stime in seconds of `pid`, or of every process whose parent is `pid` too, exited ones included (Linux /proc; null elsewhere). */
export function cpuSeconds(pid: number | null | undefined, withChildren = false): number | null {
  if (!pid) return null;
  const read = (d: string | number) => {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    } catch {
      return null;
    }
  };
  let total = 0;
  let found = false;
  const dirs = withChildren ? fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)) : [String(pid)];
  for (const d of dirs) {
    const f = read(d);
    if (f && (Number(d) === pid || (withChildren && Number(f[1]) === pid))) {
      total += (Number(f[11]) + Number(f[12])) / 100;
      // With children: those that exited (a pool's idle backend, an autovacuum worker) are in the
      // parent's cutime/cstime once reaped; without them the figure could drop during a run.
      if (withChildren && Number(d) === pid) total += (Number(f[13]) + Number(f[14])) / 100;
      found = true;
    }
  }
  return found ? total : null;
}
