import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Context } from '../src/context.js';
import type { DB } from '../src/db/types.js';
import { createPortfolio } from '../src/modules/org/repository.js';
import { compileListQuery, type QueryArgs, type RecordQuery } from '../src/modules/records/filter.js';
import { propertyNamePart } from '../src/modules/records/order.js';
import { createPropertyIndexes } from '../src/modules/records/property-indexes.js';
import {
  bulkInsertRecords,
  countsFor,
  EXACT_COUNT_LIMIT,
  type ListCount,
} from '../src/modules/records/repository.js';
import { schemasByKeys } from '../src/modules/schema/repository.js';
import { capturing } from './helpers/capture.js';
import { onCitus } from './helpers/citus.js';
import { backend } from './helpers/database.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { capturePageStatement, explainNodes, type PlanNode } from './helpers/plan.js';

/** The name of one of acreage's sort indexes (`sdg schema index`). */
const ACREAGE_INDEX = (tag: string) => `parcels_sort_${propertyNamePart('acreage')}_${tag}_idx`;

/**
 * Plans of filtered, sorted and searched pages on a realistic portfolio (5,000 parcels, in a table
 * that also holds the demo data): checked through EXPLAIN ANALYZE, no sequential scan of the
 * table, and a deep page under a number sort does not read and discard the earlier rows.
 */

const N = 5000;
const NAMES = ['ada', 'bea', 'cy', 'dov', 'eli', 'fay', 'gus', 'hal', 'ivy', 'jo', 'kai', 'lu', 'mo', 'ned'];

/** Runs `countsFor` on one portfolio list and returns its counts and the statements it sent. */
async function captureCounts(db: Kysely<DB>, query: RecordQuery) {
  const spy = capturing(db);
  const counts: ListCount[] = await countsFor(
    spy.db,
    'portfolio-parcels',
    [{ orgId: current.org, parentId: current.pf }],
    query,
  );
  return { counts, sent: spy.sent };
}
const current = { org: '', pf: '' };

const summary = (nodes: PlanNode[]) =>
  nodes
    .filter((n) => n['Relation Name'] || n['Index Name'])
    .map((n) => `${n['Node Type']}(${n['Index Name'] ?? n['Relation Name']})`)
    .join(' > ');

// On Citus each shard plans with its own statistics; routing there is checked by citus-router.test.ts.
describe.skipIf(onCitus)(`plans (${backend})`, () => {
  test('a selective filter, a number sort with a deep cursor and a search use indexes', async ({ env }) => {
    const db = env.database.db;
    const org = env.demo.orgs.A.id;
    const pf = (await createPortfolio(db, org, 'Plans')).id;
    Object.assign(current, { org, pf });
    await bulkInsertRecords(
      db,
      'parcel',
      org,
      pf,
      Array.from({ length: N }, (_, i) => ({
        properties: {
          apn: { text: createHash('sha1').update(String(i)).digest('hex').slice(0, 12) },
          owner_email: {
            text: `${NAMES[i % NAMES.length]}.${NAMES[(i * 7) % NAMES.length]}${i}@example.org`,
          },
          acreage: { number: (i * 7919) % 1000 },
          ...(i % 200 === 0 ? { constraints: { select: ['airport'] } } : {}),
        },
      })),
    );
    await sql`analyze parcels`.execute(db);
    const [schema] = await schemasByKeys(db, [{ orgId: org, kind: 'parcel' }]);
    const ctx = {
      viewer: { userId: env.demo.users.alice.uid },
      loaders: { schema: { load: async () => schema }, isOrgUser: { load: async () => true } },
    } as unknown as Context;
    const page = async (args: QueryArgs, bound?: (string | number)[]) => {
      const query = await compileListQuery(ctx, 'parcel', org, args);
      return capturePageStatement(db, [
        {
          list: 'portfolio-parcels',
          orgId: org,
          parentId: pf,
          limit: 11,
          direction: 'forward',
          query,
          bound,
        },
      ]);
    };
    const report: Record<string, string> = {};

    // 1. a selective filter: 25 of 5,000 parcels lie in an airport zone.
    const airport = await page({
      filter: { property: { id: 'constraints', multiSelect: { containsAny: ['airport'] } } },
    });
    expect(airport.pages[0]).toHaveLength(11);
    let nodes = await explainNodes(env.database, airport.query);
    report.filter = summary(nodes);
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'parcels')).toEqual(
      [],
    );

    // The planner may walk the page index in order until the page is full (about 2,000 rows for
    // 11 matches at 1 in 200), but never the whole portfolio.
    const filterDiscarded = nodes.reduce((x, n) => x + (n['Rows Removed by Filter'] ?? 0), 0);
    report.filterRowsDiscarded = String(filterDiscarded);
    expect(filterDiscarded).toBeLessThan(N / 2);
    // 1b. an exact match (one parcel): jsonb containment through the GIN index.
    const apn = createHash('sha1').update('1234').digest('hex').slice(0, 12);
    const exact = await page({ filter: { property: { id: 'apn', text: { eq: apn } } } });
    expect(exact.pages[0]).toHaveLength(1);
    nodes = await explainNodes(env.database, exact.query);
    report.exact = summary(nodes);
    expect(report.exact).toContain('parcels_properties_gin');

    // 2. a number sort with a deep cursor, with the per-property sort index an operator adds.
    await createPropertyIndexes(db, 'parcels', schema, 'acreage');
    await sql`analyze parcels`.execute(db);
    const order: QueryArgs = { orderBy: [{ property: 'acreage', direction: 'DESC' }] };
    let bound: (string | number)[] | undefined;
    for (let i = 0; i < 3; i++) {
      const r = await page(order, bound);
      const last = r.pages[0][9];
      bound = [...last.keys, last.sortAt.getTime(), last.record.id];
    }
    // jump deep: the 4,000th row's cursor
    const { rows } = await sql<{ k: string; created_at: Date; id: string }>`
      select coalesce(properties -> 'acreage' -> 'number', 'null'::jsonb)::text as k, created_at, id from parcels
      where org_id = ${org} and portfolio_id = ${pf}
      order by coalesce(properties -> 'acreage' -> 'number', 'null'::jsonb) desc, created_at desc, id desc
      offset 3999 limit 1`.execute(db);
    const deep = await page(order, [rows[0].k, rows[0].created_at.getTime(), rows[0].id]);
    expect(deep.pages[0]).toHaveLength(11);
    nodes = await explainNodes(env.database, deep.query);
    report.deepSort = summary(nodes);
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'parcels')).toEqual(
      [],
    );
    expect(
      nodes.some((n) => n['Index Name']?.startsWith('parcels_sort_acreage_')),
      report.deepSort,
    ).toBe(true);
    const discarded = nodes.reduce((s, n) => s + (n['Rows Removed by Filter'] ?? 0), 0);
    expect(discarded, 'rows read and thrown away before the deep page').toBeLessThan(50);

    // 3. a search for part of one parcel's APN (case-insensitive).
    const needle = createHash('sha1').update('4321').digest('hex').slice(2, 10);
    const search = await page({ search: needle.toUpperCase() });
    expect(search.pages[0].length).toBeGreaterThanOrEqual(1);
    nodes = await explainNodes(env.database, search.query);
    report.search = summary(nodes);
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'parcels')).toEqual(
      [],
    );
    const trgm = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_extension where extname = 'pg_trgm'`.execute(db);
    if (trgm.rows[0].n) expect(report.search).toContain('parcels_search_trgm');

    // 4. a narrow number range (about 1 in 100): the sort index's `_hi` half serves it, for the
    // page and for its count, since the range compiles over the very sort key (filter.ts).
    const range: QueryArgs = { filter: { property: { id: 'acreage', number: { gte: 990 } } } };
    const narrow = await page(range);
    expect(narrow.pages[0]).toHaveLength(11);
    nodes = await explainNodes(env.database, narrow.query);
    report.numberRange = summary(nodes);
    expect(report.numberRange).toContain(ACREAGE_INDEX('hi'));
    const rangeCount = await captureCounts(db, await compileListQuery(ctx, 'parcel', org, range));
    expect(rangeCount.counts).toEqual([{ count: N / 100, estimate: false }]);
    expect(rangeCount.sent).toHaveLength(1);
    nodes = await explainNodes(env.database, rangeCount.sent[0]);
    report.numberRangeCount = summary(nodes);
    expect(report.numberRangeCount).toContain(ACREAGE_INDEX('hi'));

    // 4b. a broad number range (3 in 10): the page and its count test the range in an index, not
    // in each row: the page walks `_page` (the list's order, then the value). The count reads the
    // range from `_hi` or `_ids` (id order, then the value), as the planner prices them; at 100,000
    // parcels it walks `_ids` (docs/benchmarks.md, "Grids at county scale").
    const broad: QueryArgs = { filter: { property: { id: 'acreage', number: { gte: 700 } } } };
    const broadPage = await page(broad);
    expect(broadPage.pages[0]).toHaveLength(11);
    nodes = await explainNodes(env.database, broadPage.query);
    report.broadRange = summary(nodes);
    const rowsTested = (ns: PlanNode[]) => ns.reduce((x, n) => x + (n['Rows Removed by Filter'] ?? 0), 0);
    expect(rowsTested(nodes), report.broadRange).toBe(0);
    expect(report.broadRange).toContain(ACREAGE_INDEX('page'));
    const broadCount = await captureCounts(db, await compileListQuery(ctx, 'parcel', org, broad));
    expect(broadCount.counts[0].estimate).toBe(true);
    nodes = await explainNodes(env.database, broadCount.sent[0]);
    report.broadRangeCount = summary(nodes);
    expect(rowsTested(nodes), report.broadRangeCount).toBe(0);
    expect(report.broadRangeCount).toMatch(new RegExp(`${ACREAGE_INDEX('(hi|ids)')}`));

    // 5. a search every parcel matches (each owner_email holds "example.org"): the page walks the
    // page index for its first rows instead of sorting every match, and the count reads matches in
    // id order up to the exact-count limit, then the portfolio's index: an estimate, flagged.
    const common = await page({ search: 'EXAMPLE.ORG' });
    expect(common.pages[0]).toHaveLength(11);
    nodes = await explainNodes(env.database, common.query);
    report.commonSearch = summary(nodes);
    const rowsRead = Math.max(...nodes.map((n) => n['Actual Rows'] ?? 0));
    expect(rowsRead, report.commonSearch).toBeLessThan(N / 10);
    const commonCount = await captureCounts(
      db,
      await compileListQuery(ctx, 'parcel', org, { search: 'example.org' }),
    );
    expect(commonCount.counts).toEqual([{ count: N, estimate: true }]);
    expect(commonCount.sent).toHaveLength(2);
    nodes = await explainNodes(env.database, commonCount.sent[0]);
    report.commonCount = summary(nodes);
    const counted = Math.max(...nodes.filter((n) => n['Relation Name']).map((n) => n['Actual Rows'] ?? 0));
    expect(counted, report.commonCount).toBe(EXACT_COUNT_LIMIT + 1);
    nodes = await explainNodes(env.database, commonCount.sent[1]);
    report.commonSize = summary(nodes);
    console.log(`plans on ${backend}:`, JSON.stringify(report, null, 2));
  });
});
