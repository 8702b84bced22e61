import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll } from 'vitest';
import { buildGraphiQL } from '../scripts/build-graphiql.mjs';
import { ASSET_DIR, AssetFolder } from '../src/graphiql/assets.js';
import { EXAMPLE_QUERY } from '../src/graphiql/example.js';
import { describe, expect, test } from './helpers/fixtures.js';

// The app lists the built assets when it starts, so build them (a no-op when current) first.
beforeAll(async () => {
  await buildGraphiQL();
}, 180_000);

const assetRefs = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);

// The first test of a file also waits for the file's seeded database: slow on a busy machine.
describe('GraphiQL at /graphiql', () => {
  test('the page needs no key, sets a same-origin CSP, and links only relative local assets', {
    timeout: 120_000,
  }, async ({ env }) => {
    const r = await env.as.anon.get('/graphiql');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(r.headers['content-security-policy']);
    for (const d of ["default-src 'self'", "script-src 'self'", "connect-src 'self'", "worker-src 'self'"])
      expect(csp).toContain(d);
    const refs = assetRefs(r.raw).filter((u) => !u.startsWith('data:'));
    expect(refs.sort()).toEqual(['graphiql/app.css', 'graphiql/app.js']);
    // Relative: no leading slash and no scheme, so any path prefix works and no other host is named.
    for (const ref of refs) expect(ref).not.toMatch(/^(\/|[a-z]+:)/i);
  });

  test('every asset the bundle needs is served locally with its type, gzip and an ETag', async ({ env }) => {
    const types: Record<string, RegExp> = {
      'app.js': /^text\/javascript/,
      'app.css': /^text\/css/,
      'editor.worker.js': /^text\/javascript/,
      'json.worker.js': /^text\/javascript/,
      'graphql.worker.js': /^text\/javascript/,
      'codicon.ttf': /^font\/ttf/,
    };
    for (const [file, type] of Object.entries(types)) {
      const plain = await env.app.inject({ url: `/graphiql/${file}` });
      expect(plain.statusCode, file).toBe(200);
      expect(plain.headers['content-type'], file).toMatch(type);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const gz = await env.app.inject({
        url: `/graphiql/${file}`,
        headers: { 'accept-encoding': 'gzip, br' },
      });
      expect(gz.headers['content-encoding'], file).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload), file).toBe(true);
      const again = await env.app.inject({
        url: `/graphiql/${file}`,
        headers: { 'if-none-match': String(plain.headers.etag) },
      });
      expect(again.statusCode, file).toBe(304);
    }
    // The page script loads the workers relative to itself, and names no CDN.
    const js = (await env.app.inject({ url: '/graphiql/app.js' })).body;
    for (const w of ['editor.worker.js', 'json.worker.js', 'graphql.worker.js']) expect(js).toContain(w);
    expect(js).not.toMatch(/esm\.sh|unpkg\.com|jsdelivr|cdnjs|googleapis|apollographql\.com/);
    // Only files of the build are reachable, and nothing outside its folder.
    for (const path of ['/graphiql/nothing.js', '/graphiql/..%2F..%2Fpackage.json', '/graphiql/.stamp']) {
      const r = await env.as.anon.get(path);
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
  });

  test('the assets are not held in memory: a server no browser visits does not carry them', () => {
    const dir = join(ASSET_DIR, 'graphiql');
    const onDisk = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    expect(onDisk).toBeGreaterThan(5_000_000);
    // Synchronous, so nothing else in this worker allocates between the two readings.
    const before = process.memoryUsage().arrayBuffers;
    const folder = new AssetFolder('graphiql');
    const grew = process.memoryUsage().arrayBuffers - before;
    expect(folder.has('app.js')).toBe(true);
    expect(grew).toBeLessThan(100_000);
  });

  test('a trailing slash is redirected relatively, so the asset URLs resolve', async ({ env }) => {
    const r = await env.as.anon.get('/graphiql/');
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe('../graphiql');
  });
});

describe('a browser opening /graphql', () => {
  test('is redirected to GraphiQL with a relative Location', async ({ env }) => {
    const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const url of ['/graphql', '/graphql?query=%7B__typename%7D']) {
      const r = await env.as.anon.send('GET', url, { headers: { accept } });
      expect(r.status, url).toBe(302);
      expect(r.headers.location).toBe('graphiql');
    }
  });

  test('API clients are not redirected: JSON GETs and POSTs reach GraphQL', async ({ env }) => {
    const get = await env.as.alice.send('GET', '/graphql?query=%7B__typename%7D', {
      headers: { accept: 'application/json', 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ data: { __typename: 'Query' } });
    const post = await env.as.alice.send('POST', '/graphql', {
      body: { query: '{ __typename }' },
      headers: { accept: 'text/html, application/json' },
    });
    expect(post.status).toBe(200);
    expect(post.body.data).toEqual({ __typename: 'Query' });
  });
});

describe('the example query GraphiQL opens with', () => {
  test('runs with the demo key and returns organizations → portfolios → projects with typed values and contacts', async ({
    env,
  }) => {
    const r = await env.as.alice.gql(EXAMPLE_QUERY);
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    const orgs = r.body.data.organizations;
    expect(orgs.map((o: { name: string }) => o.name)).toEqual(['Sunfield Energy']);
    const projects = orgs[0].portfolios.flatMap((p: any) => p.projects.nodes);
    expect(projects.length).toBeGreaterThan(0);
    const values = projects.flatMap((p: any) => p.values);
    const contacts = projects.flatMap((p: any) => p.contacts.nodes);
    expect(contacts.length).toBeGreaterThan(0);
    // Typed values: each carries the member of its type, and the contacts have values too.
    const byType = new Map(values.map((v: any) => [v.property.type, v]));
    expect(byType.get('TEXT')).toHaveProperty('text');
    expect(byType.get('NUMBER')).toHaveProperty('number');
    expect(byType.get('SELECT')).toHaveProperty('options');
    expect(contacts.flatMap((c: any) => c.values).some((v: any) => v.propertyId === 'first_name')).toBe(true);
  });

  test('without a key it is refused like any API call', async ({ env }) => {
    const r = await env.as.anon.gql(EXAMPLE_QUERY);
    expect(r.status).toBe(401);
    expect(r.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
