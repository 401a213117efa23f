/**
 * A step of the start on the debug log (LOG_LEVEL=debug): ms since the process began, this
 * process's CPU so far (user + system; PostgreSQL's is its own), and the monotonic clock in µs
 * that a `node --cpu-prof` profile's timestamps use, to cut a profile at the steps (the timeline of
 * docs/performance-history.md, issue 50 item 4). `fields` adds the step's own context.
 */
export function startStep(logger: { debug(obj: object, msg: string): void }, step: string, fields: Record<string, unknown> = {}): void {
  const cpu = process.cpuUsage();
  logger.debug({ ...fields, sinceProcessStartMs: Math.round(performance.now()), cpuMs: Math.round((cpu.user + cpu.system) / 1000), hrUs: Number(process.hrtime.bigint() / 1000n) }, `start: ${step}`);
}
