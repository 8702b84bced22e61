import { sql } from 'kysely';
import { compileRecordQuery } from '../src/modules/records/filter.js';
import { makeSchema } from '../src/modules/schema/types.js';
import { describe, expect, test } from './helpers/fixtures.js';

/**
 * The spatial conditions as compiled are ones the GiST indexes on `bounds` serve, and, as every
 * spatial read is one portfolio's, the index finds that portfolio's records in the box in one
 * descent (migrations/0012), rather than leaving the portfolio to a second index or the heap.
 * Sequential scans are turned off for the EXPLAIN, so the plan shows whether the index can be used
 * at all; which plan wins on real data is the benchmark's question.
 */

const square = [
  [-101.9, 33.5],
  [-101.8, 33.5],
  [-101.8, 33.6],
  [-101.9, 33.6],
  [-101.9, 33.5],
];
const FILTERS: [string, unknown][] = [
  ['bbox', { bbox: { west: -102, south: 33, east: -101, north: 34 } }],
  ['intersects', { intersects: { type: 'Polygon', coordinates: [square] } }],
  ['within', { within: { type: 'Polygon', coordinates: [square] } }],
  ['dWithin', { dWithin: { longitude: -101.9, latitude: 33.5, meters: 1000 } }],
];

describe("spatial filters use the GiST index on a portfolio's bounds", () => {
  for (const kind of ['parcel', 'project'] as const)
    for (const [name, filter] of FILTERS)
      test(`${kind}s: ${name}`, async ({ env }) => {
        const { query, details } = compileRecordQuery(makeSchema('org', kind, []), 'usr', {
          filter: filter as never,
        });
        expect(details).toEqual([]);
        const table = kind === 'parcel' ? 'parcels' : 'projects';
        const plan = await env.database.db.transaction().execute(async (tx) => {
          await sql`set local enable_seqscan = off`.execute(tx);
          const { rows } = await sql<{ 'QUERY PLAN': string }>`
            explain select c.id from ${sql.table(table)} c
            where c.org_id = ${env.demo.orgs.A.id} and c.portfolio_id = ${'pf_any'} and ${query.where}`.execute(
            tx,
          );
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        });
        expect(plan).toContain(`${table}_bounds_idx`);
        expect(plan).toMatch(/Index Cond: \(\(portfolio_id = .*\) AND \(bounds (&&|<@) /);
      });
});
