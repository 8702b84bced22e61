import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';

test('webhook settings: documented defaults, and each read from the environment', () => {
  expect(loadConfig({}).webhooks).toEqual({
    deliver: true,
    allowPrivateTargets: false,
    maxFailures: 15,
    timeoutMs: 10_000,
    retryBaseMs: 10_000,
    retryMaxMs: 6 * 3_600_000,
    pollMs: 1_000,
    concurrency: 16,
    perOrg: 4,
    perEndpoint: 2,
    maxEndpointsPerOrg: 25,
  });
  expect(
    loadConfig({
      WEBHOOK_DELIVERY: '0',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      WEBHOOK_MAX_FAILURES: '3',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_MS: '200',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_CONCURRENCY: '2',
      WEBHOOK_ORG_CONCURRENCY: '3',
      WEBHOOK_ENDPOINT_CONCURRENCY: '1',
      WEBHOOK_MAX_ENDPOINTS_PER_ORG: '7',
    }).webhooks,
  ).toEqual({
    deliver: false,
    allowPrivateTargets: true,
    maxFailures: 3,
    timeoutMs: 1500,
    retryBaseMs: 100,
    retryMaxMs: 200,
    pollMs: 50,
    concurrency: 2,
    perOrg: 3,
    perEndpoint: 1,
    maxEndpointsPerOrg: 7,
  });
  expect(() => loadConfig({ WEBHOOK_MAX_FAILURES: 'many' })).toThrow(/WEBHOOK_MAX_FAILURES/);
});
