import { availableParallelism } from 'node:os';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  test('reads every setting from the environment it is given, not only from process.env', () => {
    const cfg = loadConfig({
      PORT: '4100',
      BODY_LIMIT_BYTES: '2048',
      STATEMENT_TIMEOUT_MS: '500',
      RATE_LIMIT_PER_SECOND: '0.5',
      RATE_LIMIT_BURST: '3',
      REQUEST_TIMEOUT_MS: '1000',
      HEAVY_REQUEST_SLOTS: '0',
      HEAVY_REQUEST_WAIT_MS: '10',
      LARGE_REQUEST_SLOTS: '3',
      DATABASE_URL: 'postgres://x@h/db',
      DATABASE_LISTEN_URL: 'postgres://x@primary/db',
      CHANGE_LOG_RETENTION_DAYS: '7',
      GRAPHQL_PLANS: '0',
      SUBSCRIPTIONS_PER_KEY: '5',
      SUBSCRIPTIONS_PER_PROCESS: '50',
      SUBSCRIPTIONS_QUEUE_PER_SOCKET: '0',
    });
    expect(cfg).toMatchObject({
      changeLogRetentionDays: 7,
      graphqlPlans: false,
      // A queue of 0 would close every socket at its first event: the least is 1.
      subscriptions: { perKey: 5, perProcess: 50, queuePerSocket: 1 },
      port: 4100,
      bodyLimit: 2048,
      statementTimeoutMs: 500,
      rateLimit: { perSecond: 0.5, burst: 3 },
      requestTimeoutMs: 1000,
      admission: { slots: 0, maxWaitMs: 10 },
      largeAdmission: { slots: 3, maxWaitMs: 10 },
      databaseUrl: 'postgres://x@h/db',
      databaseListenUrl: 'postgres://x@primary/db',
    });
  });

  test('defaults where unset; a bad number names the variable', () => {
    expect(loadConfig({})).toMatchObject({
      port: 4000,
      bodyLimit: 1_048_576,
      rateLimit: { perSecond: 50, burst: 200 },
      changeLogRetentionDays: 90,
      graphqlPlans: true,
      subscriptions: { perKey: 100, perProcess: 10_000, queuePerSocket: 1_000 },
      // docs/operations.md: LARGE_REQUEST_SLOTS defaults to two per core, waiting as heavy requests do.
      largeAdmission: { slots: 2 * availableParallelism(), maxWaitMs: 20_000 },
    });
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT must be a non-negative integer, got "eighty"/);
    expect(() => loadConfig({ RATE_LIMIT_PER_SECOND: '-1' })).toThrow(/RATE_LIMIT_PER_SECOND/);
  });
});
