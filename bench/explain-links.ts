/**
 * EXPLAIN (ANALYZE, BUFFERS) of the nested query's page statements on the bench dataset, as the
 * gateway sends them (src/modules/records/repository.ts pagesFor, captured, not rewritten): the
 * first 100 projects of the read portfolio, 10 contacts of each, 5 parcels of each contact. Then
 * the same inside a transaction that adds indexes led by the link tables' foreign keys
 * (org_id, portfolio_id, <record>_id), the ones PostGraphile looks for, and rolls back: nothing
 * stays in the database. Also the lookup that a record delete's ON DELETE CASCADE runs on a link table.
 *
 *   DATABASE_URL=postgres://…/postgres node dist/bench/explain-links.js [--db sdg_bench] [--repeat 5]
 */
import { parseArgs } from 'node:util';
import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from '../src/db/types.js';
import type { PageRequest, PageRow } from '../src/modules/records/repository.js';
import { capturePages } from './capture.js';
import { readDataset } from './seed.js';
import { openStore } from './store.js';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}
interface Explained {
  'Planning Time': number;
  'Execution Time': number;
  Plan: PlanNode;
}

export const FK_INDEXES = [
  'create index project_contacts_project_fk_idx on project_contacts (org_id, portfolio_id, project_id)',
  'create index project_contacts_contact_fk_idx on project_contacts (org_id, portfolio_id, contact_id)',
  'create index parcel_contacts_parcel_fk_idx on parcel_contacts (org_id, portfolio_id, parcel_id)',
  'create index parcel_contacts_contact_fk_idx on parcel_contacts (org_id, portfolio_id, contact_id)',
  'create index project_parcels_project_fk_idx on project_parcels (org_id, portfolio_id, project_id)',
  'create index project_parcels_parcel_fk_idx on project_parcels (org_id, portfolio_id, parcel_id)',
];

const walk = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(walk)];

/** Runs pagesFor once and returns its rows and the one statement it sent. */
async function capture(
  db: Kysely<DB>,
  reqs: PageRequest[],
): Promise<{ pages: PageRow[][]; query: CompiledQuery }> {
  const { pages, sent } = await capturePages(db, reqs);
  return { pages, query: sent[0] };
}

async function explain(db: Kysely<DB>, q: CompiledQuery, repeat: number) {
  const runs: Explained[] = [];
  for (let i = 0; i < repeat; i++) {
    const r = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(`explain (analyze, buffers, format json) ${q.sql}`, [...q.parameters]),
    );
    const raw = r.rows[0]['QUERY PLAN'];
    runs.push(((typeof raw === 'string' ? JSON.parse(raw) : raw) as Explained[])[0]);
  }
  // The first run may read from disk; the others show the warm cache, as under load.
  const warm = runs.slice(repeat > 1 ? 1 : 0).sort((a, b) => a['Execution Time'] - b['Execution Time']);
  const mid = warm[warm.length >> 1];
  const nodes = walk(mid.Plan);
  return {
    executionMs: mid['Execution Time'],
    planningMs: mid['Planning Time'],
    coldExecutionMs: runs[0]['Execution Time'],
    indexes: [...new Set(nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : [])))],
    removedByFilter: nodes.reduce((s, n) => s + (n['Rows Removed by Filter'] ?? 0), 0),
    sharedHit: mid.Plan['Shared Hit Blocks'] ?? 0,
    sharedRead: mid.Plan['Shared Read Blocks'] ?? 0,
    linkScan: nodes
      .filter(
        (n) =>
          n['Index Name'] &&
          /contacts|parcels/.test(n['Index Name']) &&
          n['Index Cond']?.includes('linked_at'),
      )
      .map((n) => `${n['Node Type']} on ${n['Index Name']}: ${n['Index Cond']}`)[0],
  };
}

async function main() {
  const { values: v } = parseArgs({
    options: { db: { type: 'string', default: 'sdg_bench' }, repeat: { type: 'string', default: '5' } },
  });
  const store = await openStore({
    backend: 'postgres',
    serverUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    dbName: v.db!,
  });
  try {
    const d = await readDataset(store);
    if (!d)
      throw new Error(
        `no seeded bench dataset in ${store.describe}: run npm run bench -- --db ${v.db} first`,
      );
    const repeat = Math.max(1, Number(v.repeat));
    const org = d.orgId;
    const level = async (db: Kysely<DB>) => {
      const projects = await capture(db, [
        {
          list: 'portfolio-projects',
          orgId: org,
          parentId: d.portfolioIds[0],
          limit: 101,
          direction: 'forward',
        },
      ]);
      const projectIds = projects.pages[0].slice(0, 100).map((r) => r.record.id);
      const contacts = await capture(
        db,
        projectIds.map((id) => ({
          list: 'project-contacts',
          orgId: org,
          parentId: id,
          limit: 11,
          direction: 'forward',
        })),
      );
      const contactIds = contacts.pages.flatMap((p) => p.slice(0, 10).map((r) => r.record.id));
      const parcels = await capture(
        db,
        contactIds.map((id) => ({
          list: 'contact-parcels',
          orgId: org,
          parentId: id,
          limit: 6,
          direction: 'forward',
        })),
      );
      const out: Record<string, unknown> = {};
      for (const [name, c, n] of [
        ['projects (1 parent)', projects, 1],
        [`project → contacts (${projectIds.length} parents)`, contacts, projectIds.length],
        [`contact → parcels (${contactIds.length} parents)`, parcels, contactIds.length],
      ] as const) {
        const rows = c.pages.reduce((s, p) => s + p.length, 0);
        out[name] = { parents: n, rows, ...(await explain(db, c.query, repeat)) };
      }
      // What ON DELETE CASCADE of one project runs on project_contacts (the RI trigger's lookup).
      const p = projectIds[0];
      const cascade = CompiledQuery.raw(
        'select 1 from only project_contacts where org_id = $1 and portfolio_id = $2 and project_id = $3 for key share',
        [org, d.portfolioIds[0], p],
      );
      out['cascade lookup (one project)'] = await explain(db, cascade, repeat);
      return out;
    };
    const print = (title: string, r: Record<string, unknown>) =>
      process.stdout.write(`\n## ${title}\n${JSON.stringify(r, null, 2)}\n`);

    print(
      'as migrated (link indexes: (org_id, <parent>_id, linked_at, <child>_id), both ways)',
      await level(store.db),
    );
    await store.db
      .transaction()
      .execute(async (tx) => {
        for (const ddl of FK_INDEXES) await tx.executeQuery(CompiledQuery.raw(ddl));
        await tx.executeQuery(
          CompiledQuery.raw('analyze project_contacts, parcel_contacts, project_parcels'),
        );
        print(
          'with the foreign-key-led indexes too (created in a transaction, rolled back)',
          await level(tx),
        );
        throw new Error('rollback');
      })
      .catch((e) => {
        if (e.message !== 'rollback') throw e;
      });
  } finally {
    await store.close();
  }
}

main().catch((err) => {
  process.stderr.write(
    `explain-links failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
