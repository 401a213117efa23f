import { describe, expect, it } from 'vitest';
import { LANE_TRANSITIONS, laneStopping, setLaneMode, type HasLaneMode, type LaneMode, type LaneModeChange } from './lane-modes.fns.js';

const lane = (mode: LaneMode): HasLaneMode => ({ name: 'shared', mode });
const MODES = Object.keys(LANE_TRANSITIONS) as LaneMode[];

describe('worker lane modes', () => {
  it('follows a lane through start, a dead pool replaced, and stop, reporting each change', () => {
    const l = lane('starting');
    const changes: LaneModeChange[] = [];
    for (const to of ['running', 'replacing', 'running', 'stopping', 'stopped'] as const) {
      setLaneMode(l, to, (c) => changes.push(c));
      expect(l.mode).toBe(to);
    }
    expect(changes.map((c) => `${c.from}→${c.to}`)).toEqual(['starting→running', 'running→replacing', 'replacing→running', 'running→stopping', 'stopping→stopped']);
    expect(changes.every((c) => c.lane === 'shared')).toBe(true);
  });

  it('ends a lane whose pool cannot be restarted as failed, and stops one during its replacement', () => {
    const failed = lane('replacing');
    setLaneMode(failed, 'failed');
    expect(failed.mode).toBe('failed');
    expect(laneStopping(failed)).toBe(false);
    const stopped = lane('replacing');
    setLaneMode(stopped, 'stopping');
    expect(laneStopping(stopped)).toBe(true);
    setLaneMode(stopped, 'stopped');
    expect(laneStopping(stopped)).toBe(true);
  });

  it('throws on every transition the table does not list, leaves the mode as it was and reports nothing', () => {
    let refused = 0;
    const changes: LaneModeChange[] = [];
    for (const from of MODES) {
      for (const to of MODES) {
        if (LANE_TRANSITIONS[from].includes(to)) continue;
        const l = lane(from);
        expect(() => setLaneMode(l, to, (c) => changes.push(c))).toThrow(`worker lane "shared": illegal mode transition ${from} → ${to}`);
        expect(l.mode).toBe(from);
        refused++;
      }
    }
    // 36 pairs, 7 allowed.
    expect(refused).toBe(36 - 7);
    expect(changes).toEqual([]);
    // Among them: a pool started after stop() began, a lane ending twice, a failed lane revived, a stop before the first pool runs.
    expect(() => setLaneMode(lane('stopping'), 'running')).toThrow('stopping → running');
    expect(() => setLaneMode(lane('stopped'), 'stopped')).toThrow('stopped → stopped');
    expect(() => setLaneMode(lane('failed'), 'running')).toThrow('failed → running');
    expect(() => setLaneMode(lane('starting'), 'stopping')).toThrow('starting → stopping');
  });
});
