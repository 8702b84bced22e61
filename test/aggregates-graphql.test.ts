import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../src/app.js';
import { acresOf, insertParcels, PARCEL_PROPS, PARCELS_AGG } from './aggregates-helpers.js';
import { gqlError, prop } from './filters-helpers.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { client } from './helpers/http.js';
import { a1, freshOrg } from './records-helpers.js';

/** Dashboards (issue 41): aggregates, grouped aggregates and checkbox facets, end to end. */

const apps: FastifyInstance[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

/** A client of an app with the planned executor off (GRAPHQL_PLANS=0). */
async function unplanned(env: TestEnv, apiKey: string) {
  const app = await buildApp({ database: env.database, graphqlPlans: false, exposeStatementCount: true });
  apps.push(app);
  return client(app, apiKey);
}

async function setup(env: TestEnv) {
  const org = await freshOrg(env, { parcel: PARCEL_PROPS }, { defaults: false });
  const scope = { orgId: org.orgId, portfolioId: org.portfolioId };
  const u = org.ownerUid;
  const ids = await insertParcels(env, scope, [
    {
      side: 0.01,
      properties: {
        status: { select: ['a'] },
        tags: { select: ['x', 'y'] },
        price: { number: 10.5 },
        irrigated: { checkbox: true },
        closing: { date: { start: '2026-01-15' } },
        agent: { people: [u] },
        note: { text: 'one' },
      },
    },
    {
      side: 0.02,
      properties: {
        status: { select: ['a'] },
        tags: { select: ['y'] },
        price: { number: 4 },
        irrigated: { checkbox: false },
        closing: { date: { start: '2026-02-01' } },
      },
    },
    {
      side: 0.03,
      properties: {
        status: { select: ['b'] },
        price: { number: -2.25 },
        closing: { date: { start: '2025-12-31' } },
      },
    },
    { properties: { tags: { select: ['z'] }, irrigated: { checkbox: true }, note: { text: '' } } },
  ]);
  return { org, scope, ids, gql: org.owner.gql };
}

describe('aggregates', () => {
  test('count, sum, avg, min, max, dates, times and value counts, in one statement', async ({ env }) => {
    const { scope, ids, gql } = await setup(env);
    const acres = await acresOf(env, ids);
    const a = [...acres.values()].filter((x): x is number => x != null);
    const q0 = PARCELS_AGG(`totalCount aggregates {
        count
        sum(propertyId: "price") avg(propertyId: "price") min(propertyId: "price") max(propertyId: "price")
        acres: sum(field: ACRES) meanAcres: avg(field: ACRES) minAcres: min(field: ACRES) maxAcres: max(field: ACRES)
        minDate(propertyId: "closing") maxDate(propertyId: "closing")
        minTime(field: CREATED_AT) maxTime(field: UPDATED_AT)
        withValue(propertyId: "note") withoutValue(propertyId: "note")
        tagged: withValue(propertyId: "tags") untagged: withoutValue(propertyId: "tags")
        __typename
      }`);
    const r = await gql(q0, { pf: scope.portfolioId });
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    const agg = r.body.data.node.parcels.aggregates;
    expect(agg.count).toBe(4);
    expect(agg.sum).toBeCloseTo(12.25, 10);
    expect(agg.avg).toBeCloseTo(12.25 / 3, 10);
    expect([agg.min, agg.max]).toEqual([-2.25, 10.5]);
    expect(a).toHaveLength(3);
    expect(agg.acres).toBeCloseTo(
      a.reduce((s, x) => s + x, 0),
      6,
    );
    expect(agg.meanAcres).toBeCloseTo(agg.acres / 3, 6);
    expect([agg.minAcres, agg.maxAcres]).toEqual([Math.min(...a), Math.max(...a)]);
    expect([agg.minDate, agg.maxDate]).toEqual(['2025-12-31', '2026-02-01']);
    expect(Date.parse(agg.minTime)).toBeLessThanOrEqual(Date.parse(agg.maxTime));
    // An empty text is no value, as `isEmpty: true` says.
    expect([agg.withValue, agg.withoutValue, agg.tagged, agg.untagged]).toEqual([1, 3, 3, 1]);
    expect(agg.__typename).toBe('RecordAggregates');
    // One statement, however many aggregates are asked for (the schema is cached by now).
    const again = await gql(q0, { pf: scope.portfolioId });
    expect(again.body).toEqual(r.body);
    const bare = await gql(PARCELS_AGG('totalCount'), { pf: scope.portfolioId });
    expect(again.sql - bare.sql).toBe(1);
  });

  test('follow the filter and search; over no records they are 0 and null', async ({ env }) => {
    const { scope, gql } = await setup(env);
    const q = PARCELS_AGG(
      'totalCount aggregates { count sum(propertyId: "price") minDate(propertyId: "closing") }',
    );
    const f = await gql(q, { pf: scope.portfolioId, filter: prop('status', { select: { in: ['a'] } }) });
    expect(f.body.data.node.parcels.aggregates).toEqual({ count: 2, sum: 14.5, minDate: '2026-01-15' });
    const s = await gql(q, { pf: scope.portfolioId, search: 'one' });
    expect(s.body.data.node.parcels.aggregates).toEqual({ count: 1, sum: 10.5, minDate: '2026-01-15' });
    const none = await gql(q, { pf: scope.portfolioId, search: 'nothing like it' });
    expect(none.body.data.node.parcels).toEqual({
      totalCount: 0,
      aggregates: { count: 0, sum: null, minDate: null },
    });
    // spatial: only the biggest square's corner region
    const box = { west: -99.95, south: 29.9, east: -99.7, north: 30.2 };
    const b = await gql(q, { pf: scope.portfolioId, filter: { bbox: box } });
    expect(b.body.data.node.parcels.aggregates.count).toBe(b.body.data.node.parcels.totalCount);
  });

  test('a sum beyond a Float’s range is null, not a failure', async ({ env }) => {
    const org = await freshOrg(env, { parcel: PARCEL_PROPS }, { defaults: false });
    const scope = { orgId: org.orgId, portfolioId: org.portfolioId };
    await insertParcels(env, scope, [
      { properties: { price: { number: 1.5e308 } } },
      { properties: { price: { number: 1.5e308 } } },
    ]);
    const r = await org.owner.gql(
      PARCELS_AGG(
        'aggregates { sum(propertyId: "price") avg(propertyId: "price") max(propertyId: "price") }',
      ),
      { pf: scope.portfolioId },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.node.parcels.aggregates).toEqual({ sum: null, avg: 1.5e308, max: 1.5e308 });
  });

  test('values stored in another shape by an older release count as no value', async ({ env }) => {
    const org = await freshOrg(env, { parcel: PARCEL_PROPS }, { defaults: false });
    const scope = { orgId: org.orgId, portfolioId: org.portfolioId };
    await insertParcels(env, scope, [
      { properties: { closing: { text: 'soon' } as never, price: { text: '12' } as never } },
      { properties: { closing: { date: { start: 'next week' } }, irrigated: { text: 'yes' } as never } },
      { properties: { closing: { date: { start: '2026-05-04' } }, tags: { text: 'x' } as never } },
    ]);
    const r = await org.owner.gql(
      PARCELS_AGG(`aggregates { count sum(propertyId: "price") }
        byMonth: groupedAggregates(groupBy: [{ propertyId: "closing", bucket: MONTH }]) { groups { keys { label } aggregates { count } } }
        byBox: groupedAggregates(groupBy: [{ propertyId: "irrigated" }, { propertyId: "tags" }]) { groups { keys { label } aggregates { count } } }`),
      { pf: scope.portfolioId },
    );
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    const p = r.body.data.node.parcels;
    expect(p.aggregates).toEqual({ count: 3, sum: null });
    expect(p.byMonth.groups).toEqual([
      { keys: [{ label: '2026-05' }], aggregates: { count: 1 } },
      { keys: [{ label: 'No value' }], aggregates: { count: 2 } },
    ]);
    expect(p.byBox.groups).toEqual([
      { keys: [{ label: 'No value' }, { label: 'No value' }], aggregates: { count: 3 } },
    ]);
  });

  test('on link lists, every parent’s aggregates come from one statement', async ({ env }) => {
    const q = `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
      projects(first: 20) { edges { node { id contacts(first: 1) { totalCount aggregates { count minTime(field: CREATED_AT) } } } } }
    } } }`;
    // Compared on the executor (the plan answers the query without aggregates in other statements).
    const alice = await unplanned(env, env.demo.users.alice.apiKey);
    await alice.gql(q, { org: a1(env).orgId, pf: a1(env).portfolioId }); // caches warm
    const r = await alice.gql(q, { org: a1(env).orgId, pf: a1(env).portfolioId });
    expect(r.body.errors).toBeUndefined();
    const conns = r.body.data.organization.portfolio.projects.edges.map((e: any) => e.node.contacts);
    expect(conns.length).toBeGreaterThan(1);
    for (const c of conns) expect(c.aggregates.count).toBe(c.totalCount);
    const without = await alice.gql(q.replace(' aggregates { count minTime(field: CREATED_AT) }', ''), {
      org: a1(env).orgId,
      pf: a1(env).portfolioId,
    });
    expect(r.sql - without.sql).toBe(1);
  });
});

describe('grouped aggregates', () => {
  const GROUPED = (groupBy: string, extra = '') =>
    PARCELS_AGG(`groupedAggregates(groupBy: ${groupBy}${extra}) { totalGroups truncated
      groups { keys { value label empty } aggregates { count sum(propertyId: "price") } } }`);
  const flat = (r: any) =>
    r.body.data.node.parcels.groupedAggregates.groups.map((g: any) => [
      ...g.keys.map((k: any) => k.label),
      g.aggregates.count,
      g.aggregates.sum,
    ]);

  test('by select, multi_select, people and checkbox, no value last and labelled', async ({ env }) => {
    const { scope, gql, org } = await setup(env);
    const pf = scope.portfolioId;
    const bySelect = await gql(GROUPED('[{ propertyId: "status" }]'), { pf });
    expect(bySelect.body.errors, JSON.stringify(bySelect.body.errors)).toBeUndefined();
    expect(flat(bySelect)).toEqual([
      ['A', 2, 14.5],
      ['B', 1, -2.25],
      ['No value', 1, null],
    ]);
    expect(bySelect.body.data.node.parcels.groupedAggregates.groups[2].keys[0]).toEqual({
      value: null,
      label: 'No value',
      empty: true,
    });
    // A record counts in each of its options.
    expect(flat(await gql(GROUPED('[{ propertyId: "tags" }]'), { pf }))).toEqual([
      ['X', 1, 10.5],
      ['Y', 2, 14.5],
      ['Z', 1, null],
      ['No value', 1, -2.25],
    ]);
    const people = await gql(GROUPED('[{ propertyId: "agent" }]'), { pf });
    expect(people.body.data.node.parcels.groupedAggregates.groups.map((g: any) => g.keys[0])).toEqual([
      { value: org.ownerUid, label: expect.stringMatching(/^Owner /), empty: false },
      { value: null, label: 'No value', empty: true },
    ]);
    expect(flat(await gql(GROUPED('[{ propertyId: "irrigated" }]'), { pf }))).toEqual([
      ['Unchecked', 1, 4],
      ['Checked', 2, 10.5],
      ['No value', 1, -2.25],
    ]);
  });

  test('by date buckets and createdAt, two keys, orders and the cut', async ({ env }) => {
    const { scope, gql } = await setup(env);
    const pf = scope.portfolioId;
    const months = await gql(GROUPED('[{ propertyId: "closing", bucket: MONTH }]'), { pf });
    expect(months.body.data.node.parcels.groupedAggregates.groups.map((g: any) => g.keys[0])).toEqual([
      { value: '2025-12-01', label: '2025-12', empty: false },
      { value: '2026-01-01', label: '2026-01', empty: false },
      { value: '2026-02-01', label: '2026-02', empty: false },
      { value: null, label: 'No value', empty: true },
    ]);
    const labels = async (bucket: string) =>
      flat(await gql(GROUPED(`[{ propertyId: "closing", bucket: ${bucket} }]`), { pf })).map(
        (g: any) => g[0],
      );
    expect(await labels('QUARTER')).toEqual(['2025-Q4', '2026-Q1', 'No value']);
    expect(await labels('YEAR')).toEqual(['2025', '2026', 'No value']);
    expect(await labels('WEEK')).toEqual(['2026-W01', '2026-W03', '2026-W05', 'No value']);
    expect(await labels('DAY')).toEqual(['2025-12-31', '2026-01-15', '2026-02-01', 'No value']);
    const created = await gql(GROUPED('[{ field: CREATED_AT, bucket: YEAR }]'), { pf });
    expect(flat(created)).toEqual([[String(new Date().getUTCFullYear()), 4, 12.25]]);
    // Two keys: every pair that has records.
    const two = await gql(GROUPED('[{ propertyId: "status" }, { propertyId: "irrigated" }]'), { pf });
    expect(flat(two)).toEqual([
      ['A', 'Unchecked', 1, 4],
      ['A', 'Checked', 1, 10.5],
      ['B', 'No value', 1, -2.25],
      ['No value', 'Checked', 1, null],
    ]);
    // By an aggregate, nulls last; then cut to `first`, flagged.
    const bySum = await gql(
      GROUPED(
        '[{ propertyId: "tags" }]',
        ', orderBy: { by: SUM, propertyId: "price", direction: DESC }, first: 3',
      ),
      { pf },
    );
    expect(flat(bySum)).toEqual([
      ['Y', 2, 14.5],
      ['X', 1, 10.5],
      ['No value', 1, -2.25],
    ]);
    expect(bySum.body.data.node.parcels.groupedAggregates).toMatchObject({ totalGroups: 4, truncated: true });
    const byCount = await gql(
      GROUPED('[{ propertyId: "tags" }]', ', orderBy: { by: COUNT, direction: DESC }'),
      {
        pf,
      },
    );
    expect(flat(byCount).map((g: any) => g[0])).toEqual(['Y', 'X', 'Z', 'No value']);
    const keyDesc = await gql(
      GROUPED('[{ propertyId: "status" }]', ', orderBy: { by: KEY, direction: DESC }'),
      {
        pf,
      },
    );
    expect(flat(keyDesc).map((g: any) => g[0])).toEqual(['B', 'A', 'No value']);
    expect(bySum.body.data.node.parcels.groupedAggregates.groups).toHaveLength(3);
    const all = await gql(GROUPED('[{ propertyId: "tags" }]', ', first: 4'), { pf });
    expect(all.body.data.node.parcels.groupedAggregates).toMatchObject({ totalGroups: 4, truncated: false });
  });

  test('the same answers with the planned executor off', async ({ env }) => {
    const q = `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
      parcels(first: 2) { totalCount edges { node { id } }
        aggregates { count sum(field: ACRES) }
        groupedAggregates(groupBy: [{ propertyId: "parcel-status" }]) { groups { keys { label } aggregates { count } } } } } } }`;
    const vars = { org: a1(env).orgId, pf: a1(env).portfolioId };
    const planned = await env.as.alice.gql(q, vars);
    expect(planned.body.errors).toBeUndefined();
    expect(planned.body.data.organization.portfolio.parcels.aggregates.count).toBeGreaterThan(0);
    expect(planned.body.data.organization.portfolio.parcels.groupedAggregates.groups.length).toBeGreaterThan(
      1,
    );
    const plain = await (await unplanned(env, env.demo.users.alice.apiKey)).gql(q, vars);
    expect(plain.body).toEqual(planned.body);
  });
});

describe('checkbox facets', () => {
  test('count true, false and records without a value, under the filter', async ({ env }) => {
    const { scope, gql } = await setup(env);
    const q = PARCELS_AGG('totalCount facets(propertyId: "irrigated") { value label count }');
    const r = await gql(q, { pf: scope.portfolioId });
    expect(r.body.data.node.parcels.facets).toEqual([
      { value: 'true', label: 'Checked', count: 2 },
      { value: 'false', label: 'Unchecked', count: 1 },
      { value: null, label: null, count: 1 },
    ]);
    const f = await gql(q, { pf: scope.portfolioId, filter: prop('status', { select: { in: ['b'] } }) });
    expect(f.body.data.node.parcels.facets).toEqual([
      { value: 'true', label: 'Checked', count: 0 },
      { value: 'false', label: 'Unchecked', count: 0 },
      { value: null, label: null, count: 1 },
    ]);
  });
});

describe('bad input', () => {
  test('a misfit type, a wrong group key or an unknown property is a 400 saying what fits (VALIDATION_FAILED), answered as a bad filter is', async ({
    env,
  }) => {
    const { scope, gql } = await setup(env);
    const pf = scope.portfolioId;
    // Refused as a bad filter is: HTTP 400, a GraphQL error with its code, the field's data null.
    const filterStatus = (
      await gql(PARCELS_AGG('totalCount'), { pf, filter: prop('nope', { text: { eq: 'x' } }) })
    ).status;
    expect(filterStatus).toBe(400);
    const bad = async (inner: string) => {
      const r = await gql(PARCELS_AGG(inner), { pf });
      expect(r.status, inner).toBe(filterStatus);
      expect(r.body.data?.node ?? null).toBeNull();
      return gqlError(r);
    };
    const sumText = await bad('aggregates { sum(propertyId: "note") }');
    expect(sumText.code).toBe('VALIDATION_FAILED');
    expect(sumText.message).toMatch(/sum does not take a text property/);
    expect(sumText.message).toMatch(/sum, avg, min and max take a number property or field ACRES/);
    expect(sumText.details).toEqual([
      expect.objectContaining({
        field: 'note',
        path: 'aggregates.sum',
        reason: expect.stringMatching(/minDate and maxDate a date property/),
      }),
    ]);
    const many = await bad(
      'aggregates { sum(propertyId: "nope") minDate(propertyId: "price") max(field: ACRES) both: avg(propertyId: "price", field: ACRES) none: avg }',
    );
    expect(many.details.map((d: any) => d.field)).toEqual(['nope', 'price', 'avg', 'avg']);
    expect(many.details[0].reason).toMatch(/unknown property "nope"/);
    const key = await bad('groupedAggregates(groupBy: [{ propertyId: "price" }]) { totalGroups }');
    expect(key.details[0].reason).toMatch(
      /a number property cannot group; group by a select, multi_select, people, checkbox property/,
    );
    expect(
      (await bad('groupedAggregates(groupBy: [{ propertyId: "closing" }]) { totalGroups }')).details[0]
        .reason,
    ).toMatch(/give bucket/);
    expect(
      (await bad('groupedAggregates(groupBy: [{ propertyId: "status", bucket: DAY }]) { totalGroups }')).code,
    ).toBe('VALIDATION_FAILED');
    expect(
      (await bad('groupedAggregates(groupBy: [{ propertyId: "zzz" }]) { totalGroups }')).details[0].reason,
    ).toMatch(/unknown property "zzz"/);
    expect(
      (
        await bad(
          'groupedAggregates(groupBy: [{ propertyId: "status" }, { propertyId: "tags" }, { propertyId: "agent" }]) { totalGroups }',
        )
      ).details[0].reason,
    ).toMatch(/give 1 or 2 group keys, not 3/);
    expect((await bad('groupedAggregates(groupBy: []) { totalGroups }')).code).toBe('VALIDATION_FAILED');
    expect(
      (await bad('groupedAggregates(groupBy: [{ propertyId: "status" }], first: 0) { totalGroups }'))
        .details[0].field,
    ).toBe('first');
    expect(
      (
        await bad(
          'groupedAggregates(groupBy: [{ propertyId: "status" }], orderBy: { by: SUM, propertyId: "note" }) { totalGroups }',
        )
      ).details[0],
    ).toMatchObject({ field: 'note', path: 'orderBy' });
    // ACRES is a parcel's.
    const pr = await gql(
      `query($pf: ID!) { node(id: $pf) { ... on Portfolio { projects(first: 0) { aggregates { sum(field: ACRES) } } } } }`,
      { pf },
    );
    expect(gqlError(pr).message).toMatch(/a project has no acres/);
  });
});

describe('access and cost', () => {
  test('a guest aggregates their portfolio as the owner does, and nothing else', async ({ env }) => {
    const q = `query($pf: ID!) { node(id: $pf) { ... on Portfolio { projects(first: 0) { totalCount
      aggregates { count withValue(propertyId: "stage") }
      groupedAggregates(groupBy: [{ propertyId: "stage" }]) { groups { keys { value } aggregates { count } } } } } } }`;
    const pf = a1(env).portfolioId;
    const gina = await env.as.gina.gql(q, { pf });
    const alice = await env.as.alice.gql(q, { pf });
    expect(gina.body.errors).toBeUndefined();
    expect(gina.body).toEqual(alice.body);
    expect(gina.body.data.node.projects.aggregates.count).toBe(gina.body.data.node.projects.totalCount);
    const out = await env.as.gina.gql(q, { pf: env.demo.orgs.A.portfolios.A2 });
    expect(out.body.data?.node ?? null).toBeNull();
    const other = await env.as.nora.gql(q, { pf });
    expect(other.body.data?.node ?? null).toBeNull();
  });

  test('aggregates count one node each, groups `first` nodes each', async ({ env }) => {
    const pf = a1(env).portfolioId;
    const q = (first: number, groups: number) => `query($pf: ID!) { node(id: $pf) { ... on Portfolio {
      projects(first: ${first}) { edges { node { contacts(first: 1) { aggregates { count }
        groupedAggregates(groupBy: [{ propertyId: "contact_type" }], first: ${groups}) { totalGroups } } } } } } } }`;
    const ok = await env.as.alice.gql(q(100, 900), { pf });
    expect(ok.body.errors).toBeUndefined();
    const r = await env.as.alice.gql(q(100, 1000), { pf });
    expect(r.status).toBe(400);
    expect(gqlError(r).code).toBe('QUERY_TOO_COMPLEX');
  });
});
