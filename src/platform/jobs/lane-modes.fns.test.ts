import { describe, expect, it } from 'vitest';
import { LANE_TRANSITIONS, laneStopping, setLaneMode, type HasLaneMode, type LaneMode } from './lane-modes.fns.js';

const lane = (mode: LaneMode): HasLaneMode => ({ name: 'shared', mode });

describe('worker lane modes', () => {
  it('follows a lane through start, a dead pool replaced, and stop', () => {
    const l = lane('starting');
    for (const to of ['running', 'replacing', 'running', 'stopping', 'stopped'] as const) {
      setLaneMode(l, to);
      expect(l.mode).toBe(to);
    }
  });

  it('ends a lane whose pool cannot be restarted as failed, and stops one during its replacement', () => {
    const failed = lane('replacing');
    setLaneMode(failed, 'failed');
    expect(failed.mode).toBe('failed');
    const stopped = lane('replacing');
    setLaneMode(stopped, 'stopping');
    expect(laneStopping(stopped)).toBe(true);
  });

  it('throws on every transition the table does not list, and leaves the mode as it was', () => {
    const modes = Object.keys(LANE_TRANSITIONS) as LaneMode[];
    let refused = 0;
    for (const from of modes) {
      for (const to of modes) {
        if (LANE_TRANSITIONS[from].includes(to)) continue;
        const l = lane(from);
        expect(() => setLaneMode(l, to)).toThrow(`worker lane "shared": illegal mode transition ${from} → ${to}`);
        expect(l.mode).toBe(from);
        refused++;
      }
    }
    // Among them: a pool restarted after stop() began, a stopped lane ending again, a failed lane revived.
    expect(refused).toBe(36 - 8);
    expect(() => setLaneMode(lane('stopping'), 'running')).toThrow('stopping → running');
    expect(() => setLaneMode(lane('stopped'), 'stopped')).toThrow('stopped → stopped');
    expect(() => setLaneMode(lane('failed'), 'running')).toThrow('failed → running');
  });
});
