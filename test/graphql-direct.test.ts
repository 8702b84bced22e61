import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';
import { logSink } from './helpers/logs.js';
import { NESTED_QUERY } from './helpers/queries.js';

/**
 * Plain POSTs skip Apollo: the seam reads and runs them (src/graphql/direct.ts, seam.ts), and must
 * answer as Apollo does. The same body with `extensions: {}` is Apollo's to read (it may be an
 * automatic persisted query), so each case sends the body to Apollo once and to the seam twice (the
 * first parses and validates, the second finds the document in the seam's cache) and requires the
 * three answers to be the same: status, headers and body bytes, with the access log saying which
 * went direct.
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

/** The same document as a text not sent before (a comment differs): not in the seam's cache. */
const fresh = (query: string, tag: string) => `${query}\n# ${tag}`;

/** One POST /graphql; its response and whether it went direct. */
async function post(body: Body | string, headers: Record<string, string> = {}, key = 'alice') {
  const apiKey = seeded.demo.users[key as 'alice'].apiKey;
  const before = log.lines.length;
  const r = await client(app, apiKey).send('POST', '/graphql', { body, headers });
  // The access line: "request", or at warn "request refused or failed".
  const line = log.lines.slice(before).find((l) => l.route === '/graphql' && typeof l.status === 'number');
  // Refusals by a limit are logged sampled (one line a second per code): unknown without a line.
  return { ...r, direct: line ? line.direct === true : undefined };
}

/** The headers that must match: all but the ones that name or time the request. */
const comparable = (h: Record<string, unknown>) => {
  const { 'x-request-id': _id, date: _date, ...rest } = h;
  return rest;
};

/** Sends `body` to Apollo, then to the seam twice; all three answers the same. */
async function twice(body: Body, headers: Record<string, string> = {}, key = 'alice') {
  const apollo = await post({ ...body, extensions: {} }, headers, key);
  expect(apollo.direct).not.toBe(true);
  for (const _ of [1, 2]) {
    const seam = await post(body, headers, key);
    expect(seam.direct).not.toBe(false);
    expect(seam.status).toBe(apollo.status);
    expect(comparable(seam.headers)).toEqual(comparable(apollo.headers));
    expect(seam.raw).toBe(apollo.raw);
  }
  return apollo;
}

describe('a plain POST is answered by the seam, as Apollo answers it', () => {
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

  test("texts that do not parse or validate, or name no operation they have: Apollo's 400s", async () => {
    const parse = await twice({ query: '{ viewer { user { id } }' });
    expect(parse.status).toBe(400);
    expect(parse.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const invalid = await twice({ query: '{ viewer { nope } }' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const doc = `query A { viewer { user { id } } } query B { viewer { user { name } } }`;
    expect((await twice({ query: doc, operationName: 'C' })).body.errors[0].message).toMatch(
      /no operation named "C"/,
    );
    expect((await twice({ query: doc })).status).toBe(400);
  });

  test('mutations: the same errors, and each runs once', async () => {
    const update = {
      query: `mutation U($input: UpdateRecordInput!) { updateProject(input: $input) { project { id } } }`,
      variables: { input: { id: 'prj_00000000000000000000000000', properties: { name: { text: 'x' } } } },
    };
    const r = await twice(update);
    expect(r.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const create = {
      query: `mutation M($input: CreateRecordInput!) { createProject(input: $input) { project { id } } }`,
      variables: { input: { ...vars, properties: { name: { text: 'Direct' } } } },
    };
    const first = await post(create);
    const second = await post(create);
    expect([first.direct, second.direct]).toEqual([true, true]);
    expect(first.body.data.createProject.project.id).not.toBe(second.body.data.createProject.project.id);
  });

  test('Apollo keeps what it alone decides: other media types, extensions, odd bodies', async () => {
    const q = { query: `{ viewer { user { id } } }` };
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
    // An empty query is Apollo's 400 to word.
    const empty = await post({ query: '' });
    expect(empty.direct).toBe(false);
    expect(empty.status).toBe(400);
  });
});
