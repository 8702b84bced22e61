import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NESTED_QUERY } from '../bench/scenarios.js';
import { buildApp } from '../src/app.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';
import { logSink } from './helpers/logs.js';

/**
 * Known queries skip Apollo (src/graphql/direct.ts). The first request of a query text goes
 * through Apollo, which parses, validates and resolves it; the same text again is answered
 * directly. So each case sends one request twice and requires the two answers to be the same:
 * status, headers and body bytes, with the access log saying which of the two went direct.
 */
const seeded = seededDatabase();
let app: FastifyInstance;
let log: ReturnType<typeof logSink>;
let vars: { orgId: string; portfolioId: string };

beforeAll(async () => {
  log = logSink('info');
  app = await buildApp({ database: seeded.database, logger: log.logger });
  vars = { orgId: seeded.demo.orgs.A.id, portfolioId: seeded.demo.orgs.A.portfolios.A1 };
});

afterAll(async () => {
  await app?.close();
});

type Body = Record<string, unknown>;

/** The same document as a text not sent before (a comment differs): Apollo sees it first. */
const fresh = (query: string, tag: string) => `${query}\n# ${tag}`;

/** One POST /graphql; its response and whether it went direct. */
async function post(body: Body | string, headers: Record<string, string> = {}, key = 'alice') {
  const apiKey = seeded.demo.users[key as 'alice'].apiKey;
  const before = log.lines.length;
  const r = await client(app, apiKey).send('POST', '/graphql', { body, headers });
  // The access line: "request", or at warn "request refused or failed".
  const line = log.lines.slice(before).find((l) => l.route === '/graphql' && typeof l.status === 'number');
  return { ...r, direct: line?.direct === true };
}

/** The headers that must match: all but the ones that name or time the request. */
const comparable = (h: Record<string, unknown>) => {
  const { 'x-request-id': _id, date: _date, ...rest } = h;
  return rest;
};

/** Sends `body` twice: Apollo answers the first, the direct path the second; both the same. */
async function twice(body: Body, headers: Record<string, string> = {}, key = 'alice') {
  const first = await post(body, headers, key);
  const second = await post(body, headers, key);
  expect(first.direct).toBe(false);
  expect(second.direct).toBe(true);
  expect(second.status).toBe(first.status);
  expect(comparable(second.headers)).toEqual(comparable(first.headers));
  expect(second.raw).toBe(first.raw);
  return second;
}

describe('a query Apollo has resolved once is answered directly, as Apollo answers it', () => {
  test('the nested query: planned, the same bytes and headers', async () => {
    const r = await twice({
      query: NESTED_QUERY,
      variables: { ...vars, projects: 5, contacts: 2, parcels: 2 },
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.raw.endsWith('\n')).toBe(true);
    expect(r.body.data.organization.portfolio.projects.nodes.length).toBeGreaterThan(0);
    // Variables may change between requests of the same text.
    const other = await post({
      query: NESTED_QUERY,
      variables: { ...vars, projects: 1, contacts: 1, parcels: 1 },
    });
    expect(other.direct).toBe(true);
    expect(other.body.data.organization.portfolio.projects.nodes).toHaveLength(1);
  });

  test('an unplanned query, an operation picked by name, and a guest who sees less', async () => {
    await twice({ query: `query Me { viewer { user { id name } } }` });
    const doc = `query A { viewer { user { id } } } query B { viewer { user { name } } }`;
    const a = await twice({ query: doc, operationName: 'A' });
    const b = await twice({ query: doc, operationName: 'B' });
    expect(Object.keys(a.body.data.viewer.user)).toEqual(['id']);
    expect(Object.keys(b.body.data.viewer.user)).toEqual(['name']);
    // A known text answers each caller as that caller.
    const who = `query Who { viewer { user { id } } }`;
    const alice = await twice({ query: who });
    const gina = await post({ query: who }, {}, 'gina');
    expect(gina.direct).toBe(true);
    expect(gina.raw).not.toBe(alice.raw);
  });

  test('absences and errors: a missing organization, variables that do not coerce, a refused size', async () => {
    const missing = await twice({
      query: fresh(NESTED_QUERY, 'missing'),
      variables: { ...vars, orgId: 'org_nope', projects: 1, contacts: 1, parcels: 1 },
    });
    expect(missing.body.data.organization).toBeNull();
    const bad = await twice({
      query: fresh(NESTED_QUERY, 'bad'),
      variables: { ...vars, projects: 'many', contacts: 1, parcels: 1 },
    });
    expect(bad.status).toBe(400);
    // Data and errors together: Apollo writes errors first.
    const partial = await twice(
      {
        query: `query P($orgId: ID!) { organization(id: $orgId) { id webhookEndpoints { id } } }`,
        variables: { orgId: vars.orgId },
      },
      {},
      'bob',
    );
    expect(partial.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(partial.raw.indexOf('"errors"')).toBeLessThan(partial.raw.indexOf('"data"'));
    const huge = await twice({
      query: fresh(NESTED_QUERY, 'huge'),
      variables: { ...vars, projects: 100_000, contacts: 1, parcels: 1 },
    });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.body.errors[0].extensions.code).toBeDefined();
  });

  test('Apollo keeps what it alone decides: mutations, other media types, extensions, odd bodies', async () => {
    const q = { query: `{ viewer { user { id } } }` };
    await post(q);
    expect((await post(q)).direct).toBe(true);
    // Another Accept: Apollo negotiates the content type itself.
    const accepts = await post(q, { accept: 'application/graphql-response+json' });
    expect(accepts.direct).toBe(false);
    expect(accepts.headers['content-type']).toMatch(/graphql-response\+json/);
    // Automatic persisted queries live in `extensions`.
    expect((await post({ ...q, extensions: {} })).direct).toBe(false);
    // Variables as a string are Apollo's 400 to give.
    const stringVars = await post({ ...q, variables: '{}' });
    expect(stringVars.direct).toBe(false);
    expect(stringVars.status).toBe(400);
    // A mutation is never remembered, so never direct.
    const mutation = {
      query: `mutation M($input: CreateRecordInput!) { createProject(input: $input) { project { id } } }`,
      variables: { input: { ...vars, properties: { name: { text: 'Direct?' } } } },
    };
    for (const name of ['Direct?', 'Direct again?']) {
      const r = await post({
        ...mutation,
        variables: { input: { ...vars, properties: { name: { text: name } } } },
      });
      expect(r.direct).toBe(false);
      expect(r.body.errors).toBeUndefined();
    }
  });
});
