import { CompiledQuery, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/types.js';
import type { PageRequest } from '../../src/modules/records/repository.js';
import { capturePages } from './capture.js';

/** One node of an EXPLAIN (FORMAT JSON) plan, with the fields the plan tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Rows Removed by Filter'?: number;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** On Citus the plan of the shard query sits under the coordinator's scan, in its one task. */
interface CitusNode {
  'Distributed Query'?: { Job?: { Tasks?: { 'Remote Plan'?: { Plan: PlanNode }[][] }[] } };
}
const remote = (n: PlanNode & CitusNode): PlanNode[] =>
  (n['Distributed Query']?.Job?.Tasks ?? []).flatMap((t) =>
    (t['Remote Plan'] ?? []).flat().map((p) => p.Plan),
  );
const walk = (n: PlanNode): PlanNode[] => [n, ...[...(n.Plans ?? []), ...remote(n)].flatMap(walk)];

/** Runs `pagesFor` and returns the one statement it ran, as compiled. */
export async function capturePageStatement(db: Kysely<DB>, reqs: PageRequest[]) {
  const { pages, sent } = await capturePages(db, reqs);
  expect(sent).toHaveLength(1);
  return { pages, query: sent[0] };
}

/** EXPLAIN ANALYZE of a compiled statement: every node of its plan, depth first. */
export async function explainNodes(database: Database, q: CompiledQuery): Promise<PlanNode[]> {
  const r = await database.db.executeQuery<{ 'QUERY PLAN': unknown }>(
    CompiledQuery.raw(`explain (analyze, format json) ${q.sql}`, [...q.parameters]),
  );
  const raw = r.rows[0]['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return walk(plan[0].Plan);
}
