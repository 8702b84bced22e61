import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import type { RateLimitConfig } from '../src/http/rate-limit.js';
import {
  createRateLimitStore,
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from '../src/http/rate-limit-store.js';
import { loggerOptions } from '../src/logger.js';
import { hashApiKey } from '../src/modules/auth/keys.js';
import { seededDatabase } from './helpers/database.js';
import { TcpProxy } from './helpers/tcp-proxy.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const seeded = seededDatabase();

/** Log lines of an app, parsed. */
function logSink() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: pino(loggerOptions('info'), stream) };
}

/** A gateway listening on a real port, with the given limiter. */
async function serve(store: RateLimitStore, config: RateLimitConfig, extra: { trustProxy?: string } = {}) {
  const sink = logSink();
  const app = await buildApp({
    database: seeded.database,
    rateLimit: { store, config },
    logger: sink.logger,
    exposeStatementCount: true,
    ...extra,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, lines: sink.lines, close: () => app.close() };
}

const get = (url: string, key?: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/organizations/v1`, { headers: { ...(key ? { 'x-api-key': key } : {}), ...headers } });

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
      // A key's first request in a process counts against its address; from then on, its own bucket.
      expect((await get(s.url, key)).headers.get('ratelimit-limit')).toBe('100');
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
    const prefix = `sdg:test:${randomBytes(4).toString('hex')}:`;
    const a = await serve(new RedisRateLimitStore(new Redis(REDIS_URL), prefix), {
      perSecond: 0.5,
      burst: 4,
    });
    const b = await serve(new RedisRateLimitStore(new Redis(REDIS_URL), prefix), {
      perSecond: 0.5,
      burst: 4,
    });
    try {
      const key = seeded.demo.users.vera.apiKey;
      // Each process learns the key is valid from its first request (charged to the address).
      expect([(await get(a.url, key)).status, (await get(b.url, key)).status]).toEqual([200, 200]);
      const statuses = [];
      for (const s of [a, b, a, b, a, b]) statuses.push((await get(s.url, key)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      // The key's bucket is named by the hash authentication looks the key up by, never the key.
      expect(await redis.keys(`${prefix}k:*`)).toEqual([`${prefix}k:${hashApiKey(key)}`]);
      expect((await redis.keys(`${prefix}*`)).join()).not.toContain(key);
    } finally {
      await a.close();
      await b.close();
      const left = await redis.keys(`${prefix}*`);
      if (left.length) await redis.del(...left);
      await redis.quit();
    }
  });

  test('Redis down: requests are limited by this process meanwhile, and it is logged once', async () => {
    // A port nothing listens on: Redis refuses every connection.
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const sink = logSink();
    const store = createRateLimitStore(`redis://127.0.0.1:${port}`, sink.logger);
    const s = await serve(store, { perSecond: 0.5, burst: 2 });
    try {
      const key = seeded.demo.users.bob.apiKey;
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await get(s.url, key)).status);
      // First request via the address bucket, then the key's burst of 2 from this process's memory.
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const warned = sink.lines.filter((l) => l.level === 40 && /Redis\) unavailable/.test(l.msg));
      expect(warned).toHaveLength(1);
    } finally {
      await s.close();
      await store.close?.();
    }
  });

  test('Redis silent (packets dropped): requests are not held, the process limits meanwhile', async (ctx) => {
    const redis = await redisAvailable();
    if (!redis) return ctx.skip(`no Redis at ${REDIS_URL}`);
    await redis.quit();
    const target = new URL(REDIS_URL);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
    const sink = logSink();
    const store = createRateLimitStore(`redis://127.0.0.1:${proxy.port}`, sink.logger);
    const s = await serve(store, { perSecond: 0.5, burst: 2 });
    try {
      const key = seeded.demo.users.bob.apiKey;
      expect((await get(s.url, key)).status).toBe(200);
      proxy.blackhole();
      const statuses = [];
      const t = Date.now();
      for (let i = 0; i < 4; i++) statuses.push((await get(s.url, key)).status);
      expect(statuses).toEqual([200, 200, 429, 429]);
      // One wait for the 250 ms command timeout, then a second of not asking.
      expect(Date.now() - t).toBeLessThan(2_000);
      expect(sink.lines.filter((l) => /Redis\) unavailable/.test(l.msg))).toHaveLength(1);
    } finally {
      proxy.restore();
      await s.close();
      await store.close?.();
      await proxy.down();
    }
  });
});

describe('requests without a valid key: a budget per client address', () => {
  test('a different junk key with every request is limited before any database work, and adds nothing to the store', async () => {
    const store = new MemoryRateLimitStore();
    const s = await serve(store, { perSecond: 1, burst: 2, address: { perSecond: 0.001, burst: 20 } });
    try {
      const tenant = seeded.demo.users.alice.apiKey;
      expect((await get(s.url, tenant)).status).toBe(200);
      const answers = [];
      for (let i = 0; i < 60; i++) {
        const r = await get(s.url, `sdg_${randomBytes(32).toString('base64url')}`);
        answers.push({ status: r.status, sql: Number(r.headers.get('x-sql-statements')) });
      }
      // The tenant's first request took one token of the address's 20.
      expect(answers.filter((a) => a.status === 401)).toHaveLength(19);
      const limited = answers.filter((a) => a.status === 429);
      expect(limited).toHaveLength(41);
      expect(limited.every((a) => a.sql === 0)).toBe(true);
      // Only the address's bucket and the tenant's key bucket exist.
      expect(store.size).toBe(1);
      // The tenant, from the same address, is not affected: its key has its own budget.
      expect((await get(s.url, tenant)).status).toBe(200);
      // Requests without any key count too, and get the same 429.
      expect((await get(s.url)).status).toBe(429);
      // The liveness probe never counts.
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  test('X-Forwarded-For is believed only from TRUST_PROXY proxies', async () => {
    const cfg = { perSecond: 1, burst: 5, address: { perSecond: 0.001, burst: 2 } };
    const send = (app: Awaited<ReturnType<typeof serve>>['app'], xff: string, remoteAddress: string) =>
      app.inject({ url: '/organizations/v1', headers: { 'x-forwarded-for': xff }, remoteAddress });
    // Not trusted: a client cannot pick a fresh address by sending the header.
    const open = await serve(new MemoryRateLimitStore(), cfg);
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await send(open.app, `198.51.100.${i}`, '203.0.113.9')).statusCode);
      expect(statuses).toEqual([401, 401, 429, 429]);
    } finally {
      await open.close();
    }
    // Behind a trusted proxy, each forwarded client has its own budget; the proxy's own address does not count.
    const proxied = await serve(new MemoryRateLimitStore(), cfg, { trustProxy: '10.0.0.0/8' });
    try {
      const statuses = [];
      for (const client of ['198.51.100.1', '198.51.100.1', '198.51.100.1', '198.51.100.2'])
        statuses.push((await send(proxied.app, client, '10.1.2.3')).statusCode);
      expect(statuses).toEqual([401, 401, 429, 401]);
      // A sender outside the trusted range is judged by its own address, whatever it forwards.
      const direct = [];
      for (let i = 0; i < 3; i++)
        direct.push((await send(proxied.app, `192.0.2.${i}`, '203.0.113.50')).statusCode);
      expect(direct).toEqual([401, 401, 429]);
    } finally {
      await proxied.close();
    }
  });
});
