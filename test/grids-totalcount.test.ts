import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { createPortfolio } from '../src/modules/org/repository.js';
import { bulkInsertRecords, EXACT_COUNT_LIMIT } from '../src/modules/records/repository.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';
import { logSink } from './helpers/logs.js';

/**
 * totalCount on a portfolio larger than the exact-count limit (issue 41, "grids at county scale"):
 * exact and unflagged without a filter or with few matches, flagged and close when many match; the
 * number range filters (compiled over the sort key so a sort index serves them) answer as the
 * straightforward computation does, missing values included; and the planned path
 * (src/graphql/plan) answers the same bytes as the executor.
 */
const N = 2500;
const seeded = seededDatabase();
let planned: FastifyInstance;
let plain: FastifyInstance;
let log: ReturnType<typeof logSink>;
let scope: { orgId: string; portfolioId: string };
/** The in-test model: each parcel's acreage (undefined when it has none). */
const acres: (number | undefined)[] = [];

beforeAll(async () => {
  const { database, demo } = seeded;
  log = logSink('info');
  planned = await buildApp({ database, logger: log.logger, exposeStatementCount: true });
  plain = await buildApp({ database, graphqlPlans: false, exposeStatementCount: true });
  const orgId = demo.orgs.A.id;
  const portfolioId = (await createPortfolio(database.db, orgId, 'County roll')).id;
  scope = { orgId, portfolioId };
  for (let i = 0; i < N; i++) acres.push(i % 10 === 9 ? undefined : (i * 7919) % 1000);
  await bulkInsertRecords(
    database.db,
    'parcel',
    orgId,
    portfolioId,
    acres.map((a, i) => ({
      properties: {
        name: { text: `${i % 3 ? 'Travis' : 'Lubbock'} County tract ${i}` },
        ...(a === undefined ? {} : { acreage: { number: a } }),
      },
    })),
  );
});

afterAll(async () => {
  await planned?.close();
  await plain?.close();
});

const GRID = `query G($orgId: ID!, $portfolioId: ID!, $filter: RecordFilter, $search: String) {
  organization(id: $orgId) { portfolio(id: $portfolioId) {
    parcels(first: 5, filter: $filter, search: $search) { totalCount totalCountIsEstimate nodes { id } }
  } } }`;

/** Asks both apps; their answers must be the same bytes, and the planned one must come from the plan. */
async function grid(args: { filter?: unknown; search?: string }) {
  const key = seeded.demo.users.alice.apiKey;
  const before = log.lines.length;
  const a = await client(planned, key).gql(GRID, { ...scope, ...args });
  expect(log.lines.slice(before).some((l) => l.msg === 'request' && l.planned === true)).toBe(true);
  const b = await client(plain, key).gql(GRID, { ...scope, ...args });
  expect(a.body.errors, JSON.stringify(a.body.errors)).toBeUndefined();
  expect(a.raw).toBe(b.raw);
  const p = a.body.data.organization.portfolio.parcels;
  return { count: p.totalCount as number, estimate: p.totalCountIsEstimate as boolean };
}

const matching = (f: (a: number | undefined) => boolean) => acres.filter(f).length;

describe('totalCount at county scale', () => {
  test('the limit leaves room for this test: the portfolio is larger than it', () => {
    expect(N).toBeGreaterThan(2 * EXACT_COUNT_LIMIT);
  });

  test('without a filter the count is exact and unflagged', async () => {
    expect(await grid({})).toEqual({ count: N, estimate: false });
  });

  test('up to the limit a filtered count is exact and unflagged', async () => {
    const want = matching((a) => a !== undefined && a >= 700);
    expect(want).toBeLessThanOrEqual(EXACT_COUNT_LIMIT);
    expect(await grid({ filter: { property: { id: 'acreage', number: { gte: 700 } } } })).toEqual({
      count: want,
      estimate: false,
    });
    const lubbock = Math.ceil(N / 3);
    expect(lubbock).toBeLessThanOrEqual(EXACT_COUNT_LIMIT);
    expect(await grid({ search: 'lubbock' })).toEqual({ count: lubbock, estimate: false });
  });

  test('above the limit the count is flagged as an estimate, and close', async () => {
    // Every parcel matches: the first 1,001 ids all match, so the estimate is the portfolio's size.
    expect(await grid({ search: 'county' })).toEqual({ count: N, estimate: true });
    // Two in three match.
    const travis = N - Math.ceil(N / 3);
    const t = await grid({ search: 'travis' });
    expect(t.estimate).toBe(true);
    expect(Math.abs(t.count - travis) / travis).toBeLessThan(0.1);
    // Under a number filter, with the parcels that have no acreage left out.
    const want = matching((a) => a !== undefined && a < 500);
    expect(want).toBeGreaterThan(EXACT_COUNT_LIMIT);
    const r = await grid({ filter: { property: { id: 'acreage', number: { lt: 500 } } } });
    expect(r.estimate).toBe(true);
    expect(Math.abs(r.count - want) / want).toBeLessThan(0.1);
  });

  test('asking whether the count is an estimate runs no second count', async () => {
    const key = seeded.demo.users.alice.apiKey;
    const ask = async (app: FastifyInstance, fields: string) => {
      const r = await client(app, key).gql(
        `query G($orgId: ID!, $portfolioId: ID!, $search: String) { organization(id: $orgId) {
          portfolio(id: $portfolioId) { parcels(first: 5, search: $search) { ${fields} } } } }`,
        { ...scope, search: 'county' },
      );
      expect(r.body.errors).toBeUndefined();
      return Number(r.headers['x-sql-statements']);
    };
    for (const app of [planned, plain]) {
      const alone = await ask(app, 'totalCount');
      expect(await ask(app, 'totalCount totalCountIsEstimate')).toBe(alone);
      expect(await ask(app, 'totalCountIsEstimate')).toBe(alone);
    }
  });

  test('a map page says when its totalCount is an estimate too', async () => {
    const key = seeded.demo.users.alice.apiKey;
    const features = async (number: Record<string, unknown>) => {
      const r = await client(planned, key).gql(
        `query F($orgId: ID!, $portfolioId: ID!, $filter: RecordFilter) { organization(id: $orgId) {
          portfolio(id: $portfolioId) { parcelFeatures(first: 2, filter: $filter) { totalCount totalCountIsEstimate } } } }`,
        { ...scope, filter: { property: { id: 'acreage', number } } },
      );
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data.organization.portfolio.parcelFeatures;
    };
    expect(await features({ gte: 700 })).toEqual({
      totalCount: matching((a) => a !== undefined && a >= 700),
      totalCountIsEstimate: false,
    });
    expect((await features({ lt: 500 })).totalCountIsEstimate).toBe(true);
  });

  test('number ranges answer as the straightforward computation does, missing values included', async () => {
    const cases: [Record<string, unknown>, (a: number) => boolean][] = [
      [{ gte: 900 }, (a) => a >= 900],
      [{ gt: 900 }, (a) => a > 900],
      [{ lte: 50 }, (a) => a <= 50],
      [{ lt: 50 }, (a) => a < 50],
      [{ between: { min: 100, max: 180 } }, (a) => a >= 100 && a <= 180],
      [{ gte: 100, lt: 150 }, (a) => a >= 100 && a < 150],
    ];
    for (const [number, f] of cases) {
      const want = matching((a) => a !== undefined && f(a));
      expect(want, JSON.stringify(number)).toBeLessThanOrEqual(EXACT_COUNT_LIMIT);
      expect(await grid({ filter: { property: { id: 'acreage', number } } }), JSON.stringify(number)).toEqual(
        {
          count: want,
          estimate: false,
        },
      );
      // `not` of a range holds the parcels without acreage too.
      expect(
        (await grid({ filter: { not: { property: { id: 'acreage', number } } } })).count,
        JSON.stringify(number),
      ).toBeGreaterThan(EXACT_COUNT_LIMIT);
    }
    const none = matching((a) => a === undefined);
    expect(
      await grid({
        filter: {
          not: {
            or: [
              { property: { id: 'acreage', number: { gte: 0 } } },
              { property: { id: 'acreage', number: { lt: 0 } } },
            ],
          },
        },
      }),
    ).toEqual({ count: none, estimate: false });
  });
});
