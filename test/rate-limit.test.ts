import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import {
  MemoryRateLimitStore,
  type RateLimitConfig,
  type RateLimitStore,
  RedisRateLimitStore,
} from '../src/http/rate-limit.js';
import { seededDatabase } from './helpers/database.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const seeded = seededDatabase();

/** A gateway listening on a real port, with the given limiter. */
async function serve(store: RateLimitStore, config: RateLimitConfig) {
  const app = await buildApp({ database: seeded.database, rateLimit: { store, config } });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

const get = (url: string, key: string) => fetch(`${url}/organizations/v1`, { headers: { 'x-api-key': key } });

async function redisAvailable() {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  try {
    await r.connect();
    await r.ping();
    return r;
  } catch {
    r.disconnect();
    return undefined;
  }
}

describe('rate limiting per API key (token bucket)', () => {
  test('over a real connection: the burst passes, then 429 with Retry-After and RateLimit headers', async () => {
    const s = await serve(new MemoryRateLimitStore(), { perSecond: 1, burst: 3 });
    try {
      const key = seeded.demo.users.bob.apiKey;
      const ok = [await get(s.url, key), await get(s.url, key), await get(s.url, key)];
      expect(ok.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(ok[0].headers.get('ratelimit-limit')).toBe('3');
      expect(ok.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
      const limited = await get(s.url, key);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
      // Another key has its own budget.
      expect((await get(s.url, seeded.demo.users.alice.apiKey)).status).toBe(200);
      // The bucket refills.
      await new Promise((r) => setTimeout(r, 1100));
      expect((await get(s.url, key)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  test('with Redis, two gateway instances share one budget', async (ctx) => {
    const redis = await redisAvailable();
    if (!redis) return ctx.skip(`no Redis at ${REDIS_URL}`);
    const prefix = await redis.keys('sdg:rl:*');
    if (prefix.length) await redis.del(...prefix);
    const a = await serve(new RedisRateLimitStore(new Redis(REDIS_URL)), { perSecond: 0.5, burst: 4 });
    const b = await serve(new RedisRateLimitStore(new Redis(REDIS_URL)), { perSecond: 0.5, burst: 4 });
    try {
      const key = seeded.demo.users.vera.apiKey;
      const statuses = [];
      for (const s of [a, b, a, b, a, b]) statuses.push((await get(s.url, key)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await a.close();
      await b.close();
      await redis.quit();
    }
  });

  test('when the store fails, requests are served (availability over strictness)', async () => {
    const broken: RateLimitStore = {
      kind: 'redis',
      take: async () => Promise.reject(new Error('connection refused')),
    };
    const s = await serve(broken, { perSecond: 1, burst: 1 });
    try {
      for (let i = 0; i < 3; i++) expect((await get(s.url, seeded.demo.users.bob.apiKey)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
