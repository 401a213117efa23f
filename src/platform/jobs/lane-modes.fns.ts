/**
 * The modes of a worker lane (one graphile-worker pool, runner.ts), kept the way graphile-worker's
 * LocalQueue keeps its own (`mode`, changed only through `setMode`): every change goes through
 * `setLaneMode`, which throws on a transition the table below does not list and reports the ones
 * it makes. So a pool can never be started for a lane that stop() has reached, nor a lane end
 * twice: such a bug throws where it happens instead of leaving a pool running after stop().
 *
 * - `starting`: its first pool is being launched (startWorkers);
 * - `running`: its pool takes jobs;
 * - `replacing`: its pool ended without stop() (graphile-worker ends a pool that cannot record a
 *   job's end, e.g. while the database restarts): a new pool is started once the database answers;
 * - `stopping`: stop() was called; the lane waits for its pool (a restart under way included) to end;
 * - `stopped`: its pool ended after stop();
 * - `failed`: its pool could not be restarted within the attempts (the runner's `done` rejects).
 */
export type LaneMode = 'starting' | 'running' | 'replacing' | 'stopping' | 'stopped' | 'failed';

export const LANE_TRANSITIONS: Readonly<Record<LaneMode, readonly LaneMode[]>> = {
  starting: ['running'],
  running: ['replacing', 'stopping'],
  replacing: ['running', 'stopping', 'failed'],
  stopping: ['stopped'],
  stopped: [],
  failed: [],
};

/** What holds a mode: a lane, named in the error and in the report. */
export interface HasLaneMode {
  readonly name: string;
  mode: LaneMode;
}

export interface LaneModeChange {
  lane: string;
  from: LaneMode;
  to: LaneMode;
}

/**
 * Moves `lane` to `to` and reports the change to `onChange` (the runner logs it), or throws when
 * the table does not allow it, leaving the mode as it was: an illegal transition is a bug in the
 * runner, never a runtime condition.
 */
export function setLaneMode(lane: HasLaneMode, to: LaneMode, onChange?: (change: LaneModeChange) => void): void {
  const from = lane.mode;
  if (!LANE_TRANSITIONS[from].includes(to)) throw new Error(`worker lane "${lane.name}": illegal mode transition ${from} → ${to}`);
  lane.mode = to;
  onChange?.({ lane: lane.name, from, to });
}

/** Whether stop() has reached the lane (it is ending or has ended): no new pool may start for it. */
export function laneStopping(lane: HasLaneMode): boolean {
  return lane.mode === 'stopping' || lane.mode === 'stopped';
}
