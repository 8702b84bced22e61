import { expect, test } from 'vitest';
import { type Measured, summarizeRounds } from '../runner.js';

/** `npm run bench -- --rounds N`: how one scenario and concurrency is summed up over its rounds. */
const run = (rps: number, cpu: number, rss: number): Measured => ({
  connections: 16,
  durationSec: 8,
  requests: rps * 8,
  rps,
  latencyMs: { p50: 1, p95: 2, p99: 3, mean: 1, max: 4 },
  errors: 0,
  errorDetail: { non2xx: 0, connection: 0, timeouts: 0 },
  bodyBytes: 100,
  wireBytes: 200,
  sql: { min: 2, max: 2, mean: 2 },
  peakRssMb: rss,
  startRssMb: rss - 10,
  cpuMsPerRequest: cpu,
});

test('the ratio is the median of the rounds, the runs are the median round, the peak RSS the highest', () => {
  const r = summarizeRounds(16, [
    { g: run(80, 1.5, 200), b: run(100, 1.0, 120) }, // 0.80
    { g: run(60, 1.6, 260), b: run(100, 1.0, 130) }, // 0.60, the gateway's highest RSS
    { g: run(90, 1.4, 210), b: run(100, 1.1, 125) }, // 0.90
  ]);
  expect(r.ratio).toBe(0.8);
  expect(r.roundRatios).toEqual([0.8, 0.6, 0.9]);
  expect(r.cpuRatio).toBe(1.5);
  expect(r.gateway.rps).toBe(80);
  expect(r.baseline?.rps).toBe(100);
  expect(r.gateway.peakRssMb).toBe(260);
  expect(r.baseline?.peakRssMb).toBe(130);
});

test('one round is that round, and a scenario without a floor keeps only the gateway', () => {
  const one = summarizeRounds(1, [{ g: run(50, 2, 150), b: run(100, 1, 100) }]);
  expect(one).toMatchObject({ ratio: 0.5, cpuRatio: 2 });
  expect(one.roundRatios).toBeUndefined();
  expect(summarizeRounds(1, [{ g: run(50, 2, 150) }])).toEqual({ connections: 1, gateway: run(50, 2, 150) });
});
