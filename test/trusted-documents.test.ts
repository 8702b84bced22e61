import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadTrustedDocuments } from '../src/graphql/trusted-documents.js';
import { createApiKey } from '../src/modules/auth/repository.js';
import { describe, expect, test } from './helpers/fixtures.js';

/**
 * Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS): a manifest in the client preset's
 * persistedDocuments format (`{ "<sha256>": "<document>" }`); clients send the hash.
 */
const ORGS = 'query Orgs { organizations { id name } }';
const ORG = 'query Org($id: ID!) { organization(id: $id) { name } }';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function manifestFile(docs: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'sdg-trusted-'));
  const path = join(dir, 'persisted-documents.json');
  writeFileSync(path, JSON.stringify(Object.fromEntries(docs.map((d) => [sha(d), d]))));
  return path;
}

describe('trusted documents on', () => {
  let app: FastifyInstance;
  let key: string;
  let adminKey: string;
  const post = (body: unknown, apiKey = key) =>
    app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const code = (r: { body: string }) => JSON.parse(r.body).errors?.[0]?.extensions?.code;

  afterAll(async () => app?.close());

  test('a known hash runs its document, as documentId (with or without sha256:) or an APQ hash, by POST or GET', async ({
    env,
  }) => {
    app = await buildApp({
      database: env.database,
      trustedDocuments: loadTrustedDocuments(manifestFile([ORGS, ORG])),
    });
    key = env.demo.users.alice.apiKey;
    const admin = await createApiKey(env.database.db, env.demo.users.alice.uid, 'admin', { admin: true });
    adminKey = admin.apiKey;
    const orgId = env.demo.orgs.A.id;
    for (const body of [
      { documentId: sha(ORG), variables: { id: orgId } },
      { documentId: `sha256:${sha(ORG)}`, variables: { id: orgId } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha(ORG) } }, variables: { id: orgId } },
    ]) {
      const r = await post(body);
      expect(r.statusCode, `${JSON.stringify(body)} ${r.body}`).toBe(200);
      expect(JSON.parse(r.body).data.organization.name).toBeTruthy();
    }
    const get = await app.inject({
      method: 'GET',
      url: `/graphql?documentId=${sha(ORGS)}`,
      headers: { 'x-api-key': key, 'apollo-require-preflight': 'true' },
    });
    expect(get.statusCode, get.body).toBe(200);
    expect(JSON.parse(get.body).data.organizations.length).toBeGreaterThan(0);
  });

  test('an unknown hash and an ad-hoc document are refused with their own codes', async () => {
    const unknown = await post({ documentId: sha('query { viewer { user { id } } }') });
    expect(unknown.statusCode).toBe(400);
    expect(code(unknown)).toBe('PERSISTED_DOCUMENT_NOT_FOUND');
    const adhoc = await post({ query: ORGS });
    expect(adhoc.statusCode).toBe(400);
    expect(code(adhoc)).toBe('PERSISTED_DOCUMENT_REQUIRED');
    // An APQ registration (query and hash) cannot add a document either.
    const register = await post({
      query: 'query Mine { organizations { id } }',
      extensions: { persistedQuery: { version: 1, sha256Hash: sha('query Mine { organizations { id } }') } },
    });
    expect(code(register)).toBe('PERSISTED_DOCUMENT_NOT_FOUND');
    // Without a key: 401 first.
    const anon = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ query: ORGS }),
    });
    expect(anon.statusCode).toBe(401);
  });

  test("the client preset's sha256 manifest keys (`sha256:<hex>`) match a hash sent with or without the prefix", async ({
    env,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'sdg-trusted-'));
    const path = join(dir, 'persisted-documents.json');
    writeFileSync(path, JSON.stringify({ [`sha256:${sha(ORGS)}`]: ORGS }));
    const prefixed = await buildApp({ database: env.database, trustedDocuments: loadTrustedDocuments(path) });
    try {
      for (const body of [
        { documentId: `sha256:${sha(ORGS)}` },
        { documentId: sha(ORGS) },
        { extensions: { persistedQuery: { version: 1, sha256Hash: `sha256:${sha(ORGS)}` } } },
        { extensions: { persistedQuery: { version: 1, sha256Hash: sha(ORGS) } } },
      ]) {
        const r = await prefixed.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expect(r.statusCode, `${JSON.stringify(body)} ${r.body}`).toBe(200);
        expect(JSON.parse(r.body).data.organizations.length).toBeGreaterThan(0);
      }
    } finally {
      await prefixed.close();
    }
  });

  test('an admin key may send ad-hoc documents (GraphiQL, scripts)', async () => {
    const r = await post({ query: 'query { viewer { user { id } } }' }, adminKey);
    expect(r.statusCode, r.body).toBe(200);
    expect(JSON.parse(r.body).data.viewer.user.id).toBeTruthy();
  });
});

describe('trusted documents off (the default)', () => {
  test('ad-hoc documents run, and Apollo automatic persisted queries keep working', async ({ env }) => {
    const q = 'query Apq { organizations { id } }';
    const ext = { persistedQuery: { version: 1, sha256Hash: sha(q) } };
    const first = await env.as.alice.send('POST', '/graphql', { body: { extensions: ext } });
    expect(JSON.parse(first.raw).errors[0].message).toBe('PersistedQueryNotFound');
    const register = await env.as.alice.send('POST', '/graphql', { body: { query: q, extensions: ext } });
    expect(register.status).toBe(200);
    const byHash = await env.as.alice.send('POST', '/graphql', { body: { extensions: ext } });
    expect(byHash.status).toBe(200);
    expect(byHash.body.data.organizations.length).toBeGreaterThan(0);
  });

  test('a malformed manifest fails the start with a clear message', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdg-trusted-'));
    writeFileSync(join(dir, 'bad.json'), '["query { a }"]');
    expect(() => loadTrustedDocuments(join(dir, 'bad.json'))).toThrow(/JSON object of hash/);
    expect(() => loadTrustedDocuments(join(dir, 'missing.json'))).toThrow(/cannot read/);
  });
});
