import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { declareKeyHash, presentedKeyHash } from './auth.js';
import { sendError } from './errors.js';
import {
  type Bucket,
  FallbackRateLimitStore,
  MemoryRateLimitStore,
  type RateLimitStore,
} from './rate-limit-store.js';

export type { RateLimitStore } from './rate-limit-store.js';

/** The rate limit: a token bucket per API key, and one per client address for everything else. */
export interface RateLimitConfig extends Bucket {
  /**
   * The budget of each client address for requests without a known-valid key: no key, an unknown or
   * revoked key, or a key's first request in this process. DEFAULT_ADDRESS_LIMIT unless given.
   */
  address?: Bucket;
}

export const DEFAULT_ADDRESS_LIMIT = { perSecond: 20, burst: 100 };

/**
 * The client address that anonymous budgets are kept by: the socket's peer, or with TRUST_PROXY the
 * address the trusted proxies report (Fastify's `req.ip`). An IPv6 client controls its whole /64, so
 * the /64 is one client.
 */
export function clientAddress(ip: string): string {
  if (ip.startsWith('::ffff:') && !isIPv6(ip.slice(7))) return ip.slice(7);
  if (!isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.split('::');
  const groups = head ? head.split(':') : [];
  const missing = 8 - groups.length - (tail ? tail.split(':').length : 0);
  const full = [...groups, ...Array(Math.max(0, missing)).fill('0'), ...(tail ? tail.split(':') : [])];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Fastify's `trustProxy` from TRUST_PROXY: addresses or CIDRs as given, a hop count as the function
 * proxy-addr would build from it, and nothing trusted by default.
 */
export function trustedProxies(
  setting: string | number | undefined,
): string | ((a: string, hop: number) => boolean) | false {
  if (setting === undefined) return false;
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

/** The client address of a raw request (an upgrade), read as Fastify reads `req.ip` for others. */
export function upgradeAddress(trust: ReturnType<typeof trustedProxies>): (req: IncomingMessage) => string {
  if (!trust) return (req) => req.socket.remoteAddress ?? '';
  const fn = typeof trust === 'string' ? proxyAddr.compile(trust.split(',').map((t) => t.trim())) : trust;
  return (req) => proxyAddr(req, fn);
}

/** Keys seen to authenticate in this process (hashes only), most recent last; bounded. */
class KnownKeys {
  private readonly keys = new Map<string, true>();
  constructor(private readonly max = 10_000) {}
  has(k: string) {
    return this.keys.has(k);
  }
  add(k: string) {
    this.keys.delete(k);
    this.keys.set(k, true);
    if (this.keys.size > this.max) this.keys.delete(this.keys.keys().next().value!);
  }
  delete(k: string) {
    this.keys.delete(k);
  }
}

/** Paths that never count: the liveness probe does no work. */
const UNLIMITED = new Set(['/healthz']);

/**
 * Rate limits every request before authentication. A request whose key authenticated before (in
 * this process) takes from that key's bucket; every other request (no key, an unknown or revoked
 * key, a key's first request) takes from its client address's bucket. So guessing keys, or sending
 * a different junk key with every request, is limited per address, before any database work, and
 * junk keys add nothing to the store. Answers 429 with Retry-After; every response carries the
 * RateLimit-* headers.
 */
export function installRateLimit(
  app: FastifyInstance,
  store: RateLimitStore,
  cfg: RateLimitConfig,
  /** Told of each refusal and which bucket refused it (metrics). */
  onRefused?: (scope: 'key' | 'address') => void,
  /** The proxies believed (trustedProxies(TRUST_PROXY)), to read an upgrade's client address as req.ip does. */
  trust: ReturnType<typeof trustedProxies> = false,
) {
  const address = cfg.address ?? DEFAULT_ADDRESS_LIMIT;
  // A shared store that fails falls back to this process's buckets (createRateLimitStore's does already).
  const limiter =
    store.kind === 'memory' || store instanceof FallbackRateLimitStore
      ? store
      : new FallbackRateLimitStore(store, new MemoryRateLimitStore(), app.log);
  const known = new KnownKeys();
  const ipOf = upgradeAddress(trust);
  // WebSocket upgrades never reach the hooks below: they take from the same address bucket here
  // (src/graphql/subscriptions.ts asks before completing the handshake).
  app.decorate('admitUpgrade', async (req: IncomingMessage) => {
    const r = await limiter.take(`a:${clientAddress(ipOf(req))}`, address, Date.now());
    if (!r.allowed) onRefused?.('address');
    return r;
  });
  // Operations that arrive on an open WebSocket take from their key's bucket here, the same budget
  // as the key's HTTP requests (src/graphql/subscriptions.ts asks for each subscribe message).
  app.decorate('takeKeyBudget', async (keyHash: string) => {
    const r = await limiter.take(`k:${keyHash}`, cfg, Date.now());
    if (!r.allowed) onRefused?.('key');
    return r;
  });
  declareKeyHash(app);
  // Buckets are named by the key's hash (presentedKeyHash), so raw keys never sit in memory maps or
  // Redis. Whether the key is valid is known after authentication.
  app.addHook('onRequest', async (req, reply) => {
    if (UNLIMITED.has(req.url.split('?')[0])) return;
    const hash = presentedKeyHash(req);
    const byKey = hash !== undefined && known.has(hash);
    const bucket = byKey ? cfg : address;
    const r = await limiter.take(byKey ? `k:${hash}` : `a:${clientAddress(req.ip)}`, bucket, Date.now());
    reply.header('RateLimit-Limit', String(bucket.burst));
    reply.header('RateLimit-Remaining', String(r.remaining));
    reply.header('RateLimit-Reset', String(r.resetSeconds));
    reply.header('RateLimit-Policy', `${bucket.burst};w=${Math.ceil(bucket.burst / bucket.perSecond)}`);
    if (!r.allowed) {
      onRefused?.(byKey ? 'key' : 'address');
      const err = new AppError(
        'RATE_LIMITED',
        byKey
          ? `Too many requests for this API key: ${bucket.perSecond} per second with bursts of ${bucket.burst}. Retry after ${r.retryAfterSeconds} s.`
          : `Too many requests without a valid API key from this address: ${bucket.perSecond} per second with bursts of ${bucket.burst}. Retry after ${r.retryAfterSeconds} s, with a valid key in X-API-Key.`,
        undefined,
        r.retryAfterSeconds,
      );
      return sendError(req, reply, err);
    }
  });
  // Authentication sets req.ctx; a 401 means the key is unknown or was revoked since.
  app.addHook('onResponse', (req, reply, done) => {
    const hash = presentedKeyHash(req);
    if (hash !== undefined && req.ctx) known.add(hash);
    else if (hash !== undefined && reply.statusCode === 401) known.delete(hash);
    done();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Takes a WebSocket upgrade from its client address's budget; absent when rate limiting is off. */
    admitUpgrade?: (req: IncomingMessage) => Promise<{ allowed: boolean; retryAfterSeconds: number }>;
    /** Takes one operation from a key's budget (by its hash); absent when rate limiting is off. */
    takeKeyBudget?: (keyHash: string) => Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  }
}
