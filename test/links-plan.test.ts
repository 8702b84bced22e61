import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { DB } from '../src/db/types.js';
import { bulkLink } from '../src/modules/links/repository.js';
import { createPortfolio } from '../src/modules/org/repository.js';
import { bulkInsertRecords, type PageRequest, pagesFor } from '../src/modules/records/repository.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';

/**
 * The batched page statement must reach a deep page through the index (keyset as an index
 * condition), not by reading and discarding every earlier link of the parent.
 */

/** Runs `pagesFor` and returns the statement it ran, as compiled. */
async function capture(db: Kysely<DB>, reqs: PageRequest[]) {
  const captured: CompiledQuery[] = [];
  const exec = db.getExecutor();
  // A proxy, bound to the real executor (it has private members), that records what it runs.
  const spyExec = new Proxy(exec, {
    get(target, prop) {
      if (prop === 'executeQuery')
        return (q: CompiledQuery) => {
          captured.push(q);
          return target.executeQuery(q);
        };
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const pages = await pagesFor({ getExecutor: () => spyExec } as unknown as Kysely<DB>, reqs);
  expect(captured).toHaveLength(1);
  return { pages, query: captured[0] };
}

type PlanNode = { 'Rows Removed by Filter'?: number; 'Actual Rows'?: number; Plans?: PlanNode[] };
const walk = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(walk)];

async function explain(env: TestEnv, q: CompiledQuery) {
  const r = await env.database.db.executeQuery<{ 'QUERY PLAN': unknown }>(
    CompiledQuery.raw(`explain (analyze, format json) ${q.sql}`, [...q.parameters]),
  );
  const raw = r.rows[0]['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return walk(plan[0].Plan);
}

describe('deep keyset pages in a batch', () => {
  test('a page 1,900 links deep, batched with another parent, discards no earlier links', async ({ env }) => {
    const db = env.database.db;
    const org = env.demo.orgs.A.id;
    const pf = (await createPortfolio(db, org, 'Deep links')).id;
    const parcels = await bulkInsertRecords(
      db,
      'parcel',
      org,
      pf,
      Array.from({ length: 2000 }, (_, i) => ({ properties: { name: { text: `Deep ${i}` } } })),
    );
    const [contact, other] = await bulkInsertRecords(db, 'contact', org, pf, [
      { properties: { first_name: { text: 'Deep' } } },
      { properties: { first_name: { text: 'Shallow' } } },
    ]);
    await bulkLink(
      db,
      'parcel_contacts',
      org,
      pf,
      parcels.map((p): [string, string] => [p, contact]),
    );
    await bulkLink(db, 'parcel_contacts', org, pf, [[parcels[0], other]]);
    await sql`analyze parcel_contacts`.execute(db);
    const { rows } = await sql<{ linked_at: Date; parcel_id: string }>`
      select linked_at, parcel_id from parcel_contacts where org_id = ${org} and contact_id = ${contact}
      order by linked_at, parcel_id offset 1899 limit 1`.execute(db);
    const bound: [number, string] = [rows[0].linked_at.getTime(), rows[0].parcel_id];

    for (const direction of ['forward', 'backward'] as const) {
      const reqs: PageRequest[] = [
        { list: 'contact-parcels', orgId: org, parentId: contact, limit: 11, direction, bound },
        { list: 'contact-parcels', orgId: org, parentId: other, limit: 11, direction },
      ];
      const { pages, query } = await capture(db, reqs);
      expect(pages[0]).toHaveLength(11);
      expect(pages[1]).toHaveLength(1);
      const nodes = await explain(env, query);
      const discarded = nodes.reduce((s, n) => s + (n['Rows Removed by Filter'] ?? 0), 0);
      expect(discarded, `${direction}: rows read and thrown away`).toBeLessThan(50);
    }
  });
});
