import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { bulkLink } from '../src/modules/links/repository.js';
import { createPortfolio } from '../src/modules/org/repository.js';
import { bulkInsertRecords } from '../src/modules/records/repository.js';
import { defineProperty } from '../src/modules/schema/service.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';
import { logSink } from './helpers/logs.js';
import { NESTED_QUERY, VALUES_FRAGMENT } from './helpers/queries.js';

/**
 * The planned answers (src/graphql/plan) against the executor's, on one database: every query goes
 * to an app with plans and to one without (`graphqlPlans: false`), and the two answers must be the
 * same bytes, statuses and errors included. The access log says which requests the plan answered,
 * so each case also checks that the plan was (or was not) the one answering.
 */
const seeded = seededDatabase();
let planned: FastifyInstance;
let plain: FastifyInstance;
let log: ReturnType<typeof logSink>;
let scope: { orgId: string; portfolioId: string; otherPortfolio: string; otherOrg: string };
/** The odd records: a value whose type changed, an unknown option, users out of sight, a checkbox. */
let oddProject: string;

beforeAll(async () => {
  const { database, demo } = seeded;
  log = logSink('info');
  planned = await buildApp({ database, logger: log.logger });
  plain = await buildApp({ database, graphqlPlans: false });
  const orgId = demo.orgs.A.id;
  scope = {
    orgId,
    portfolioId: demo.orgs.A.portfolios.A1,
    otherPortfolio: Object.values(demo.orgs.B.portfolios)[0],
    otherOrg: demo.orgs.B.id,
  };
  await defineProperty(database.db, orgId, 'project', { id: 'ready', name: 'Ready', type: 'checkbox' });
  // Stored as they could be by an older release: values the executor skips or shows as it can.
  [oddProject] = await bulkInsertRecords(database.db, 'project', orgId, scope.portfolioId, [
    {
      properties: {
        name: { text: 'Odd one' },
        capacity_mw: { number: 7 },
        stage: { select: ['no-such-option'] },
        offtake: { text: 'was text once' } as never,
        owner: { people: [demo.users.nora.uid, demo.users.bob.uid, 'usr_gone'] },
        ready: { checkbox: true },
        retired_property: { text: 'no longer in the schema' },
      },
    },
  ]);
  // First in the list, so the first pages below hold it.
  await sql`update projects set created_at = '2000-01-01T00:00:00.123456Z' where id = ${oddProject}`.execute(
    database.db,
  );
});

afterAll(async () => {
  await planned?.close();
  await plain?.close();
});

const QUERY_FIRST = `query Q($orgId: ID!, $portfolioId: ID!, $first: Int) { organization(id: $orgId) { portfolio(id: $portfolioId) {`;
const QUERY = `query Q($orgId: ID!, $portfolioId: ID!) { organization(id: $orgId) { portfolio(id: $portfolioId) {`;

/** Sends one query to both apps as `who`; returns both answers and whether the plan answered. */
async function both(query: string, variables: Record<string, unknown>, who: 'alice' | 'gina' = 'alice') {
  const key = seeded.demo.users[who].apiKey;
  const before = log.lines.length;
  const a = await client(planned, key).gql(query, variables);
  const answeredByPlan = log.lines.slice(before).some((l) => l.msg === 'request' && l.planned === true);
  const b = await client(plain, key).gql(query, variables);
  return { a, b, answeredByPlan };
}

async function same(query: string, variables: Record<string, unknown>, who: 'alice' | 'gina' = 'alice') {
  const { a, b, answeredByPlan } = await both(query, variables, who);
  expect(a.status).toBe(b.status);
  expect(a.raw).toBe(b.raw);
  return { body: a.body, answeredByPlan };
}

describe('the plan answers exactly as the executor', () => {
  test("the benchmark's nested query, as an owner and as a guest who sees fewer users", async () => {
    const vars = { ...scope, projects: 20, contacts: 10, parcels: 5 };
    for (const who of ['alice', 'gina'] as const) {
      const r = await same(NESTED_QUERY, vars, who);
      expect(r.answeredByPlan).toBe(true);
      expect(r.body.data.organization.portfolio.projects.nodes.length).toBeGreaterThan(0);
    }
  });

  test('the odd values: a changed type, an unknown option, users gone or out of sight, a checkbox', async () => {
    const r = await same(
      `${QUERY_FIRST} projects(first: $first) { nodes { id ...V } } } } } ${VALUES_FRAGMENT}`,
      {
        ...scope,
        first: 3,
      },
    );
    expect(r.answeredByPlan).toBe(true);
    const odd = r.body.data.organization.portfolio.projects.nodes.find(
      (n: { id: string }) => n.id === oddProject,
    );
    expect(odd.values.map((v: { propertyId: string }) => v.propertyId)).toEqual([
      'name',
      'capacity_mw',
      'stage',
      'owner',
      'ready',
    ]);
  });

  test('edges, cursors, link times, timestamps, properties, totalCount, __typename and aliases', async () => {
    const q = `${QUERY_FIRST} list: projects(first: $first) { __typename total: totalCount
      pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor }
      edges { __typename cursor node { __typename id createdAt updatedAt properties
        ... on PropertyRecord { v: values { __typename ... on SelectValue { propertyId options { __typename id name color } }
          ... on PeopleValue { users { id email name } } ... on CheckboxValue { checked } } }
        contacts(first: 2) { edges { cursor linkedAt node { id } } pageInfo { endCursor } } } } } } } }`;
    const r = await same(q, { ...scope, first: 4 });
    expect(r.answeredByPlan).toBe(true);
    expect(r.body.data.organization.portfolio.list.edges[0].node.createdAt).toBe('2000-01-01T00:00:00.123Z');
    // The same field twice under aliases, with different selections.
    const twice = `${QUERY_FIRST} projects(first: $first) { edges { n: node { id } m: node { createdAt } }
      x: nodes { id } y: nodes { updatedAt } } } } }`;
    expect((await same(twice, { ...scope, first: 2 })).answeredByPlan).toBe(true);
  });

  test('arguments: after, last/before, filters, order, search, an empty page', async () => {
    const page = `{ nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }`;
    const first = await same(`${QUERY_FIRST} projects(first: $first) ${page} } } }`, { ...scope, first: 2 });
    const after = first.body.data.organization.portfolio.projects.pageInfo.endCursor;
    const cases: [string, Record<string, unknown>][] = [
      [
        `query Q($orgId: ID!, $portfolioId: ID!, $after: String) { organization(id: $orgId) { portfolio(id: $portfolioId) { projects(first: 2, after: $after) ${page} } } }`,
        { ...scope, after },
      ],
      [`${QUERY} projects(last: 2) ${page} } } }`, scope],
      [`${QUERY} projects(first: 0) ${page} } } }`, scope],
      [
        `${QUERY} projects(first: 5, search: "solar", orderBy: [{ property: "capacity_mw", direction: DESC }]) ${page} } } }`,
        scope,
      ],
      [
        `${QUERY} projects(first: 5, filter: { property: { id: "stage", select: { in: ["permitting"] } } }) ${page} } } }`,
        scope,
      ],
    ];
    for (const [q, vars] of cases) {
      const r = await same(q, vars);
      expect(r.body.errors, q).toBeUndefined();
      expect(r.answeredByPlan, q).toBe(true);
    }
  });

  test('refusals and absences are the executor’s: bad arguments, other tenants, missing ids', async () => {
    const q = `query Q($orgId: ID!, $portfolioId: ID!, $first: Int, $after: String) { organization(id: $orgId) { portfolio(id: $portfolioId) { projects(first: $first, after: $after) { nodes { id } } } } }`;
    const cases: Record<string, unknown>[] = [
      { ...scope, first: -1 },
      { ...scope, first: 5001 },
      { ...scope, first: 2, after: 'not-a-cursor' },
      { ...scope, portfolioId: scope.otherPortfolio },
      { ...scope, orgId: scope.otherOrg },
      { ...scope, portfolioId: 'pf_missing' },
      { ...scope, first: 'two' },
    ];
    for (const vars of cases) {
      const r = await same(q, vars);
      expect(r.answeredByPlan).toBe(false);
    }
  });

  test('a contact under two projects: each page of its parcels in order, backward ones too', async () => {
    // The page loader answers equal requests with one array of rows; a page that reverses it
    // (last:) must not reverse it for the other parent as well.
    const db = seeded.database.db;
    const { orgId } = scope;
    const portfolioId = (await createPortfolio(db, orgId, 'Shared contact')).id;
    const projects = await bulkInsertRecords(db, 'project', orgId, portfolioId, [
      { properties: { name: { text: 'East' } } },
      { properties: { name: { text: 'West' } } },
    ]);
    const [contact] = await bulkInsertRecords(db, 'contact', orgId, portfolioId, [
      { properties: { first_name: { text: 'Shared' } } },
    ]);
    const parcels = await bulkInsertRecords(db, 'parcel', orgId, portfolioId, [
      { properties: { name: { text: 'P1' } } },
      { properties: { name: { text: 'P2' } } },
      { properties: { name: { text: 'P3' } } },
    ]);
    await bulkLink(db, 'project_contacts', orgId, portfolioId, [
      [projects[0], contact],
      [projects[1], contact],
    ]);
    await bulkLink(
      db,
      'parcel_contacts',
      orgId,
      portfolioId,
      parcels.map((p): [string, string] => [p, contact]),
    );
    const read = async (page: string) => {
      const q = `${QUERY} projects(first: 2) { nodes { id contacts(first: 1) { nodes { id
        parcels(${page}) { nodes { id } } } } } } } } }`;
      const r = await same(q, { orgId, portfolioId });
      expect(r.answeredByPlan, page).toBe(true);
      return r.body.data.organization.portfolio.projects.nodes.map(
        (p: { contacts: { nodes: { parcels: { nodes: { id: string }[] } }[] } }) =>
          p.contacts.nodes[0].parcels.nodes.map((n) => n.id),
      ) as string[][];
    };
    // The list's own order (link time, then id), as the first project's forward page reads it.
    const [order] = await read('first: 3');
    expect([...order].sort()).toEqual([...parcels].sort());
    for (const [page, want] of [
      ['last: 3', order],
      ['last: 2', order.slice(1)],
      ['first: 2', order.slice(0, 2)],
    ] as const)
      expect(await read(page), page).toEqual([want, want]);
  });

  test('shapes outside the plan go to the executor, and answer the same', async () => {
    const outside = [
      `${QUERY_FIRST} name projects(first: $first) { nodes { id } } } } }`,
      `${QUERY_FIRST} projects(first: $first) { nodes { id portfolio { id } } } } } }`,
      `${QUERY_FIRST} projects(first: $first) { nodes { id values { property { name } } } } } } }`,
      `${QUERY_FIRST} projects(first: $first) { nodes { id @include(if: true) } } } } }`,
      `${QUERY_FIRST} projects(first: $first) { facets(propertyId: "stage") { value count } } } } }`,
      // An object literal would set the prototype instead of writing this key (plan/literal.ts).
      `${QUERY_FIRST} projects(first: $first) { nodes { __proto__: id } } } } }`,
      `${QUERY_FIRST} projects(first: $first) { nodes { id values { ... on TextValue { __proto__: text } } } } } } }`,
    ];
    for (const q of outside) {
      const r = await same(q, { ...scope, first: 2 });
      expect(r.answeredByPlan).toBe(false);
      expect(r.body.errors).toBeUndefined();
    }
  });

  test('REST pages run their list operation by plan, with the same bodies', async () => {
    const key = seeded.demo.users.alice.apiKey;
    for (const path of ['/projects/v1', '/contacts/v1']) {
      const query = { ...scope, limit: 3 };
      const before = log.lines.length;
      const a = await client(planned, key).get(path, query);
      const b = await client(plain, key).get(path, query);
      expect(a.status).toBe(200);
      expect(a.raw).toBe(b.raw);
      expect(log.lines.slice(before).some((l) => l.planned === true)).toBe(true);
    }
  });
});
