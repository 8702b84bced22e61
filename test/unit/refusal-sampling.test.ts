import { describe, expect, test } from 'vitest';
import { RefusalSampler, refusalSampler } from '../../src/observability/sampling.js';

/** A sampler on a clock the test moves. */
function sampler(intervalMs = 1_000) {
  const clock = { ms: 0 };
  return { clock, s: new RefusalSampler(intervalMs, () => clock.ms) };
}

describe('RefusalSampler', () => {
  test('logs the first refusal of a code, holds back the rest of the interval, then reports how many', () => {
    const { clock, s } = sampler();
    expect(s.take('RATE_LIMITED')).toEqual({});
    for (let i = 0; i < 500; i++) {
      clock.ms += 1;
      expect(s.take('RATE_LIMITED')).toBeUndefined();
    }
    clock.ms = 1_000;
    expect(s.take('RATE_LIMITED')).toEqual({ suppressed: 500 });
    clock.ms = 1_500;
    expect(s.take('RATE_LIMITED')).toBeUndefined();
    clock.ms = 2_000;
    expect(s.take('RATE_LIMITED')).toEqual({ suppressed: 1 });
  });

  test('a burst writes one line per interval, whatever its rate', () => {
    const { clock, s } = sampler();
    let lines = 0;
    let suppressed = 0;
    // 10,000 refusals a second for 5 s.
    for (let i = 0; i < 50_000; i++) {
      clock.ms = i / 10;
      const r = s.take('RATE_LIMITED');
      if (r) {
        lines++;
        suppressed += r.suppressed ?? 0;
      }
    }
    expect(lines).toBe(5);
    // Every refusal is either logged or counted in a later line, but for the last interval's.
    expect(lines + suppressed).toBe(50_000 - 9_999);
  });

  test('each code has its own interval', () => {
    const { s } = sampler();
    expect(s.take('RATE_LIMITED')).toEqual({});
    expect(s.take('PAYLOAD_TOO_LARGE')).toEqual({});
    expect(s.take('QUERY_TOO_COMPLEX')).toEqual({});
    expect(s.take('RATE_LIMITED')).toBeUndefined();
    expect(s.take('PAYLOAD_TOO_LARGE')).toBeUndefined();
  });

  test('a 5xx is never sampled', () => {
    const { s } = sampler();
    for (let i = 0; i < 100; i++) {
      expect(s.take('OVERLOADED')).toEqual({});
      expect(s.take('INTERNAL')).toEqual({});
    }
  });

  test('one sampler per app, so two apps in a process count apart', () => {
    const a = {};
    const b = {};
    expect(refusalSampler(a)).toBe(refusalSampler(a));
    expect(refusalSampler(a)).not.toBe(refusalSampler(b));
    expect(refusalSampler(a).take('RATE_LIMITED')).toEqual({});
    expect(refusalSampler(b).take('RATE_LIMITED')).toEqual({});
    expect(refusalSampler(a).take('RATE_LIMITED')).toBeUndefined();
  });
});
