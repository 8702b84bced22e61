import { bumpOrgVersion } from '../src/db/org-cache.js';
import { addMember, createUser } from '../src/modules/org/repository.js';
import { onCitus } from './helpers/citus.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import type { Res } from './helpers/http.js';
import { a1, countIn, freshOrg, freshPortfolio, insertRecords, type Scope } from './records-helpers.js';

/**
 * Records over GraphQL: mutations validated exactly like REST, typed values, lookups by id, Relay
 * connections both ways with totalCount, and a constant number of SQL statements for `values`.
 */

const RECORD = 'id createdAt updatedAt properties';
const VALUES = `values {
  __typename propertyId property { id type }
  ... on TextValue { text }
  ... on NumberValue { number }
  ... on DateValue { start }
  ... on SelectValue { options { id name color } }
  ... on PeopleValue { users { id name email } }
}`;

const USER_ERRORS = 'userErrors { code message propertyId path }';
const MUTATION = {
  createProject: `mutation($input: CreateRecordInput!) { createProject(input: $input) { project { ${RECORD} } ${USER_ERRORS} } }`,
  createContact: `mutation($input: CreateRecordInput!) { createContact(input: $input) { contact { ${RECORD} } ${USER_ERRORS} } }`,
  updateProject: `mutation($input: UpdateRecordInput!) { updateProject(input: $input) { project { ${RECORD} } ${USER_ERRORS} } }`,
  updateContact: `mutation($input: UpdateRecordInput!) { updateContact(input: $input) { contact { ${RECORD} } ${USER_ERRORS} } }`,
  updateParcel: `mutation($input: UpdateRecordInput!) { updateParcel(input: $input) { parcel { ${RECORD} } ${USER_ERRORS} } }`,
  deleteProject: `mutation($input: DeleteRecordInput!) { deleteProject(input: $input) { deletedId } }`,
  deleteContact: `mutation($input: DeleteRecordInput!) { deleteContact(input: $input) { deletedId } }`,
};

/** The one error of a GraphQL response, with its code and details. */
function gqlError(r: Res) {
  expect(r.body.errors, JSON.stringify(r.body)).toHaveLength(1);
  const e = r.body.errors[0];
  return { code: e.extensions.code as string, details: e.extensions.details, message: e.message as string };
}

const rest = (r: Res) => ({
  code: r.body.error.code,
  details: r.body.error.details,
  message: r.body.error.message,
});

const newProject = async (env: TestEnv, properties: unknown, scope: Scope = a1(env)) => {
  const r = await env.as.alice.gql(MUTATION.createProject, { input: { ...scope, properties } });
  expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
  return r.body.data.createProject.project;
};

describe('mutations', () => {
  test('create, update and delete a project', async ({ env }) => {
    const created = await newProject(env, { name: { text: 'GQL' }, stage: { select: ['permitting'] } });
    expect(created).toEqual({
      id: expect.stringMatching(/^prj_/),
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
      properties: { name: { text: 'GQL' }, stage: { select: ['permitting'], labels: ['Permitting'] } },
    });
    const u = await env.as.alice.gql(MUTATION.updateProject, {
      input: { id: created.id, properties: { stage: { select: null }, capacity_mw: { number: 3.5 } } },
    });
    const updated = u.body.data.updateProject.project;
    expect(updated.properties).toEqual({ name: { text: 'GQL' }, capacity_mw: { number: 3.5 } });
    expect(updated.createdAt).toBe(created.createdAt);
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    const d = await env.as.alice.gql(MUTATION.deleteProject, { input: { id: created.id } });
    expect(d.body.data.deleteProject).toEqual({ deletedId: created.id });
    const gone = await env.as.alice.gql('query($id: ID!) { project(id: $id) { id } node(id: $id) { id } }', {
      id: created.id,
    });
    expect(gone.body.data).toEqual({ project: null, node: null });
    const again = await env.as.alice.gql(MUTATION.deleteProject, { input: { id: created.id } });
    expect(gqlError(again).code).toBe('NOT_FOUND');
  });

  test('contacts and parcels', async ({ env }) => {
    const c = await env.as.bob.gql(MUTATION.createContact, {
      input: { ...a1(env), properties: { first_name: { text: 'Q' } } },
    });
    const id = c.body.data.createContact.contact.id;
    const u = await env.as.bob.gql(MUTATION.updateContact, {
      input: { id, ...a1(env), properties: { interests: { select: ['sale', 'lease', 'sale'] } } },
    });
    expect(u.body.data.updateContact.contact.properties.interests).toEqual({
      select: ['sale', 'lease'],
      labels: ['Sale', 'Lease'],
    });
    expect(
      (await env.as.bob.gql(MUTATION.deleteContact, { input: { id } })).body.data.deleteContact.deletedId,
    ).toBe(id);
    const [parcel] = await insertRecords(env, 'parcel', a1(env), [{ name: { text: 'GQL lot' } }]);
    const p = await env.as.bob.gql(MUTATION.updateParcel, {
      input: { id: parcel, properties: { land_agent: { people: [env.demo.users.vera.uid] } } },
    });
    expect(p.body.data.updateParcel.parcel.properties.land_agent).toEqual({
      people: [env.demo.users.vera.uid],
      labels: ['Vera Vance'],
    });
  });

  test('bad values come back as userErrors that say what the REST VALIDATION_FAILED details say, all of them', async ({
    env,
  }) => {
    const made = await newProject(env, { name: { text: 'Twin' } });
    const [parcel] = await insertRecords(env, 'parcel', a1(env), [{ name: { text: 'Twin' } }]);
    const bad = {
      name: { text: null },
      website: { text: 'ftp://x' },
      cod: { date: { start: '2023-02-29', end: '2023-03-01' } },
      owner: { people: [env.demo.users.nora.uid] },
      location: {},
      nope: { number: 1 },
    };
    const pairs: [Res, Res][] = [
      [
        await env.as.alice.post('/projects/v1', { properties: bad }, a1(env)),
        await env.as.alice.gql(MUTATION.createProject, { input: { ...a1(env), properties: bad } }),
      ],
      [
        await env.as.alice.put(`/projects/v1/${made.id}`, { properties: bad }, a1(env)),
        await env.as.alice.gql(MUTATION.updateProject, {
          input: { id: made.id, ...a1(env), properties: bad },
        }),
      ],
      [
        await env.as.alice.post('/contacts/v1', { properties: { first_name: { text: 7 } } }, a1(env)),
        await env.as.alice.gql(MUTATION.createContact, {
          input: { ...a1(env), properties: { first_name: { text: 7 } } },
        }),
      ],
      [
        await env.as.alice.put(
          `/parcels/v1/${parcel}`,
          { properties: { 'parcel-status': { select: ['x'] } } },
          a1(env),
        ),
        await env.as.alice.gql(MUTATION.updateParcel, {
          input: { id: parcel, properties: { 'parcel-status': { select: ['x'] } } },
        }),
      ],
      [
        await env.as.alice.post('/projects/v1', { properties: [] }, a1(env)),
        await env.as.alice.gql(MUTATION.createProject, { input: { ...a1(env), properties: [] } }),
      ],
    ];
    for (const [r, g] of pairs) {
      expect(r.status).toBe(400);
      expect(g.body.errors).toBeUndefined();
      const [payload] = Object.values(g.body.data) as {
        userErrors: { propertyId: string | null; path: string[]; message: string }[];
      }[];
      // The record is null: nothing was written.
      expect(Object.values(payload)[0]).toBeNull();
      expect(
        payload.userErrors.map((e) => ({ field: e.propertyId ?? e.path.at(-1), reason: e.message })),
      ).toEqual(rest(r).details);
    }
    expect(pairs[0][1].body.data.createProject.userErrors.map((e: { code: string }) => e.code)).toEqual([
      'REQUIRED',
      'INVALID_VALUE',
      'INVALID_VALUE',
      'INVALID_VALUE',
      'READ_ONLY',
      'UNKNOWN_PROPERTY',
    ]);
    expect(pairs[4][1].body.data.createProject.userErrors).toEqual([
      {
        code: 'INVALID_INPUT',
        message: 'must be an object that maps property ids to value objects',
        propertyId: null,
        path: ['input', 'properties'],
      },
    ]);
    expect(rest(pairs[0][0]).details.map((d: { field: string }) => d.field)).toEqual([
      'name',
      'website',
      'cod',
      'owner',
      'location',
      'nope',
    ]);
  });

  test('roles: vera gets FORBIDDEN, gina NOT_FOUND outside A1, nora NOT_FOUND in org A', async ({ env }) => {
    const { A } = env.demo.orgs;
    const inA1 = await newProject(env, { name: { text: 'Roles' } });
    const inA2 = await newProject(
      env,
      { name: { text: 'Roles' } },
      { orgId: A.id, portfolioId: A.portfolios.A2 },
    );
    const tries = (id: string, scope: Scope) =>
      [
        [MUTATION.createProject, { input: { ...scope, properties: { name: { text: 'x' } } } }],
        [MUTATION.updateProject, { input: { id, properties: { name: { text: 'x' } } } }],
        [MUTATION.deleteProject, { input: { id } }],
      ] as const;
    for (const [q, v] of tries(inA1.id, a1(env)))
      expect(gqlError(await env.as.vera.gql(q, v)).code).toBe('FORBIDDEN');
    for (const [q, v] of tries(inA2.id, { orgId: A.id, portfolioId: A.portfolios.A2 }))
      expect(gqlError(await env.as.gina.gql(q, v)).code).toBe('NOT_FOUND');
    for (const [q, v] of tries(inA1.id, a1(env)))
      expect(gqlError(await env.as.nora.gql(q, v)).code).toBe('NOT_FOUND');
    const still = await env.as.alice.gql(
      'query($a: ID!, $b: ID!) { a: project(id: $a) { properties } b: project(id: $b) { properties } }',
      {
        a: inA1.id,
        b: inA2.id,
      },
    );
    expect(still.body.data).toEqual({
      a: { properties: { name: { text: 'Roles' } } },
      b: { properties: { name: { text: 'Roles' } } },
    });
  });
});

describe('typed values', () => {
  test('values lists every set property in schema order, typed and resolved', async ({ env }) => {
    const { bob } = env.demo.users;
    const made = await newProject(env, {
      owner: { people: [bob.uid] },
      offtake: { select: ['rec', 'ppa'] },
      stage: { select: ['construction'] },
      cod: { date: { start: '2028-06-30' } },
      capacity_mw: { number: 99.9 },
      developer_email: { text: 'd@example.com' },
      website: { text: 'https://w.example' },
      name: { text: 'Typed' },
    });
    const r = await env.as.alice.gql(`query($id: ID!) { project(id: $id) { ${VALUES} } }`, { id: made.id });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.project.values).toEqual([
      { __typename: 'TextValue', propertyId: 'name', property: { id: 'name', type: 'TEXT' }, text: 'Typed' },
      {
        __typename: 'TextValue',
        propertyId: 'website',
        property: { id: 'website', type: 'URL' },
        text: 'https://w.example',
      },
      {
        __typename: 'TextValue',
        propertyId: 'developer_email',
        property: { id: 'developer_email', type: 'EMAIL' },
        text: 'd@example.com',
      },
      {
        __typename: 'NumberValue',
        propertyId: 'capacity_mw',
        property: { id: 'capacity_mw', type: 'NUMBER' },
        number: 99.9,
      },
      {
        __typename: 'DateValue',
        propertyId: 'cod',
        property: { id: 'cod', type: 'DATE' },
        start: '2028-06-30',
      },
      {
        __typename: 'SelectValue',
        propertyId: 'stage',
        property: { id: 'stage', type: 'SELECT' },
        options: [{ id: 'construction', name: 'Construction', color: '#8b5cf6' }],
      },
      {
        __typename: 'SelectValue',
        propertyId: 'offtake',
        property: { id: 'offtake', type: 'MULTI_SELECT' },
        options: [
          { id: 'rec', name: 'REC sale', color: '#14b8a6' },
          { id: 'ppa', name: 'PPA', color: '#0ea5e9' },
        ],
      },
      {
        __typename: 'PeopleValue',
        propertyId: 'owner',
        property: { id: 'owner', type: 'PEOPLE' },
        users: [{ id: bob.uid, name: 'Bob Barrera', email: 'bob@sunfield.example' }],
      },
    ]);
  });

  test('value(propertyId): the typed value, or null when unset or unknown', async ({ env }) => {
    const made = await newProject(env, { name: { text: 'One' }, stage: { select: ['operating'] } });
    const r = await env.as.alice.gql(
      `query($id: ID!) { project(id: $id) {
        stage: value(propertyId: "stage") { __typename ... on SelectValue { options { id } } }
        cod: value(propertyId: "cod") { __typename }
        nope: value(propertyId: "nope") { __typename }
        location: value(propertyId: "location") { __typename }
      } }`,
      { id: made.id },
    );
    expect(r.body.data.project).toEqual({
      stage: { __typename: 'SelectValue', options: [{ id: 'operating' }] },
      cod: null,
      nope: null,
      location: null,
    });
  });

  test('contacts and parcels have typed values too', async ({ env }) => {
    const c = await env.as.alice.gql(MUTATION.createContact, {
      input: {
        ...a1(env),
        properties: {
          first_name: { text: 'V' },
          acres_owned: { number: 12 },
          last_contacted: { date: { start: '2025-01-31' } },
        },
      },
    });
    const id = c.body.data.createContact.contact.id;
    const [parcel] = await insertRecords(env, 'parcel', a1(env), [
      { name: { text: 'P' }, 'parcel-status': { select: ['declined'] } },
    ]);
    const r = await env.as.alice.gql(
      `query($c: ID!, $p: ID!) { contact(id: $c) { values { __typename propertyId } } parcel(id: $p) { values { __typename propertyId ... on SelectValue { options { name } } } } }`,
      { c: id, p: parcel },
    );
    expect(r.body.data.contact.values).toEqual([
      { __typename: 'TextValue', propertyId: 'first_name' },
      { __typename: 'NumberValue', propertyId: 'acres_owned' },
      { __typename: 'DateValue', propertyId: 'last_contacted' },
    ]);
    expect(r.body.data.parcel.values).toEqual([
      { __typename: 'TextValue', propertyId: 'name' },
      { __typename: 'SelectValue', propertyId: 'parcel-status', options: [{ name: 'Declined' }] },
    ]);
  });
});

describe('lookups by id', () => {
  test('project(id), contact(id), parcel(id) and node(id) give the same record as REST', async ({ env }) => {
    const listed = await env.as.bob.get('/projects/v1', { ...a1(env), limit: 1 });
    const item = listed.body.items[0];
    const r = await env.as.bob.gql(
      `query($id: ID!) { project(id: $id) { ${RECORD} portfolio { id } } node(id: $id) { __typename ... on Project { ${RECORD} } } }`,
      { id: item.id },
    );
    const asRest = (p: { id: string; properties: unknown; createdAt: string; updatedAt: string }) => ({
      id: p.id,
      properties: p.properties,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    });
    expect(asRest(r.body.data.project)).toEqual(item);
    expect(r.body.data.project.portfolio).toEqual({ id: a1(env).portfolioId });
    expect(r.body.data.node.__typename).toBe('Project');
    expect(asRest(r.body.data.node)).toEqual(item);
    const c = (await env.as.bob.get('/contacts/v1', { ...a1(env), limit: 1 })).body.items[0];
    const n = await env.as.bob.gql(
      'query($id: ID!) { contact(id: $id) { id } node(id: $id) { __typename id } }',
      { id: c.id },
    );
    expect(n.body.data).toEqual({ contact: { id: c.id }, node: { __typename: 'Contact', id: c.id } });
  });

  test('an id of another type, another tenant or out of reach resolves to null', async ({ env }) => {
    const { A } = env.demo.orgs;
    const p = (await env.as.alice.get('/projects/v1', { ...a1(env), limit: 1 })).body.items[0].id;
    const pA2 = (
      await env.as.alice.get('/projects/v1', { orgId: A.id, portfolioId: A.portfolios.A2, limit: 1 })
    ).body.items[0].id;
    const q =
      'query($id: ID!) { project(id: $id) { id } contact(id: $id) { id } parcel(id: $id) { id } node(id: $id) { id } }';
    expect((await env.as.alice.gql(q, { id: p })).body.data).toEqual({
      project: { id: p },
      contact: null,
      parcel: null,
      node: { id: p },
    });
    for (const [who, id] of [
      ['nora', p],
      ['gina', pA2],
    ] as const) {
      const r = await env.as[who].gql(q, { id });
      expect(r.body.errors).toBeUndefined();
      expect(r.body.data).toEqual({ project: null, contact: null, parcel: null, node: null });
    }
  });
});

describe('Portfolio connections', () => {
  const CONN = `query($org: ID!, $pf: ID!, $first: Int, $after: String, $last: Int, $before: String) {
    organization(id: $org) { portfolio(id: $pf) {
      contacts(first: $first, after: $after, last: $last, before: $before) {
        edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      } } } }`;
  const conn = async (env: TestEnv, scope: Scope, args: Record<string, unknown>) => {
    const r = await env.as.alice.gql(CONN, { org: scope.orgId, pf: scope.portfolioId, ...args });
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    const c = r.body.data.organization.portfolio.contacts;
    return {
      ids: c.edges.map((e: { node: { id: string } }) => e.node.id) as string[],
      pageInfo: c.pageInfo,
      edges: c.edges,
    };
  };

  test('first/after walks forward and last/before walks backward over the same order as REST', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    await insertRecords(
      env,
      'contact',
      scope,
      Array.from({ length: 11 }, (_, i) => ({ first_name: { text: `G${i}` } })),
    );
    const restIds = (await env.as.alice.get('/contacts/v1', scope)).body.items.map(
      (x: { id: string }) => x.id,
    );
    expect(restIds).toHaveLength(11);

    const forward: string[] = [];
    let after: string | null = null;
    for (;;) {
      const p = await conn(env, scope, { first: 4, after });
      forward.push(...p.ids);
      expect(p.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(p.pageInfo.startCursor).toBe(p.edges[0].cursor);
      expect(p.pageInfo.endCursor).toBe(p.edges.at(-1).cursor);
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    expect(forward).toEqual(restIds);

    const backward: string[][] = [];
    let before: string | null = null;
    for (;;) {
      const p = await conn(env, scope, { last: 4, before });
      backward.unshift(p.ids);
      expect(p.pageInfo.hasNextPage).toBe(before !== null);
      if (!p.pageInfo.hasPreviousPage) break;
      before = p.pageInfo.startCursor;
    }
    expect(backward.map((b) => b.length)).toEqual([3, 4, 4]);
    expect(backward.flat()).toEqual(restIds);

    // A cursor from the middle works in both directions.
    const mid = (await conn(env, scope, { first: 6 })).edges[5].cursor;
    expect((await conn(env, scope, { first: 2, after: mid })).ids).toEqual(restIds.slice(6, 8));
    expect((await conn(env, scope, { last: 2, before: mid })).ids).toEqual(restIds.slice(3, 5));
    expect((await conn(env, scope, { first: 0 })).ids).toEqual([]);
    // REST nextKey and GraphQL cursors are the same keys: one can continue the other's walk.
    const nextKey = (await env.as.alice.get('/contacts/v1', { ...scope, limit: 3 })).body.nextKey;
    expect((await conn(env, scope, { first: 2, after: nextKey })).ids).toEqual(restIds.slice(3, 5));
    const fromGql = await env.as.alice.get('/contacts/v1', { ...scope, limit: 2, startKey: mid });
    expect(fromGql.body.items.map((x: { id: string }) => x.id)).toEqual(restIds.slice(6, 8));
  });

  test('totalCount counts the whole list, and costs a statement only when asked for', async ({ env }) => {
    const scope = await freshPortfolio(env);
    await insertRecords(
      env,
      'project',
      scope,
      Array.from({ length: 7 }, (_, i) => ({ name: { text: `T${i}` } })),
    );
    const q = (extra: string) =>
      env.as.alice.gql(
        `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) { projects(first: 2) { nodes { id } ${extra} } } } }`,
        {
          org: scope.orgId,
          pf: scope.portfolioId,
        },
      );
    await q(''); // warms the per-org caches, so the two measured requests differ only by totalCount
    const withCount = await q('totalCount');
    const without = await q('');
    expect(withCount.body.data.organization.portfolio.projects.totalCount).toBe(7);
    expect(withCount.body.data.organization.portfolio.projects.nodes).toHaveLength(2);
    expect(withCount.sql).toBe(without.sql + 1);
    const all = await env.as.alice.gql(
      'query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) { projects { totalCount } parcels { totalCount } contacts { totalCount } } } }',
      { org: env.demo.orgs.A.id, pf: env.demo.orgs.A.portfolios.A2 },
    );
    const { A } = env.demo.orgs;
    expect(all.body.data.organization.portfolio).toEqual({
      projects: { totalCount: await countIn(env, 'projects', A.portfolios.A2) },
      parcels: { totalCount: await countIn(env, 'parcels', A.portfolios.A2) },
      contacts: { totalCount: await countIn(env, 'contacts', A.portfolios.A2) },
    });
    expect(all.body.data.organization.portfolio.parcels.totalCount).toBeGreaterThanOrEqual(200);
  });

  test('bad paging arguments are refused with a code', async ({ env }) => {
    const s = a1(env);
    for (const [args, code] of [
      [{ first: -1 }, 'VALIDATION_FAILED'],
      [{ first: 5001 }, 'VALIDATION_FAILED'],
      [{ last: 5001 }, 'VALIDATION_FAILED'],
      [{ first: 1, last: 1 }, 'VALIDATION_FAILED'],
      // first counts from the start, so a before cursor would be ignored (and last with after).
      [{ first: 2, before: 'x' }, 'VALIDATION_FAILED'],
      [{ last: 2, after: 'x' }, 'VALIDATION_FAILED'],
      [{ after: 'x', before: 'y' }, 'VALIDATION_FAILED'],
      [{ after: 'nope' }, 'INVALID_CURSOR'],
      [{ last: 1, before: 'nope' }, 'INVALID_CURSOR'],
    ] as const) {
      const r = await env.as.alice.gql(CONN, { org: s.orgId, pf: s.portfolioId, ...args });
      expect(gqlError(r).code, JSON.stringify(args)).toBe(code);
    }
  });
});

describe('statement counts', () => {
  /** A fresh portfolio with n projects, each with people, select and multi_select values. */
  async function projects(env: TestEnv, n: number) {
    const scope = await freshPortfolio(env);
    const { alice, bob, vera, gina } = env.demo.users;
    const people = [alice.uid, bob.uid, vera.uid, gina.uid];
    await insertRecords(
      env,
      'project',
      scope,
      Array.from({ length: n }, (_, i) => ({
        name: { text: `S${i}` },
        stage: { select: [['origination', 'permitting', 'operating'][i % 3]] },
        offtake: { select: ['ppa', 'rec'].slice(0, 1 + (i % 2)) },
        owner: { people: [people[i % people.length]] },
        cod: { date: { start: '2030-01-01' } },
      })),
    );
    return scope;
  }

  test('values with people and select for 100 projects take as many statements as for 10', async ({
    env,
  }) => {
    const q = `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) { projects(first: 100) { totalCount nodes { id properties ${VALUES} } } } } }`;
    const run = async (scope: Scope) => {
      const r = await env.as.alice.gql(q, { org: scope.orgId, pf: scope.portfolioId });
      expect(r.body.errors).toBeUndefined();
      return r;
    };
    const ten = await run(await projects(env, 10));
    const hundred = await run(await projects(env, 100));
    expect(ten.body.data.organization.portfolio.projects.nodes).toHaveLength(10);
    const nodes = hundred.body.data.organization.portfolio.projects.nodes;
    expect(nodes).toHaveLength(100);
    // Every people value resolved to its user: S<i> is owned by PEOPLE[i % 4].
    const names = ['Alice Ambrose', 'Bob Barrera', 'Vera Vance', 'Gina Guerrero'];
    for (const n of nodes) {
      const i = Number(n.properties.name.text.slice(1));
      const owner = n.values.find((v: { propertyId: string }) => v.propertyId === 'owner');
      expect(owner.users.map((u: { name: string }) => u.name)).toEqual([names[i % 4]]);
      expect(n.properties.owner.labels).toEqual([names[i % 4]]);
    }
    expect(Number.isFinite(hundred.sql)).toBe(true);
    expect(hundred.sql).toBe(ten.sql);
    expect(hundred.sql).toBeLessThanOrEqual(8);
  });

  test('the REST list with labels takes as many statements for 100 records as for 10', async ({ env }) => {
    const ten = await env.as.alice.get('/projects/v1', await projects(env, 10));
    const hundred = await env.as.alice.get('/projects/v1', await projects(env, 100));
    expect(hundred.body.items).toHaveLength(100);
    expect(
      hundred.body.items.every(
        (x: { properties: { owner: { labels: string[] } } }) => x.properties.owner.labels[0].length > 0,
      ),
    ).toBe(true);
    expect(hundred.sql).toBe(ten.sql);
  });

  test('values of records reached through node(id) are batched too', async ({ env }) => {
    const scope = await projects(env, 20);
    const ids = (await env.as.alice.get('/projects/v1', scope)).body.items.map((x: { id: string }) => x.id);
    const query = (n: number) =>
      `query { ${ids
        .slice(0, n)
        .map((id: string, i: number) => `n${i}: node(id: "${id}") { ... on Project { ${VALUES} } }`)
        .join(' ')} }`;
    // 20 is the root-field limit of a query.
    const three = await env.as.alice.gql(query(3));
    const twenty = await env.as.alice.gql(query(20));
    expect(twenty.body.errors).toBeUndefined();
    expect(Object.keys(twenty.body.data)).toHaveLength(20);
    expect(twenty.sql).toBe(three.sql);
  });
});

describe('values that no longer fit', () => {
  test('a people value of a user who left the organization resolves to no user, and no e-mail', async ({
    env,
  }) => {
    const db = env.database.db;
    const { A } = env.demo.orgs;
    const leaver = await createUser(db, `leaver-${Date.now()}@elsewhere.example`, 'Lee Leaver');
    await addMember(db, A.id, leaver.id, 'member');
    const made = await newProject(env, { name: { text: 'Left' }, owner: { people: [leaver.id] } });
    expect(made.properties.owner).toEqual({ people: [leaver.id], labels: ['Lee Leaver'] });
    await db.deleteFrom('org_members').where('org_id', '=', A.id).where('user_id', '=', leaver.id).execute();
    // A change by hand in SQL: triggers bump the org's version; Citus has none, so bump as writers do.
    if (onCitus) await bumpOrgVersion(db, A.id);
    // The org's user list no longer has them, so nothing else may show who they are.
    const users = await env.as.alice.get('/users/v1', { orgId: A.id });
    expect(users.body.map((u: { uid: string }) => u.uid)).not.toContain(leaver.id);
    const r = await env.as.alice.gql(`query($id: ID!) { project(id: $id) { properties ${VALUES} } }`, {
      id: made.id,
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.raw).not.toContain('elsewhere.example');
    expect(r.raw).not.toContain('Lee Leaver');
    expect(
      r.body.data.project.values.find((v: { propertyId: string }) => v.propertyId === 'owner').users,
    ).toEqual([]);
    expect(r.body.data.project.properties.owner).toEqual({ people: [leaver.id], labels: [leaver.id] });
    const listed = await env.as.alice.get('/projects/v1', { ...a1(env), limit: 5000 });
    expect(listed.raw).not.toContain('Lee Leaver');
  });

  test('a value stored before its property changed type is left out of values, not an error', async ({
    env,
  }) => {
    const org = await freshOrg(env, { project: [{ id: 'size', name: 'Size', type: 'number' }] });
    const scope = { orgId: org.orgId, portfolioId: org.portfolioId };
    const made = await org.owner.post(
      '/projects/v1',
      { properties: { name: { text: 'Shift' }, size: { number: 5 } } },
      scope,
    );
    expect(made.status).toBe(200);
    // The CLI refuses type changes; an operator editing the table directly can still make one.
    await env.database.db
      .updateTable('property_defs')
      .set({ property_type: 'text' })
      .where('org_id', '=', org.orgId)
      .where('kind', '=', 'project')
      .where('id', '=', 'size')
      .execute();
    if (onCitus) await bumpOrgVersion(env.database.db, org.orgId); // no triggers on Citus
    const r = await org.owner.gql(
      `query($id: ID!) { project(id: $id) { ${VALUES} size: value(propertyId: "size") { __typename } } }`,
      { id: made.body.id },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.project.values.map((v: { propertyId: string }) => v.propertyId)).toEqual(['name']);
    expect(r.body.data.project.size).toBeNull();
    // The new type's values can be written over it.
    const u = await org.owner.put(
      `/projects/v1/${made.body.id}`,
      { properties: { size: { text: 'large' } } },
      scope,
    );
    expect(u.body.properties.size).toEqual({ text: 'large' });
  });
});
