import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { MemoryRateLimitStore, type RateLimitStore, RedisRateLimitStore } from './rate-limit.js';

/** Redis when REDIS_URL is set (shared by every replica), else this process's memory, with a log line. */
export function createRateLimitStore(
  redisUrl: string | undefined,
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>,
): RateLimitStore {
  if (!redisUrl) {
    log.info('rate limit counters are kept in memory (set REDIS_URL to share them across replicas)');
    return new MemoryRateLimitStore();
  }
  const redis = new Redis(redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
  });
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis error (rate limit)'));
  return new RedisRateLimitStore(redis);
}
