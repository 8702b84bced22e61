import { describe, expect, test } from 'vitest';
import { clientAddress, trustedProxies } from '../../src/http/rate-limit.js';
import {
  createRateLimitStore,
  FallbackRateLimitStore,
  MemoryRateLimitStore,
  type RateLimitStore,
} from '../../src/http/rate-limit-store.js';
import { logSink } from '../helpers/logs.js';

/** The in-process token buckets and the Redis fallback, without a server. */
const cfg = { perSecond: 10, burst: 5 };

describe('the in-memory store', () => {
  // It counts work rather than timing it; 150,000 takes need more than the 5 s default on a loaded machine.
  test('a flood of distinct keys keeps the map at its bound and the work per request constant', {
    timeout: 120_000,
  }, async () => {
    // The attack sent 100,000 junk keys; the old prune rescanned the whole map on every request.
    const store = new MemoryRateLimitStore();
    const n = 150_000;
    for (let i = 0; i < n; i++) await store.take(`junk-${i}`, cfg, 1_000);
    expect(store.size).toBe(store.maxEntries);
    expect(store.stats.examined / n).toBeLessThanOrEqual(4);
  });

  test('after the flood, refilled buckets are dropped as requests go on, two per request', async () => {
    const store = new MemoryRateLimitStore(10_000);
    for (let i = 0; i < 1_000; i++) await store.take(`junk-${i}`, cfg, 0);
    // 5 tokens at 10/s: every bucket is full again after 0.5 s.
    for (let i = 0; i < 499; i++) await store.take('tenant', cfg, 600 + i);
    expect(store.size).toBe(1 + 1_000 - 2 * 499);
    for (let i = 0; i < 10; i++) await store.take('tenant', cfg, 2_000 + i);
    expect(store.size).toBe(1);
  });

  test('at its bound the least recently used bucket goes, even one still draining', async () => {
    const store = new MemoryRateLimitStore(3);
    const drain = async (key: string, now: number) => {
      for (let i = 0; i < cfg.burst; i++) await store.take(key, cfg, now);
    };
    await drain('a', 0);
    await drain('b', 1);
    // `a` is used again (refused: still empty), so `b` is now the least recently used.
    expect((await store.take('a', cfg, 2)).allowed).toBe(false);
    await store.take('c', cfg, 3);
    await store.take('d', cfg, 4);
    expect(store.size).toBe(3);
    // `a` kept its count; `b` was dropped, so it starts again from a full bucket.
    expect((await store.take('a', cfg, 5)).allowed).toBe(false);
    expect(await store.take('b', cfg, 6)).toMatchObject({ allowed: true, remaining: cfg.burst - 1 });
  });

  test('a bucket that is still draining is kept, and keeps counting', async () => {
    const store = new MemoryRateLimitStore(10);
    const statuses: boolean[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await store.take('busy', cfg, 0)).allowed);
    expect(statuses).toEqual([true, true, true, true, true, false, false]);
    for (let i = 0; i < 5; i++) await store.take(`other-${i}`, cfg, 10);
    // 100 ms later one token is back, not a fresh bucket of five.
    const r = await store.take('busy', cfg, 100);
    expect(r).toMatchObject({ allowed: true, remaining: 0 });
  });
});

describe('the Redis fallback', () => {
  const failing = (): RateLimitStore & { calls: number; up: boolean } => {
    const s = {
      kind: 'redis' as const,
      calls: 0,
      up: false,
      async take() {
        s.calls++;
        if (!s.up) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
        return { allowed: true, remaining: 99, resetSeconds: 0, retryAfterSeconds: 0 };
      },
    };
    return s;
  };
  const logger = () => {
    const lines: { level: string; msg: string }[] = [];
    return {
      lines,
      info: (msg: unknown) => void lines.push({ level: 'info', msg: String(msg) }),
      warn: (_o: unknown, msg?: string) => void lines.push({ level: 'warn', msg: String(msg) }),
    };
  };

  test('limits in memory while Redis fails, logs the change once, and returns to Redis by itself', async () => {
    const redis = failing();
    const log = logger();
    const store = new FallbackRateLimitStore(redis, new MemoryRateLimitStore(), log as never, 1_000);
    const allowed: boolean[] = [];
    for (let i = 0; i < 7; i++) allowed.push((await store.take('k', cfg, 100 + i)).allowed);
    // Limited (not waved through) by this process's bucket.
    expect(allowed).toEqual([true, true, true, true, true, false, false]);
    expect(store.degraded).toBe(true);
    // Redis was tried once, then left alone until the retry interval passed.
    expect(redis.calls).toBe(1);
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    redis.up = true;
    await store.take('k', cfg, 500);
    expect(redis.calls).toBe(1);
    await store.take('k', cfg, 1_200);
    expect(redis.calls).toBe(2);
    expect(store.degraded).toBe(false);
    expect(log.lines.map((l) => l.level)).toEqual(['warn', 'info']);
  });
});

describe('createRateLimitStore', () => {
  test('without REDIS_URL it keeps the buckets in memory and says so in the log', () => {
    const { lines, logger } = logSink('info');
    const store = createRateLimitStore(undefined, logger);
    expect(store).toBeInstanceOf(MemoryRateLimitStore);
    expect(lines).toMatchObject([
      {
        level: 30,
        msg: 'rate limit counters are kept in memory (set REDIS_URL to share them across replicas)',
      },
    ]);
  });
});

describe('client addresses', () => {
  test('IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
    expect(clientAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientAddress('::1')).toBe('0:0:0:0::/64');
  });

  test('TRUST_PROXY: nothing by default, a hop count as the nearest hops', () => {
    expect(trustedProxies(undefined)).toBe(false);
    expect(trustedProxies('10.0.0.0/8, 127.0.0.1')).toBe('10.0.0.0/8, 127.0.0.1');
    const hops = trustedProxies(1) as (a: string, hop: number) => boolean;
    expect([hops('x', 0), hops('x', 1)]).toEqual([true, false]);
  });
});
