import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { Metrics } from '../src/observability/metrics.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';

/**
 * Issue 42's paper cuts on the HTTP side: /metrics on the API port says where the metrics are, and
 * an automatic-persisted-query miss answers Apollo's standard shape, so Apollo Client (and urql)
 * send the query again with its text.
 */
const seeded = seededDatabase();
const metrics = new Metrics();
let app: FastifyInstance;
beforeAll(async () => {
  app = await buildApp({ database: seeded.database, metrics });
});
afterAll(async () => {
  await app?.close();
});

describe('GET /metrics on the API port', () => {
  test('answers 404 with a code and a message naming METRICS_PORT and its default, with or without a key', async () => {
    const anonymous = await client(app).get('/metrics');
    expect(anonymous.status).toBe(404);
    expect(anonymous.body.error.code).toBe('NOT_FOUND');
    const { message } = anonymous.body.error;
    expect(message).toMatch(/not served on the API port/);
    expect(message).toMatch(/METRICS_PORT \(unset by default, which turns metrics off\)/);
    expect(message).toMatch(/METRICS_HOST defaults to 127\.0\.0\.1/);
    expect(message).toMatch(/docs\/observability\.md/);
    // The same answer for a caller with a key: nothing about this process's own settings, no data.
    const withKey = await client(app, seeded.demo.users.alice.apiKey).get('/metrics');
    expect(withKey.status).toBe(404);
    expect(withKey.body).toEqual(anonymous.body);
    expect(withKey.raw).not.toMatch(/sdg_|process_|nodejs_/);
    // Other paths are unchanged: no key is still 401 first.
    expect((await client(app).get('/metricz')).status).toBe(401);
  });
});

describe('automatic persisted queries (Apollo APQ), trusted documents off', () => {
  const QUERY = '{ organizations { name } }';
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  const MISS = {
    errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
  };
  const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

  test('an unknown hash answers PERSISTED_QUERY_NOT_FOUND over POST and GET; the retry with the text registers it', async () => {
    const alice = client(app, seeded.demo.users.alice.apiKey);
    const hash = sha(QUERY);
    const errorsBefore = await metrics.registry.getSingleMetricAsString('sdg_graphql_errors_total');

    const post = await alice.post('/graphql', { extensions: apq(hash) });
    expect(post.status).toBe(200);
    expect(post.body).toEqual(MISS);
    // Apollo Client's GET carries Content-Type: application/json, which Apollo's CSRF check wants.
    const viaGet = (h: string) =>
      alice.send('GET', '/graphql', {
        query: { extensions: JSON.stringify(apq(h)) },
        headers: { 'content-type': 'application/json' },
      });
    const get = await viaGet(hash);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(MISS);
    // A step of the protocol, not an error: the error counter did not move.
    expect(await metrics.registry.getSingleMetricAsString('sdg_graphql_errors_total')).toBe(errorsBefore);

    // What Apollo Client does next: the same hash with the query text, then the hash alone works.
    const retry = await alice.post('/graphql', { query: QUERY, extensions: apq(hash) });
    expect(retry.status).toBe(200);
    expect(retry.body.data.organizations).toEqual([{ name: 'Sunfield Energy' }]);
    const again = await viaGet(hash);
    expect(again.body).toEqual(retry.body);

    // A hash that does not match its text is still the caller's mistake, a 400.
    const wrong = await alice.post('/graphql', { query: QUERY, extensions: apq(sha('other')) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  test('without a key the miss is a 401 first, as every /graphql request', async () => {
    const r = await client(app).post('/graphql', { extensions: apq(sha('{ __typename }')) });
    expect(r.status).toBe(401);
    expect(r.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
