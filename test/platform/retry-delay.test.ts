import { describe, expect, it } from 'vitest';
import { describeDelay, retryDelaySeconds } from '../../src/platform/jobs/retry-delay.js';

describe('retryDelaySeconds', () => {
  it("follows graphile-worker's exp(min(attempts, 10)) seconds", () => {
    expect([1, 2, 3, 4, 5, 10, 11, 25].map(retryDelaySeconds)).toEqual([3, 7, 20, 55, 148, 22026, 22026, 22026]);
  });
  it('reads as a person would say it', () => {
    expect([3, 89, 148, 1097, 5401, 22026].map(describeDelay)).toEqual(['3 s', '89 s', '2.5 min', '18.3 min', '1.5 h', '6.1 h']);
  });
});
