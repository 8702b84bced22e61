import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CONNECT_TIMEOUT_MS, QUERY_TIMEOUT_GRACE_MS } from '../../src/db/database.js';
import { DEFAULT_LIMITS, MAX_WALK_STEPS } from '../../src/graphql/limits.js';
import { HEAVY_GRAPHQL_COST, HEAVY_PAGE } from '../../src/http/admission.js';
import { READY_TIMEOUT_MS } from '../../src/http/health.js';
import { LINGER_MAX_BYTES, LINGER_MAX_MS } from '../../src/http/lingering-close.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.js';
import { MAX_FILTER_LIST } from '../../src/modules/properties/property-type.js';
import { MAX_MULTI_SELECT } from '../../src/modules/properties/select.js';
import { MAX_TEXT_LENGTH } from '../../src/modules/properties/text.js';
import {
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_SEARCH_LENGTH,
} from '../../src/modules/records/filter.js';
import { MAX_ORDER_KEYS } from '../../src/modules/records/order.js';
import { MAX_PROPERTIES_PER_WRITE } from '../../src/modules/records/validate.js';

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
    expect({ HEAVY_PAGE, HEAVY_GRAPHQL_COST }).toEqual({ HEAVY_PAGE: 1000, HEAVY_GRAPHQL_COST: 20_000 });
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
  });
});
