import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { MemoryRateLimitStore } from '../src/http/rate-limit-store.js';
import { Metrics } from '../src/observability/metrics.js';
import { REFUSAL_LOG_INTERVAL_MS } from '../src/observability/sampling.js';
import { seededDatabase } from './helpers/database.js';
import { logSink } from './helpers/logs.js';

/**
 * A flood of refusals by a limit writes a few log lines, not one each: per code, the first, then at
 * most one a second carrying how many were held back. The metrics still count every refusal.
 */
const seeded = seededDatabase();
const sink = logSink('info');
const metrics = new Metrics();
let app: Awaited<ReturnType<typeof buildApp>>;

beforeAll(async () => {
  app = await buildApp({
    database: seeded.database,
    logger: sink.logger,
    metrics,
    rateLimit: { store: new MemoryRateLimitStore(), config: { perSecond: 0.01, burst: 2 } },
  });
});
afterAll(async () => {
  await app?.close();
});

const refusalLines = (code: string) =>
  sink.lines.filter((l) => l.msg === 'request refused or failed' && l.code === code);

describe('refusals are logged sampled', () => {
  test('a burst of 429s writes one line, and the next line after the interval says how many were held back', async () => {
    const key = seeded.demo.users.alice.apiKey;
    const get = () => app.inject({ url: '/organizations/v1', headers: { 'x-api-key': key } });
    const t0 = performance.now();
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await get()).statusCode);
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThanOrEqual(190);
    // The burst fits in one interval on any machine this runs on; if not, one more line is allowed.
    const intervals = Math.ceil((performance.now() - t0) / REFUSAL_LOG_INTERVAL_MS);
    const burst = refusalLines('RATE_LIMITED');
    expect(burst.length).toBeGreaterThanOrEqual(1);
    expect(burst.length).toBeLessThanOrEqual(intervals);
    expect(burst[0].suppressed).toBeUndefined();
    expect(burst[0].status).toBe(429);

    await sleep(REFUSAL_LOG_INTERVAL_MS + 50);
    expect((await get()).statusCode).toBe(429);
    const after = refusalLines('RATE_LIMITED');
    expect(after.length).toBe(burst.length + 1);
    // Every refusal of the burst is in a line, or counted in one.
    const held = after.reduce((n, l) => n + (l.suppressed ?? 0), 0);
    expect(after.length + held).toBe(refused + 1);
    expect(after.at(-1)?.suppressed).toBeGreaterThan(0);

    const text = await metrics.registry.metrics();
    expect(text).toContain(`sdg_limit_refusals_total{code="RATE_LIMITED"} ${refused + 1}\n`);
  });

  test("refusals by Node's parser (431 HEADERS_TOO_LARGE) are sampled too", async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as net.AddressInfo).port;
    const tooLong = () =>
      new Promise<string>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        let response = '';
        s.on('data', (d) => {
          response += d;
        });
        s.on('error', () => {});
        s.on('close', () => resolve(response));
        s.write(`GET /organizations/v1?startKey=${'x'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
    const answers = await Promise.all(Array.from({ length: 20 }, tooLong));
    for (const a of answers) expect(a).toMatch(/^HTTP\/1.1 431/);
    expect(refusalLines('HEADERS_TOO_LARGE').length).toBeLessThanOrEqual(2);
  });
  test('a burst of bodies over the limit (413 PAYLOAD_TOO_LARGE) writes a line per interval, and counts each', async () => {
    const small = await buildApp({
      database: seeded.database,
      logger: sink.logger,
      metrics,
      bodyLimit: 1024,
    });
    try {
      const body = JSON.stringify({ query: `{ __typename }`, pad: 'x'.repeat(4096) });
      const t0 = performance.now();
      for (let i = 0; i < 20; i++) {
        const r = await small.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json' },
          payload: body,
        });
        expect(r.statusCode).toBe(413);
      }
      const intervals = Math.ceil((performance.now() - t0) / REFUSAL_LOG_INTERVAL_MS);
      const lines = refusalLines('PAYLOAD_TOO_LARGE');
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThanOrEqual(intervals);
      expect(lines.length + lines.reduce((n, l) => n + (l.suppressed ?? 0), 0)).toBeLessThanOrEqual(20);
      expect(await metrics.registry.metrics()).toContain(
        `sdg_limit_refusals_total{code="PAYLOAD_TOO_LARGE"} 20\n`,
      );
    } finally {
      await small.close();
    }
  });
});
