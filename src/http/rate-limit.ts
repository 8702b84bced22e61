import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { sendError } from './errors.js';

/** Token bucket: `burst` tokens, refilled at `perSecond`; one request takes one token. */
export interface RateLimitConfig {
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
  take(key: string, cfg: RateLimitConfig, nowMs: number): Promise<TakeResult>;
  close?(): Promise<void>;
}

function settle(tokens: number, allowed: boolean, cfg: RateLimitConfig): TakeResult {
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((cfg.burst - tokens) / cfg.perSecond),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / cfg.perSecond)),
  };
}

/** Buckets in this process: exact for one instance; each replica counts on its own. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = 'memory' as const;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  async take(key: string, cfg: RateLimitConfig, now: number): Promise<TakeResult> {
    const b = this.buckets.get(key) ?? { tokens: cfg.burst, at: now };
    b.tokens = Math.min(cfg.burst, b.tokens + ((now - b.at) / 1000) * cfg.perSecond);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.buckets.set(key, b);
    // Full buckets carry no information; dropping them bounds memory by the number of busy keys.
    if (this.buckets.size > 100_000)
      for (const [k, v] of this.buckets) if (v.tokens >= cfg.burst) this.buckets.delete(k);
    return settle(b.tokens, allowed, cfg);
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
  quit(): Promise<unknown>;
}

export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis' as const;
  constructor(private readonly redis: RedisLike) {}

  async take(key: string, cfg: RateLimitConfig, now: number): Promise<TakeResult> {
    const [allowed, tokens] = (await this.redis.eval(
      TAKE_SCRIPT,
      1,
      `sdg:rl:${key}`,
      now,
      cfg.burst,
      cfg.perSecond,
    )) as [number, string];
    return settle(Number(tokens), allowed === 1, cfg);
  }

  async close() {
    await this.redis.quit();
  }
}

/** The bucket key: a hash of the presented key, so raw keys never sit in memory maps or Redis. */
function bucketKey(req: FastifyRequest): string | undefined {
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string' || !key) return undefined;
  return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}

/**
 * Rate limits every request that carries an API key, before authentication (so guessing keys is
 * limited too). Answers 429 with Retry-After; every response carries the RateLimit-* headers.
 * A store failure (Redis down) lets the request through and is logged: availability over strictness.
 */
export function installRateLimit(app: FastifyInstance, store: RateLimitStore, cfg: RateLimitConfig) {
  app.addHook('onRequest', async (req, reply) => {
    const key = bucketKey(req);
    if (!key) return;
    let r: TakeResult;
    try {
      r = await store.take(key, cfg, Date.now());
    } catch (err) {
      req.log.warn({ err: (err as Error).message }, 'rate limit store unavailable; request not limited');
      return;
    }
    reply.header('RateLimit-Limit', String(cfg.burst));
    reply.header('RateLimit-Remaining', String(r.remaining));
    reply.header('RateLimit-Reset', String(r.resetSeconds));
    reply.header('RateLimit-Policy', `${cfg.burst};w=${Math.ceil(cfg.burst / cfg.perSecond)}`);
    if (!r.allowed) {
      reply.header('Retry-After', String(r.retryAfterSeconds));
      const err = new AppError(
        'RATE_LIMITED',
        `Too many requests for this API key: ${cfg.perSecond} per second with bursts of ${cfg.burst}. Retry after ${r.retryAfterSeconds} s.`,
      );
      return sendError(req, reply, err);
    }
  });
}
