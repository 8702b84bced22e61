import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { DEFAULT_COMPRESSION } from '../src/http/compression.js';
import { MemoryRateLimitStore } from '../src/http/rate-limit-store.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { a1, freshPortfolio, insertRecords } from './records-helpers.js';

/**
 * The HTTP edge as a browser front-end meets it (issue 14): CORS preflights without a key, CORS
 * headers on every answer to an allowed origin, and leniency where HTTP clients are sloppy.
 */
const ORIGIN = 'http://localhost:5173';
const preflight = (method: string, extra: Record<string, string> = {}) => ({
  origin: ORIGIN,
  'access-control-request-method': method,
  'access-control-request-headers': 'x-api-key,content-type',
  ...extra,
});

describe('CORS', () => {
  test('a preflight is answered 204 without a key, on /graphql and on REST paths', async ({ env }) => {
    for (const [url, method] of [
      ['/graphql', 'POST'],
      ['/projects/v1?orgId=x&portfolioId=y', 'POST'],
      ['/projects/v1/prj_x?orgId=x&portfolioId=y', 'DELETE'],
      ['/organizations/v1', 'GET'],
    ]) {
      const r = await env.app.inject({ method: 'OPTIONS', url, headers: preflight(method) });
      expect(r.statusCode, url).toBe(204);
      expect(r.headers['access-control-allow-origin'], url).toBe('*');
      expect(String(r.headers['access-control-allow-methods'])).toContain(method);
      const allowed = String(r.headers['access-control-allow-headers']).toLowerCase();
      expect(allowed).toContain('x-api-key');
      expect(allowed).toContain('content-type');
      expect(r.headers['access-control-max-age']).toBe('7200');
      expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  test('answers to a page carry the CORS headers and expose the rate-limit and request-id headers, errors too', async ({
    env,
  }) => {
    const ok = await env.as.alice.send('GET', '/organizations/v1', { headers: { origin: ORIGIN } });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const exposed = String(ok.headers['access-control-expose-headers']).toLowerCase();
    for (const h of [
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
      'x-request-id',
    ])
      expect(exposed).toContain(h);
    const denied = await env.as.anon.send('GET', '/organizations/v1', { headers: { origin: ORIGIN } });
    expect(denied.status).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe('*');
    // A request without Origin is not a browser's cross-origin call: no CORS headers.
    const plain = await env.as.alice.get('/organizations/v1');
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('CORS_ORIGINS as a list: a listed origin is echoed (with Vary: Origin), another gets no CORS headers', async ({
    env,
  }) => {
    const app = await buildApp({ database: env.database, corsOrigins: [ORIGIN, 'https://maps.example.com'] });
    try {
      const ok = await app.inject({ method: 'OPTIONS', url: '/graphql', headers: preflight('POST') });
      expect(ok.statusCode).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(String(ok.headers.vary)).toMatch(/origin/i);
      const other = await app.inject({
        method: 'OPTIONS',
        url: '/graphql',
        headers: preflight('POST', { origin: 'http://evil.example' }),
      });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      const get = await app.inject({
        method: 'GET',
        url: '/organizations/v1',
        headers: { origin: 'http://evil.example', 'x-api-key': env.demo.users.alice.apiKey },
      });
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  test('a 429 carries the CORS headers, so the page can read Retry-After; preflights are not limited', async ({
    env,
  }) => {
    const app = await buildApp({
      database: env.database,
      rateLimit: {
        store: new MemoryRateLimitStore(),
        config: { perSecond: 0.001, burst: 1, address: { perSecond: 0.001, burst: 1 } },
      },
    });
    try {
      const call = () => app.inject({ method: 'GET', url: '/organizations/v1', headers: { origin: ORIGIN } });
      await call();
      const limited = await call();
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['access-control-allow-origin']).toBe('*');
      expect(limited.headers['retry-after']).toBeDefined();
      const pre = await app.inject({ method: 'OPTIONS', url: '/graphql', headers: preflight('POST') });
      expect(pre.statusCode).toBe(204);
    } finally {
      await app.close();
    }
  });
});

describe('large answers', () => {
  // Serialized in pieces to UTF-8 bytes (src/http/json-bytes.ts) and sent as a Buffer: the type,
  // the length and the bytes must still be those of the JSON text, on both transports.
  const name = (i: number) => `Cañada del Sol ${i} — 日本 🌞 ${'x'.repeat(200)}`;
  const names = Array.from({ length: 100 }, (_, i) => name(i)).sort();
  /** A fresh portfolio of 100 projects with those names: any page of them is many pieces long. */
  async function hundredProjects(env: TestEnv) {
    const scope = await freshPortfolio(env);
    await insertRecords(
      env,
      'project',
      scope,
      Array.from({ length: 100 }, (_, i) => ({ name: { text: name(i) } })),
    );
    return scope;
  }
  // One insert gives the rows one creation time: pages order them by id, not by i.
  const sortedNames = (records: { properties: { name: { text: string } } }[]) =>
    records.map((p) => p.properties.name.text).sort();

  test('a REST page beyond Latin-1 carries its UTF-8 byte length and decodes to the same JSON, plain, br and gzip', async ({
    env,
  }) => {
    const scope = await hundredProjects(env);
    const get = (encoding: string) =>
      env.app.inject({
        method: 'GET',
        url: `/projects/v1?orgId=${scope.orgId}&portfolioId=${scope.portfolioId}&limit=100`,
        headers: { 'x-api-key': env.demo.users.alice.apiKey, 'accept-encoding': encoding },
      });
    const plain = await get('identity');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(plain.rawPayload.length).toBeGreaterThan(16_384);
    expect(Number(plain.headers['content-length'])).toBe(plain.rawPayload.length);
    const page = JSON.parse(plain.rawPayload.toString('utf8'));
    expect(sortedNames(page.items)).toEqual(names);
    const br = await get('br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString('utf8'))).toEqual(page);
    const gz = await get('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString('utf8'))).toEqual(page);
  });

  test('a GraphQL answer of the same records: the JSON and newline Apollo writes, as UTF-8 bytes of the right length', async ({
    env,
  }) => {
    const scope = await hundredProjects(env);
    const query = `query($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
      projects(first: 100) { nodes { id properties } } } } }`;
    const r = await env.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': env.demo.users.alice.apiKey, 'content-type': 'application/json' },
      payload: { query, variables: { o: scope.orgId, p: scope.portfolioId } },
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.rawPayload.length).toBeGreaterThan(16_384);
    expect(Number(r.headers['content-length'])).toBe(r.rawPayload.length);
    const text = r.rawPayload.toString('utf8');
    const answer = JSON.parse(text);
    expect(text).toBe(`${JSON.stringify(answer)}\n`);
    expect(sortedNames(answer.data.organization.portfolio.projects.nodes)).toEqual(names);
  });
});

describe('lenient HTTP', () => {
  test('a DELETE with Content-Type: application/json and no body succeeds', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const created = await env.as.alice.post(
      '/projects/v1',
      { properties: { name: { text: 'Gone' } } },
      scope,
    );
    expect(created.status).toBe(200);
    const r = await env.app.inject({
      method: 'DELETE',
      url: `/projects/v1/${created.body.id}?orgId=${scope.orgId}&portfolioId=${scope.portfolioId}`,
      headers: { 'x-api-key': env.demo.users.alice.apiKey, 'content-type': 'application/json' },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.body).toBe('');
    expect((await env.as.alice.get(`/projects/v1/${created.body.id}/contacts`, scope)).status).toBe(404);
  });

  test('an empty JSON body on a POST or PUT is still a 400', async ({ env }) => {
    const r = await env.app.inject({
      method: 'POST',
      url: `/projects/v1?orgId=${a1(env).orgId}&portfolioId=${a1(env).portfolioId}`,
      headers: { 'x-api-key': env.demo.users.alice.apiKey, 'content-type': 'application/json' },
    });
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body).error.code).toBe('BAD_REQUEST');
  });

  test('an empty startKey= means the first page', async ({ env }) => {
    const first = await env.as.alice.get('/projects/v1', { ...a1(env), limit: 2 });
    const empty = await env.as.alice.get('/projects/v1', { ...a1(env), limit: 2, startKey: '' });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(first.body);
  });

  test('unknown query parameters are ignored; known ones with bad values and near misses still get 400', async ({
    env,
  }) => {
    const first = await env.as.alice.get('/projects/v1', { ...a1(env), limit: 2 });
    const busted = await env.as.alice.get('/projects/v1', {
      ...a1(env),
      limit: 2,
      _: '1732333333',
      utm_source: 'newsletter',
    });
    expect(busted.status).toBe(200);
    expect(busted.body).toEqual(first.body);
    expect((await env.as.alice.get('/organizations/v1', { _: '1' })).status).toBe(200);
    const bad = await env.as.alice.get('/projects/v1', { ...a1(env), limit: 'abc', _: '1' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      { field: 'limit', reason: 'limit must be an integer from 1 to 5000' },
    ]);
    const twice = await env.as.alice.get('/projects/v1', { ...a1(env), limit: ['1', '2'] });
    expect(twice.status).toBe(400);
  });
});

describe('REST schema', () => {
  test('required properties say "required": true; others have no such member', async ({ env }) => {
    const projects = await env.as.alice.get('/projects/v1/schema', { orgId: a1(env).orgId });
    const name = projects.body.properties.find((p: { id: string }) => p.id === 'name');
    expect(name).toMatchObject({ id: 'name', property_type: 'text', required: true });
    const others = projects.body.properties.filter((p: { id: string }) => p.id !== 'name');
    expect(others.length).toBeGreaterThan(0);
    for (const p of others) expect(p).not.toHaveProperty('required');
    const contacts = await env.as.alice.get('/contacts/v1/schema', { orgId: a1(env).orgId });
    expect(contacts.body.properties.find((p: { id: string }) => p.id === 'first_name').required).toBe(true);
  });
});

describe('compression', () => {
  test('br and gzip are negotiated for large answers and decode to the same bytes', async ({ env }) => {
    const url = `/projects/v1?orgId=${a1(env).orgId}&portfolioId=${a1(env).portfolioId}&limit=50`;
    const get = (encoding?: string) =>
      env.app.inject({
        method: 'GET',
        url,
        headers: {
          'x-api-key': env.demo.users.alice.apiKey,
          ...(encoding ? { 'accept-encoding': encoding } : {}),
        },
      });
    const plain = await get();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    const br = await get('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const gz = await get('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    expect(String(gz.headers.vary)).toMatch(/accept-encoding/i);
  });

  test('small answers stay uncompressed; compressed request bodies are not inflated', async ({ env }) => {
    const small = await env.app.inject({
      method: 'GET',
      url: '/organizations/v1',
      headers: { 'x-api-key': env.demo.users.alice.apiKey, 'accept-encoding': 'br, gzip' },
    });
    expect(small.statusCode).toBe(200);
    expect(small.rawPayload.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    const zipped = await env.app.inject({
      method: 'POST',
      url: `/projects/v1?orgId=${a1(env).orgId}&portfolioId=${a1(env).portfolioId}`,
      headers: {
        'x-api-key': env.demo.users.alice.apiKey,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      payload: gzipSync(JSON.stringify({ properties: { name: { text: 'zipped' } } })),
    });
    expect(zipped.statusCode).toBe(400);
    expect(JSON.parse(zipped.body).error.code).toBe('BAD_REQUEST');
  });

  test('answers up to COMPRESSION_SYNC_MAX_BYTES are compressed in one call (sized), larger ones stream', async ({
    env,
  }) => {
    expect(loadConfig({ COMPRESSION_SYNC_MAX_BYTES: '2048' }).compression).toMatchObject({
      syncMaxBytes: 2048,
    });
    expect(loadConfig({}).compression).toMatchObject({ syncMaxBytes: 512 * 1024 });
    const url = `/projects/v1?orgId=${a1(env).orgId}&portfolioId=${a1(env).portfolioId}&limit=50`;
    const get = (app: typeof env.app) =>
      app.inject({
        method: 'GET',
        url,
        headers: { 'x-api-key': env.demo.users.alice.apiKey, 'accept-encoding': 'br' },
      });
    // The default: a 50-project page is compressed in one call, so its length is known.
    const whole = await get(env.app);
    expect(whole.rawPayload.length).toBeGreaterThan(0);
    expect(whole.headers['content-encoding']).toBe('br');
    expect(Number(whole.headers['content-length'])).toBe(whole.rawPayload.length);
    // Under a 2 KB limit the same page streams: chunked, no length, the same bytes once decoded.
    const small = await buildApp({
      database: env.database,
      compression: { ...DEFAULT_COMPRESSION, syncMaxBytes: 2048 },
    });
    try {
      const streamed = await get(small);
      expect(streamed.headers['content-encoding']).toBe('br');
      expect(streamed.headers['content-length']).toBeUndefined();
      expect(streamed.headers['transfer-encoding']).toBe('chunked');
      expect(brotliDecompressSync(streamed.rawPayload).toString()).toBe(
        brotliDecompressSync(whole.rawPayload).toString(),
      );
    } finally {
      await small.close();
    }
  });
});
