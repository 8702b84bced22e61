import { maxHeaderSize } from 'node:http';
import { availableParallelism } from 'node:os';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CONNECT_TIMEOUT_MS, poolConfig, QUERY_TIMEOUT_GRACE_MS } from '../../src/db/database.js';
import { OrgCache } from '../../src/db/org-cache.js';
import type { DB } from '../../src/db/types.js';
import { maxNesting } from '../../src/graphql/input-limits.js';
import { DEFAULT_LIMITS, MAX_WALK_STEPS } from '../../src/graphql/limits.js';
import { HEAVY_GRAPHQL_COST, HEAVY_PAGE, LARGE_GRAPHQL_COST } from '../../src/http/admission.js';
import { READY_TIMEOUT_MS } from '../../src/http/health.js';
import { LINGER_MAX_BYTES, LINGER_MAX_MS } from '../../src/http/lingering-close.js';
import { MemoryRateLimitStore, REDIS_OPTIONS } from '../../src/http/rate-limit-store.js';
import { MAX_TILE_FEATURES } from '../../src/modules/maps/tiles.js';
import { MAX_FILTER_LIST } from '../../src/modules/properties/property-type.js';
import { MAX_MULTI_SELECT } from '../../src/modules/properties/select.js';
import { MAX_TEXT_LENGTH } from '../../src/modules/properties/text.js';
import { DEFAULT_GROUPS, MAX_GROUP_KEYS } from '../../src/modules/records/aggregate.js';
import {
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_SEARCH_LENGTH,
} from '../../src/modules/records/filter.js';
import { MAX_GEOMETRY_POSITIONS } from '../../src/modules/records/geo.js';
import { MAX_ORDER_KEYS } from '../../src/modules/records/order.js';
import { MAX_PROPERTIES_PER_WRITE } from '../../src/modules/records/validate.js';
import { claimIdempotent, findIdempotent } from '../../src/modules/sync/repository.js';
import { MAX_BULK_ITEMS } from '../../src/modules/sync/types.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../src/pagination/connection.js';

/**
 * The defaults SECURITY.md's limits table states. The tests linked from each row show the limit
 * holding (often at a smaller configured value, to stay fast); this pins the values the table
 * names, so a changed default fails here until the table changes with it.
 */
describe('the defaults of SECURITY.md "Limits and their defaults"', () => {
  test('settings read from the environment', () => {
    expect(loadConfig({})).toMatchObject({
      bodyLimit: 1_048_576,
      statementTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      admission: { slots: 1, maxWaitMs: 20_000 },
      largeAdmission: { slots: 2 * availableParallelism(), maxWaitMs: 20_000 },
      rateLimit: { perSecond: 50, burst: 200, address: { perSecond: 20, burst: 100 } },
      subscriptions: {
        perKey: 100,
        perProcess: 10_000,
        perOrg: 500,
        costPerOrg: 20_000,
        eventsPerOrg: 2,
        queuePerSocket: 1_000,
        inFlightPerSocket: 8,
        queuedBytesPerSocket: 16 * 1024 * 1024,
        recheckMs: 2_000,
      },
      webhooks: {
        timeoutMs: 10_000,
        maxFailures: 15,
        concurrency: 16,
        perOrg: 4,
        perEndpoint: 2,
        maxEndpointsPerOrg: 25,
      },
    });
    expect(DEFAULT_LIMITS).toMatchObject({
      maxDepth: 20,
      maxCost: 100_000,
      maxAliases: 30,
      maxRootFields: 20,
      maxFields: 2000,
      maxInputDepth: 32,
      maxQueryBytes: 20_000,
      maxTokens: 5000,
    });
  });

  test('fixed bounds', () => {
    expect({ LINGER_MAX_BYTES, LINGER_MAX_MS }).toEqual({
      LINGER_MAX_BYTES: 8 * 1024 * 1024,
      LINGER_MAX_MS: 5000,
    });
    expect({ QUERY_TIMEOUT_GRACE_MS, CONNECT_TIMEOUT_MS, READY_TIMEOUT_MS }).toEqual({
      QUERY_TIMEOUT_GRACE_MS: 2000,
      CONNECT_TIMEOUT_MS: 5000,
      READY_TIMEOUT_MS: 2000,
    });
    expect({ HEAVY_PAGE, HEAVY_GRAPHQL_COST, LARGE_GRAPHQL_COST }).toEqual({
      HEAVY_PAGE: 1000,
      HEAVY_GRAPHQL_COST: 20_000,
      LARGE_GRAPHQL_COST: 5_000,
    });
    // Node's own bound on the request line and headers: the gateway sets none of its own.
    expect(maxHeaderSize).toBe(16 * 1024);
    expect({ DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE }).toEqual({ DEFAULT_PAGE_SIZE: 100, MAX_PAGE_SIZE: 5000 });
    expect(maxNesting(DEFAULT_LIMITS)).toBe(104);
    expect(MAX_WALK_STEPS).toBe(100_000);
    expect(new MemoryRateLimitStore().maxEntries).toBe(100_000);
    expect({ MAX_TEXT_LENGTH, MAX_PROPERTIES_PER_WRITE, MAX_MULTI_SELECT }).toEqual({
      MAX_TEXT_LENGTH: 10_000,
      MAX_PROPERTIES_PER_WRITE: 200,
      MAX_MULTI_SELECT: 100,
    });
    expect({
      MAX_FILTER_DEPTH,
      MAX_FILTER_CONDITIONS,
      MAX_FILTER_LIST,
      MAX_ORDER_KEYS,
      MAX_SEARCH_LENGTH,
    }).toEqual({
      MAX_FILTER_DEPTH: 8,
      MAX_FILTER_CONDITIONS: 100,
      MAX_FILTER_LIST: 200,
      MAX_ORDER_KEYS: 5,
      MAX_SEARCH_LENGTH: 200,
    });
    expect({ MAX_GROUP_KEYS, DEFAULT_GROUPS }).toEqual({ MAX_GROUP_KEYS: 2, DEFAULT_GROUPS: 100 });
    expect({ MAX_TILE_FEATURES, MAX_GEOMETRY_POSITIONS, MAX_BULK_ITEMS }).toEqual({
      MAX_TILE_FEATURES: 20_000,
      MAX_GEOMETRY_POSITIONS: 50_000,
      MAX_BULK_ITEMS: 1000,
    });
  });

  describe('fixed inside functions', () => {
    afterEach(() => void vi.useRealTimers());

    test('an idempotency key is kept 24 hours: its lookup and its claim look back exactly that far', async () => {
      const parameters: unknown[][] = [];
      const db = new Kysely<DB>({
        dialect: {
          createAdapter: () => new PostgresAdapter(),
          createDriver: () => new DummyDriver(),
          createIntrospector: (k) => new PostgresIntrospector(k),
          createQueryCompiler: () => new PostgresQueryCompiler(),
        },
        log: (e) => void parameters.push([...e.query.parameters]),
      });
      vi.useFakeTimers({ toFake: ['Date'] });
      const now = Date.parse('2025-03-10T12:00:00.000Z');
      vi.setSystemTime(now);
      await findIdempotent(db, 'org', 'key');
      await claimIdempotent(db, 'org', 'key', 'hash');
      const dayAgo = new Date(now - 24 * 3600_000).toISOString();
      expect(parameters).toHaveLength(2);
      for (const p of parameters) expect(p).toContain(dayAgo);
    });

    test('Redis for the rate limit: 250 ms per command (the retry once a second: test/rate-limit.test.ts)', () => {
      expect(REDIS_OPTIONS.commandTimeout).toBe(250);
    });
  });
});

test('a server pool: TCP keepalive from 10 s idle, the connect and pool-wait timeout, 10 connections', () => {
  expect(poolConfig({ url: 'postgres://x@h/db' })).toMatchObject({
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: 10_000,
    max: 10,
  });
});

describe('the bounds docs/scaling.md states', () => {
  test('the org cache holds 5,000 entries, dropping the least recently used', () => {
    const cache = new OrgCache();
    for (let i = 0; i < 5_000; i++) cache.put(`org-${i}`, 1, 'schema', i);
    // Read the oldest, so org-1 is now the least recently used.
    expect(cache.peek('org-0', 1, 'schema')).toBe(0);
    cache.put('org-5000', 1, 'schema', 5_000);
    expect(cache.peek('org-1', 1, 'schema')).toBeUndefined();
    expect(cache.peek('org-0', 1, 'schema')).toBe(0);
    expect(cache.peek('org-2', 1, 'schema')).toBe(2);
    expect(cache.peek('org-5000', 1, 'schema')).toBe(5_000);
  });
});
