/**
 * The one poller of the tests: waits for an observable event, never for a time.
 *
 * Every wait names what it waits for, so a failure says what was awaited and what was there
 * (the probe's last value, or its last error). The bound only turns a hang into that failure:
 * the default (60 s) is vitest's testTimeout, and a call site's own bound stays far above any
 * expected wait, so a loaded machine makes a test slower, not red.
 */

/** What `until` hands back: the probe's value once it is truthy. */
export type Truthy<T> = Exclude<T, null | undefined | false | 0 | 0n | ''>;

export interface UntilOptions {
  /** The bound on a hang (default 60_000 ms). */
  timeoutMs?: number;
  /** The pause between probes (default 25 ms); never past the deadline. */
  everyMs?: number;
  /** More state for the failure message, read at the timeout (e.g. the calls a fake saw). */
  context?: () => string;
}

const SHOWN = 500;

/**
 * Polls `probe` until it returns a truthy value, and returns that value. A probe that throws
 * counts as "not yet" (a row not there, a server not up); its last error goes in the failure.
 * The probe runs once more at the deadline, so a slow last pause cannot miss the event.
 */
export async function until<T>(what: string, probe: () => T | Promise<T>, opts: UntilOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 60_000, everyMs = 25, context } = opts;
  const deadline = Date.now() + timeoutMs;
  let seen: { value: T } | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as Truthy<T>;
      seen = { value };
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    await new Promise((r) => setTimeout(r, Math.min(everyMs, left)));
  }
  const last = lastError !== undefined ? `last error: ${errorText(lastError)}` : seen ? `last value: ${shown(seen.value)}` : 'no value';
  const extra = context ? `; ${cut(context())}` : '';
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${last}${extra})`);
}

function errorText(err: unknown): string {
  return cut(err instanceof Error ? err.message : String(err));
}

function shown(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Circular or a BigInt: its string form still says what was there.
  }
  return cut(text ?? String(value));
}

function cut(text: string): string {
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
}
