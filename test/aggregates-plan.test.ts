import { randomBytes } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import { onStatements } from '../bench/pg-statements.js';
import { groupStatisticsSql } from '../src/modules/records/index.js';
import { bulkInsertRecords } from '../src/modules/records/repository.js';
import { schemasByKeys } from '../src/modules/schema/repository.js';
import { onCitus } from './helpers/citus.js';
import { backend } from './helpers/database.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { square } from './helpers/geo.js';
import type { PlanNode } from './helpers/plan.js';
import { freshOrg } from './records-helpers.js';

/**
 * The dashboard's statement (issue 41: acres by parcel status over one portfolio) can run on
 * parallel workers: one parent is a constant, not a LATERAL over the parents' VALUES, and a key of
 * one value per record is an expression of the scanned rows, which the statistics `sdg schema
 * index` creates describe. Without those statistics Postgres expects about one group per row and
 * plans a serial scan. Costs of parallelism are zeroed for the EXPLAIN, so the plan shows whether a
 * parallel plan is possible at all on a small table; whether it wins is the benchmark's question.
 * PGlite has no parallel workers, and on Citus each shard plans with its own statistics.
 *
 * A parallel scan adds rows up in another order each time, so the sum of acres must not depend on
 * the order: the parallel answer is checked equal to the serial one, to the last digit.
 */

const N = 2000;

/** Every statement the process's pg clients send while `run` runs. */
async function statementsOf(run: () => Promise<unknown>) {
  const sent: { text: string; values: unknown[] }[] = [];
  const restore = onStatements((text, values) => sent.push({ text, values }));
  try {
    await run();
  } finally {
    restore();
  }
  return sent;
}

const walk = (n: PlanNode & { 'Plan Rows'?: number; 'Group Key'?: string[] }): PlanNode[] => [
  n,
  ...(n.Plans ?? []).flatMap(walk),
];

describe.skipIf(backend === 'pglite' || onCitus)('the grouped statement of one portfolio', () => {
  test('knows its few groups from the statistics, and may then run in parallel', async ({ env }) => {
    const db = env.database.db;
    const id = `stage_${randomBytes(4).toString('hex')}`;
    const options = ['a', 'b', 'c', 'd'].map((o) => ({ id: o, name: o.toUpperCase(), color: '#000000' }));
    const org = await freshOrg(env, { parcel: [{ id, name: 'Stage', type: 'select', options }] });
    await bulkInsertRecords(
      db,
      'parcel',
      org.orgId,
      org.portfolioId,
      Array.from({ length: N }, (_, i) => ({
        properties: i % 10 === 9 ? {} : { [id]: { select: [options[i % 4].id] } },
        // Sides that make acres with long fractions, whose float sums differ by order.
        geometry: square(-100 + (i % 50) * 0.1, 30 + Math.floor(i / 50) * 0.1, 0.001 + (i % 37) * 0.00071),
      })),
    );
    await sql`analyze parcels`.execute(db);
    const query = `query($pf: ID!) { node(id: $pf) { ... on Portfolio { parcels(first: 0) {
      groupedAggregates(groupBy: [{ propertyId: "${id}" }]) { groups { keys { value } aggregates { count sum(field: ACRES) avg(field: ACRES) } } } } } } }`;
    let answer: unknown;
    const sent = await statementsOf(async () => {
      answer = await org.owner.gql(query, { pf: org.portfolioId });
    });
    const statement = sent.find((s) => /count\(\*\) over \(\)/.test(s.text));
    expect(statement, JSON.stringify(answer)).toBeDefined();
    // One parent: no VALUES of parents, and the key is a column of the scan, not a LATERAL.
    expect(statement!.text).not.toMatch(/\(values /i);
    expect(statement!.text).not.toMatch(/lateral/i);

    /** The statement (or its EXPLAIN) with parallel plans made free, or with none allowed. */
    const run = <R>(prefix: string, parallel = true) =>
      db.transaction().execute(async (tx) => {
        if (parallel) {
          await sql`set local parallel_setup_cost = 0`.execute(tx);
          await sql`set local parallel_tuple_cost = 0`.execute(tx);
          await sql`set local min_parallel_table_scan_size = 0`.execute(tx);
          // The workers scan, not the leader (which on a small table would read it all first).
          await sql`set local parallel_leader_participation = off`.execute(tx);
        } else await sql`set local max_parallel_workers_per_gather = 0`.execute(tx);
        return tx.executeQuery<R>(CompiledQuery.raw(`${prefix}${statement!.text}`, statement!.values));
      });
    const plan = async () => {
      const r = await run<{ 'QUERY PLAN': unknown }>('explain (format json) ');
      const raw = r.rows[0]['QUERY PLAN'];
      const json = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
      const nodes = walk(json[0].Plan) as (PlanNode & { 'Plan Rows': number; Strategy?: string })[];
      const aggregate = nodes.find((n) => n['Node Type'] === 'Aggregate')!;
      return {
        groups: aggregate['Plan Rows'],
        parallel: nodes.some((n) => n['Node Type'] === 'Gather' || n['Node Type'] === 'Gather Merge'),
      };
    };

    const before = await plan();
    expect(before.groups).toBeGreaterThan(100);
    const [schema] = await schemasByKeys(db, [{ orgId: org.orgId, kind: 'parcel' }]);
    const statistics = groupStatisticsSql('parcels', schema, id)!;
    await statistics.create.execute(db);
    try {
      await statistics.analyze.execute(db);
      const after = await plan();
      // Four options and "no value": the same estimate whatever else the table holds.
      expect(after.groups).toBeLessThanOrEqual(5);
      expect(after.parallel).toBe(true);
      const parallel = await run('');
      expect(parallel.rows).toHaveLength(5);
      expect(parallel.rows).toEqual((await run('', false)).rows);
    } finally {
      await sql`drop statistics if exists ${sql.id(statistics.name)}`.execute(db);
    }
  });
});
