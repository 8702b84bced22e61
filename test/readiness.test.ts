import { pino } from 'pino';
import { expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { createRateLimitStore } from '../src/http/rate-limit-store.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';
import { logSink } from './helpers/logs.js';

const seeded = seededDatabase();
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const quiet = pino({ level: 'silent' });

test('/readyz reports the primary, the read pool and Redis, each with its state and time', async () => {
  const store = createRateLimitStore(REDIS_URL, quiet);
  const app = await buildApp({
    database: seeded.database,
    readDatabase: seeded.database,
    readinessChecks: [{ name: 'redis', required: false, ping: (ms) => store.ping!(ms) }],
  });
  try {
    const r = await client(app).get('/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'ready',
      checks: { primary: { status: 'up' }, read: { status: 'up' }, redis: { status: 'up' } },
    });
    expect(typeof r.body.checks.primary.ms).toBe('number');
    // /healthz does no I/O and says nothing about dependencies.
    expect((await client(app).get('/healthz')).body).toEqual({ status: 'ok' });
  } finally {
    await app.close();
    await store.close?.();
  }
});

test('Redis down is degraded (200: the rate limit falls back to memory); the reason is logged, not sent', async () => {
  const store = createRateLimitStore('redis://127.0.0.1:1', quiet);
  const { lines, logger } = logSink('warn');
  const app = await buildApp({
    database: seeded.database,
    logger,
    readinessChecks: [{ name: 'redis', required: false, ping: (ms) => store.ping!(ms) }],
  });
  try {
    for (let i = 0; i < 2; i++) {
      const r = await client(app).get('/readyz');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'degraded',
        checks: { primary: { status: 'up' }, redis: { status: 'down' } },
      });
      expect(r.raw).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    }
    // Once per change of state, not once per probe.
    expect(lines.filter((l) => l.dependency === 'redis')).toHaveLength(1);
  } finally {
    await app.close();
    await store.close?.();
  }
});

test('a required dependency that never answers: 503 within /readyz own timeout', async () => {
  const app = await buildApp({
    database: seeded.database,
    readyTimeoutMs: 300,
    readinessChecks: [{ name: 'read', required: true, ping: () => new Promise<void>(() => {}) }],
  });
  try {
    const started = Date.now();
    const r = await client(app).get('/readyz');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('5');
    expect(r.body).toMatchObject({
      status: 'unavailable',
      checks: { primary: { status: 'up' }, read: { status: 'down' } },
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    await app.close();
  }
});
