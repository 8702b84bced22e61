import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

/** A token bucket: `burst` tokens, refilled at `perSecond`; one request takes one token. */
export interface Bucket {
  perSecond: number;
  burst: number;
}

export interface TakeResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset), or until one token is back (Retry-After). */
  resetSeconds: number;
  retryAfterSeconds: number;
}

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  take(key: string, cfg: Bucket, nowMs: number): Promise<TakeResult>;
  /** A shared store answers within `timeoutMs` (/readyz); rejects otherwise. */
  ping?(timeoutMs: number): Promise<void>;
  close?(): Promise<void>;
}

function settle(tokens: number, allowed: boolean, cfg: Bucket): TakeResult {
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((cfg.burst - tokens) / cfg.perSecond),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / cfg.perSecond)),
  };
}

/**
 * Buckets in this process: exact for one instance; each replica counts on its own.
 *
 * Memory and work per request are bounded whatever the number of keys seen: the map is kept in
 * least-recently-used order (a Map iterates in insertion order, and every take re-inserts its
 * bucket), each take drops at most two of the oldest buckets once they have refilled (a full bucket
 * carries no information), and past `maxEntries` the least recently used bucket goes.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = 'memory' as const;
  private readonly buckets = new Map<string, { tokens: number; at: number; fullAt: number }>();
  /** Buckets examined by the clean-up, for tests: at most 3 per take. */
  readonly stats = { examined: 0 };

  constructor(readonly maxEntries = 100_000) {}

  get size(): number {
    return this.buckets.size;
  }

  async take(key: string, cfg: Bucket, now: number): Promise<TakeResult> {
    const b = this.buckets.get(key) ?? { tokens: cfg.burst, at: now, fullAt: now };
    this.buckets.delete(key);
    b.tokens = Math.min(cfg.burst, b.tokens + ((now - b.at) / 1000) * cfg.perSecond);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    b.fullAt = now + ((cfg.burst - b.tokens) / cfg.perSecond) * 1000;
    this.sweep(now);
    this.buckets.set(key, b);
    return settle(b.tokens, allowed, cfg);
  }

  /** Drops the least recently used bucket past `maxEntries`, and up to two old ones that have refilled. */
  private sweep(now: number): void {
    let dropped = 0;
    for (const [k, v] of this.buckets) {
      this.stats.examined++;
      const over = this.buckets.size >= this.maxEntries;
      if (!over && (dropped >= 2 || v.fullAt > now)) break;
      this.buckets.delete(k);
      if (!over) dropped++;
    }
  }
}

/** The same bucket, kept in Redis and updated atomically by a script, so replicas share one budget. */
const TAKE_SCRIPT = `
local b = redis.call('HMGET', KEYS[1], 't', 'at')
local burst = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local now = tonumber(ARGV[1])
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}`;

export interface RedisLike {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  ping?(): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect?(): void;
}

export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis' as const;
  constructor(
    private readonly redis: RedisLike,
    private readonly prefix = 'sdg:rl:',
  ) {}

  async take(key: string, cfg: Bucket, now: number): Promise<TakeResult> {
    const [allowed, tokens] = (await this.redis.eval(
      TAKE_SCRIPT,
      1,
      `${this.prefix}${key}`,
      now,
      cfg.burst,
      cfg.perSecond,
    )) as [number, string];
    return settle(Number(tokens), allowed === 1, cfg);
  }

  async ping(timeoutMs: number) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis did not answer in time')), timeoutMs);
    });
    try {
      await Promise.race([this.redis.ping?.(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close() {
    // quit() waits for a reply, which a Redis that is down never sends.
    await this.redis.quit().catch(() => this.redis.disconnect?.());
  }
}

type Log = Pick<FastifyBaseLogger, 'info' | 'warn'>;

/**
 * The shared store, with this process's memory as the fallback while it fails. Redis down used to
 * let every request through unlimited; now each replica limits on its own meanwhile (a caller spread
 * over N replicas gets up to N budgets), logs the change once, and goes back to Redis by itself. While
 * Redis is failing it is tried again once every `retryMs`, so requests do not each wait for it.
 */
export class FallbackRateLimitStore implements RateLimitStore {
  readonly kind = 'redis' as const;
  private downUntil = 0;
  private down = false;

  constructor(
    private readonly primary: RateLimitStore,
    private readonly fallback: RateLimitStore,
    private readonly log: Log,
    private readonly retryMs = 1000,
  ) {}

  /** Whether requests are limited by the fallback now. */
  get degraded(): boolean {
    return this.down;
  }

  async take(key: string, cfg: Bucket, now: number): Promise<TakeResult> {
    if (this.down && now < this.downUntil) return this.fallback.take(key, cfg, now);
    try {
      const r = await this.primary.take(key, cfg, now);
      if (this.down) {
        this.down = false;
        this.log.info('rate limit store reachable again: limits are shared through Redis');
      }
      return r;
    } catch (err) {
      if (!this.down)
        this.log.warn(
          { err: (err as Error).message },
          'rate limit store (Redis) unavailable: limiting in this process’s memory until it is back',
        );
      this.down = true;
      this.downUntil = now + this.retryMs;
      return this.fallback.take(key, cfg, now);
    }
  }

  async ping(timeoutMs: number) {
    await this.primary.ping?.(timeoutMs);
  }

  async close() {
    await this.primary.close?.();
  }
}

/** The rate limit's Redis client settings (SECURITY.md's limits table states the command timeout). */
export const REDIS_OPTIONS = {
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
  lazyConnect: false,
  // A Redis that stops answering (no refusal) must not hold requests: fall back instead.
  commandTimeout: 250,
  connectTimeout: 2000,
} as const;

/** Redis when REDIS_URL is set (shared by every replica), else this process's memory, with a log line. */
export function createRateLimitStore(redisUrl: string | undefined, log: Log): RateLimitStore {
  if (!redisUrl) {
    log.info('rate limit counters are kept in memory (set REDIS_URL to share them across replicas)');
    return new MemoryRateLimitStore();
  }
  const redis = new Redis(redisUrl, REDIS_OPTIONS);
  // ioredis reports every reconnect attempt; one line per outage is enough.
  let reported = false;
  redis.on('error', (err) => {
    if (!reported) log.warn({ err: err.message }, 'redis error (rate limit)');
    reported = true;
  });
  redis.on('ready', () => {
    reported = false;
  });
  return new FallbackRateLimitStore(new RedisRateLimitStore(redis), new MemoryRateLimitStore(), log);
}
