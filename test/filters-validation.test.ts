import { gqlError, PROJECTS, projectIds, prop } from './filters-helpers.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { a1, freshPortfolio, insertRecords } from './records-helpers.js';

/** Bad filters, orders, searches and cursors get 400s with codes and details; access rules hold. */

const run = (env: any, args: Record<string, unknown>, scope = a1(env)) =>
  env.as.alice.gql(PROJECTS, { pf: scope.portfolioId, first: 5, ...args });

describe('validation', () => {
  test('an unknown property names the property', async ({ env }) => {
    const r = await run(env, { filter: prop('nope', { text: { eq: 'x' } }) });
    const e = gqlError(r);
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details).toEqual([expect.objectContaining({ field: 'nope', path: 'filter.property' })]);
    expect(r.body.data.node).toBeNull();
  });

  test('an operator group that does not fit the type lists the allowed operators', async ({ env }) => {
    const r = await run(env, { filter: prop('capacity_mw', { text: { contains: '1' } }) });
    const e = gqlError(r);
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details).toEqual([
      expect.objectContaining({
        field: 'capacity_mw',
        operatorGroup: 'number',
        allowedOperators: ['eq', 'lt', 'lte', 'gt', 'gte', 'between', 'isEmpty'],
      }),
    ]);
    // two groups, no group, an empty group
    for (const p of [{ number: { eq: 1 }, text: { eq: 'x' } }, {}, { number: {} }]) {
      const x = gqlError(await run(env, { filter: prop('capacity_mw', p) }));
      expect(x.code).toBe('VALIDATION_FAILED');
      expect(x.details[0]).toMatchObject({ field: 'capacity_mw', operatorGroup: 'number' });
    }
  });

  test('option ids and people are checked like writes; every problem is reported at once', async ({
    env,
  }) => {
    const r = await run(env, {
      filter: {
        and: [
          prop('stage', { select: { in: ['permitting', 'no-such-option'] } }),
          prop('offtake', { multiSelect: { containsAll: ['bogus'] } }),
          prop('owner', { people: { in: [env.demo.users.nora.uid] } }),
        ],
      },
    });
    const e = gqlError(r);
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details.map((d: { field: string }) => d.field).sort()).toEqual(['offtake', 'owner', 'stage']);
  });

  test('orderBy and search limits', async ({ env }) => {
    for (const orderBy of [
      [{ property: 'offtake' }],
      [{ property: 'nope' }],
      [{ property: 'name', field: 'CREATED_AT' }],
      [{}],
      [{ field: 'CREATED_AT', nulls: 'FIRST' }],
    ]) {
      const e = gqlError(await run(env, { orderBy }));
      expect(e.code, JSON.stringify(orderBy)).toBe('VALIDATION_FAILED');
    }
    expect(gqlError(await run(env, { search: 'x'.repeat(201) })).code).toBe('VALIDATION_FAILED');
    // a text operand may be as long as stored text (10,000), not longer
    expect(
      (await run(env, { filter: prop('name', { text: { eq: 'x'.repeat(10_000) } }) })).body.errors,
    ).toBeUndefined();
    expect(
      gqlError(await run(env, { filter: prop('name', { text: { contains: 'x'.repeat(10_001) } }) })).code,
    ).toBe('VALIDATION_FAILED');
    const deep: any = prop('name', { text: { eq: 'x' } });
    let f = deep;
    for (let i = 0; i < 12; i++) f = { not: f };
    expect(gqlError(await run(env, { filter: f })).code).toBe('VALIDATION_FAILED');
    // Wrong scalar types are GraphQL validation errors, not 500s.
    const bad = await run(env, { filter: prop('cod', { date: { eq: '2026-02-30' } }) });
    expect(bad.status).toBe(400);
    expect(gqlError(await run(env, { filter: prop('name', { text: { eq: 5 } }) })).code).toMatch(
      /BAD_|VALID/,
    );
  });

  test('facets of a property that has none', async ({ env }) => {
    const q = `query($pf: ID!, $p: ID!) { node(id: $pf) { ... on Portfolio { projects { facets(propertyId: $p) { value count } } } } }`;
    for (const p of ['capacity_mw', 'nope']) {
      const e = gqlError(await env.as.alice.gql(q, { pf: a1(env).portfolioId, p }));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.details[0].field).toBe(p);
    }
  });
});

describe('cursors', () => {
  test('a cursor replayed under another order, filter or search is refused', async ({ env }) => {
    const scope = await freshPortfolio(env);
    await insertRecords(
      env,
      'project',
      scope,
      Array.from({ length: 6 }, (_, i) => ({ name: { text: `n${i}` }, capacity_mw: { number: i } })),
    );
    const orderBy = [{ property: 'capacity_mw', direction: 'DESC' }];
    const p = await run(env, { orderBy, first: 2 }, scope);
    const after = p.body.data.node.projects.pageInfo.endCursor;
    expect((await run(env, { orderBy, first: 2, after }, scope)).body.errors).toBeUndefined();
    for (const args of [
      { orderBy: [{ property: 'capacity_mw' }] },
      {},
      { orderBy, search: 'n' },
      { orderBy, filter: prop('capacity_mw', { number: { gt: 0 } }) },
    ]) {
      const e = gqlError(await run(env, { ...args, first: 2, after }, scope));
      expect(e.code, JSON.stringify(args)).toBe('INVALID_CURSOR');
    }
    // and a plain cursor is no good under an order
    const plain = (await run(env, { first: 2 }, scope)).body.data.node.projects.pageInfo.endCursor;
    expect(gqlError(await run(env, { orderBy, first: 2, after: plain }, scope)).code).toBe('INVALID_CURSOR');
  });
});

describe('access', () => {
  test('a guest’s filters, counts and facets never reach outside their portfolio', async ({ env }) => {
    // gina is a guest of A1 only; A2 is out of reach whatever the filter.
    const a2 = env.demo.orgs.A.portfolios.A2;
    const q = `query($pf: ID!) { node(id: $pf) { ... on Portfolio { projects(filter: { or: [] }, search: "a") { totalCount } } } }`;
    const r = await env.as.gina.gql(q, { pf: a2 });
    expect(r.body.data?.node ?? null).toBeNull();
    // In A1 her counts equal the owner's, and a search through link lists stays in A1.
    const f = { filter: prop('stage', { select: { in: ['permitting', 'operating'] } }) };
    const mine = await projectIds(env.as.gina, a1(env), f);
    const owner = await projectIds(env.as.alice, a1(env), f);
    expect(mine.total).toBe(owner.total);
    expect(mine.ids).toEqual(owner.ids);
    // Facet counts of A1 add up to A1's own total.
    const fq = `query($pf: ID!) { node(id: $pf) { ... on Portfolio { projects { totalCount facets(propertyId: "stage") { value count } } } } }`;
    const g = (await env.as.gina.gql(fq, { pf: a1(env).portfolioId })).body.data.node.projects;
    expect(g.facets.reduce((s: number, x: { count: number }) => s + x.count, 0)).toBe(g.totalCount);
  });

  test('filters never reach another tenant', async ({ env }) => {
    // nora (org B) filtering by org A's users and options sees neither A's records nor their ids.
    const b1 = { orgId: env.demo.orgs.B.id, portfolioId: env.demo.orgs.B.portfolios.B1 };
    const r = await env.as.nora.gql(PROJECTS, {
      pf: b1.portfolioId,
      first: 500,
      filter: prop('owner', { people: { in: [env.demo.users.alice.uid] } }),
    });
    expect(gqlError(r).code).toBe('VALIDATION_FAILED');
    const all = await projectIds(env.as.nora, b1, { search: 'a' });
    const aIds = (await projectIds(env.as.alice, a1(env), { search: 'a' })).ids;
    expect(all.ids.filter((id) => aIds.includes(id))).toEqual([]);
    // and org A's portfolio is simply not there for nora
    const x = await env.as.nora.gql(PROJECTS, { pf: a1(env).portfolioId, first: 5, search: 'a' });
    expect(x.body.data?.node ?? null).toBeNull();
  });
});
