// @ts-check
/**
 * `npm start` runs `sh -c "node scripts/start.js"`: npm, then a shell, then this process. When
 * npm goes — SIGTERM from a process manager (npm passes it to the shell, which dies without
 * passing it on), SIGKILL, a closed terminal's npm — nothing told the server: it kept its port
 * and its embedded PostgreSQL, an orphan. So `npm start` watches the processes between it and
 * npm, and stops itself with SIGTERM (the ordinary clean stop: in-flight work finishes, the
 * database stops last) once one of them is gone.
 *
 * Watched: this process's parent (`process.ppid` changes when it dies: we are re-parented), and
 * on Linux each ancestor up to npm (gone from /proc, a zombie, or its pid now another process's:
 * its start time in /proc/<pid>/stat differs), because the shell outlives a SIGKILLed npm. npm's
 * own parent is not watched: `nohup npm start &` outlives the terminal it was typed in. Twice a second, on an unref'd timer: a few
 * microseconds each. Only under a package manager (`npm_lifecycle_event` set): `node
 * scripts/start.js` run by hand, or under nohup, is not tied to its parent.
 */
import fs from 'node:fs';

/** The shells a package manager runs scripts through (npm's `script-shell`, `sh` by default). */
const SHELLS = /^(sh|dash|bash|zsh|ash|busybox|ksh|mksh)$/;

/** @param {number} pid @returns {{ ppid: number, state: string, comm: string, start: string } | null} */
function procStat(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses; the start time is field 22.
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return { ppid: Number.parseInt(fields[1] ?? '', 10), state: fields[0] ?? '', comm: text.slice(text.indexOf('(') + 1, close), start: fields[19] ?? '' };
  } catch {
    return null;
  }
}

/**
 * The chain to watch: [parent, its parent, …] while the parent is a script shell, each with its
 * start time; on systems without /proc, the parent alone (its start unknown: null).
 * @returns {{ pid: number, start: string | null }[]}
 */
function ancestorsToPackageManager() {
  const chain = [];
  let pid = process.ppid;
  for (let depth = 0; depth < 4 && pid > 1; depth++) {
    const stat = procStat(pid);
    if (!stat) return chain.length ? chain : [{ pid, start: null }];
    chain.push({ pid, start: stat.start });
    // The shell's parent is the package manager: watch it too, then stop climbing.
    if (!SHELLS.test(stat.comm)) break;
    pid = stat.ppid;
  }
  return chain;
}

/**
 * Starts the watch when run by a package manager; `onGone` is called once, with what went.
 * @param {{ intervalMs?: number, onGone?: (what: string) => void }} [opts]
 */
export function stopWhenPackageManagerGoes(opts = {}) {
  if (!process.env.npm_lifecycle_event) return;
  const chain = ancestorsToPackageManager();
  if (!chain.length) return;
  const onGone =
    opts.onGone ??
    ((what) => {
      process.stderr.write(`rampart: ${what}; stopping (as on SIGTERM)\n`);
      process.kill(process.pid, 'SIGTERM');
    });
  const timer = setInterval(() => {
    const gone = whatWent(chain);
    if (!gone) return;
    clearInterval(timer);
    onGone(gone);
  }, opts.intervalMs ?? 500);
  timer.unref();
}

/** @param {{ pid: number, start: string | null }[]} chain @returns {string | null} */
function whatWent(chain) {
  if (process.ppid !== chain[0]?.pid) return `the process that started this one (pid ${chain[0]?.pid}, npm or its shell) is gone`;
  for (const { pid, start } of chain) {
    if (start === null) continue;
    const stat = procStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X' || stat.start !== start) return `npm (pid ${chain.at(-1)?.pid}), which started this process, is gone`;
  }
  return null;
}
