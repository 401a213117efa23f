/**
 * The modes of a worker lane (one graphile-worker pool, runner.ts), kept the way graphile-worker's
 * LocalQueue keeps its own: every change goes through `setLaneMode`, which throws on a transition
 * the table below does not list. A lane is `starting` until its pool runs; `running`;
 * `replacing` after its pool ended without stop() (graphile-worker ends a pool that cannot record
 * a job's end) until a new pool runs or the attempts run out (`failed`); `stopping` from stop()
 * until its pool has ended (`stopped`). So a pool can never be started for a lane that stop()
 * has reached, nor a stopped lane be counted as ending twice: such a bug throws where it happens.
 */
export type LaneMode = 'starting' | 'running' | 'replacing' | 'stopping' | 'stopped' | 'failed';

export const LANE_TRANSITIONS: Readonly<Record<LaneMode, readonly LaneMode[]>> = {
  starting: ['running', 'stopping'],
  running: ['replacing', 'stopping'],
  replacing: ['running', 'stopping', 'failed'],
  stopping: ['stopped'],
  stopped: [],
  failed: [],
};

/** What holds a mode: a lane, named in the error. */
export interface HasLaneMode {
  readonly name: string;
  mode: LaneMode;
}

/** Moves `lane` to `to`, or throws when the table does not allow it (a bug in the runner, never a runtime condition). */
export function setLaneMode(lane: HasLaneMode, to: LaneMode): void {
  if (!LANE_TRANSITIONS[lane.mode].includes(to)) throw new Error(`worker lane "${lane.name}": illegal mode transition ${lane.mode} → ${to}`);
  lane.mode = to;
}

/** Whether stop() has reached the lane (it is ending or has ended): no new pool may start for it. */
export function laneStopping(lane: HasLaneMode): boolean {
  return lane.mode === 'stopping' || lane.mode === 'stopped';
}
