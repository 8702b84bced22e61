import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Database, executeCompiled, forRequest } from '../src/db/database.js';
import { CROSS_TENANT, TENANT_TABLES, tenantViolation } from '../src/db/tenant-guard.js';
import { createCitusDatabase, onCitus } from './helpers/citus.js';
import { CREATE_DATABASE_LOCK } from './helpers/citus-cluster.js';
import { openTestDatabase } from './helpers/database.js';

/**
 * Ready for Citus, checked statically on the real catalog after the real migrations: tenant tables
 * are distributed by org_id, so org_id must lead every primary key and be part of every unique
 * constraint and of every foreign key between distributed tables.
 */
const REFERENCE_TABLES = ['users', 'api_keys', 'instance_settings'];
/** The tenant root, whose id is every other table's org_id (a reference table on Citus). */
const ROOT = 'organizations';
/** Tenant tables that the key lookup reads across orgs: reference tables on Citus (src/db/citus.ts). */
const ON_CITUS_REFERENCE: string[] = ['org_members', 'portfolio_guests', 'org_versions'];

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

interface Constraint {
  table: string;
  name: string;
  type: 'p' | 'u' | 'f';
  columns: string[];
  ref_table: string | null;
  ref_columns: string[] | null;
}

async function constraints(): Promise<Constraint[]> {
  const { rows } = await sql<Constraint>`
    select c.conrelid::regclass::text as table, c.conname as name, c.contype as type,
      (select array_agg(a.attname::text order by k.ord) from unnest(c.conkey) with ordinality k(n, ord)
         join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n) as columns,
      c.confrelid::regclass::text as ref_table,
      (select array_agg(a.attname::text order by k.ord) from unnest(c.confkey) with ordinality k(n, ord)
         join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n) as ref_columns
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where n.nspname = 'public' and c.contype in ('p', 'u', 'f')
      -- On Citus the coordinator also holds reference-table shards (users_102009, …): not ours.
      and c.conrelid::regclass::text !~ '_[0-9]+$'`.execute(database.db);
  return rows.map((r) => ({ ...r, ref_table: r.type === 'f' ? r.ref_table : null }));
}

async function tables(): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
      and table_name !~ '_[0-9]+$'`.execute(database.db);
  return rows.map((r) => r.name).sort();
}

describe('the schema is ready to distribute by org_id', () => {
  test('every table is either a tenant table (with org_id), the tenant root, or a listed reference table', async () => {
    const all = await tables();
    expect(all).toEqual([...TENANT_TABLES, ROOT, ...REFERENCE_TABLES].sort());
    const { rows } = await sql<{ table_name: string }>`
      select table_name from information_schema.columns where table_schema = 'public' and column_name = 'org_id'
        and table_name !~ '_[0-9]+$'`.execute(database.db);
    expect(rows.map((r) => r.table_name).sort()).toEqual([...TENANT_TABLES].sort());
  });

  test('org_id leads every primary key of a tenant table and is in every unique constraint', async () => {
    const cs = await constraints();
    for (const t of TENANT_TABLES) {
      const pk = cs.find((c) => c.table === t && c.type === 'p');
      expect(pk?.columns[0], `${t} primary key`).toBe('org_id');
      for (const u of cs.filter((c) => c.table === t && c.type === 'u'))
        expect(u.columns, `${t} ${u.name}`).toContain('org_id');
    }
  });

  test('foreign keys between distributed tables join on org_id; others point at reference tables', async () => {
    const cs = await constraints();
    const distributed = new Set<string>([...TENANT_TABLES, ROOT]);
    const fks = cs.filter((c) => c.type === 'f');
    expect(fks.length).toBeGreaterThan(10);
    for (const fk of fks) {
      const label = `${fk.table}.${fk.name} → ${fk.ref_table}`;
      if (REFERENCE_TABLES.includes(fk.ref_table!)) continue;
      expect(distributed.has(fk.table), label).toBe(true);
      expect(distributed.has(fk.ref_table!), label).toBe(true);
      const i = fk.columns.indexOf('org_id');
      expect(i, label).toBeGreaterThanOrEqual(0);
      // org_id on this side maps to org_id (or the root's id) on the other.
      expect(fk.ref_columns![i], label).toBe(fk.ref_table === ROOT ? 'id' : 'org_id');
    }
  });
});

describe('the tenant guard', () => {
  test('accepts statements that filter on org_id and refuses those that do not', () => {
    expect(tenantViolation('select * from "projects" where "org_id" = $1 and "id" = $2')).toBeUndefined();
    expect(tenantViolation('insert into "parcels" ("org_id", "id") values ($1, $2)')).toBeUndefined();
    expect(tenantViolation('select 1 from users where id = $1')).toBeUndefined();
    expect(tenantViolation('select * from "projects" where "id" = $1')).toMatch(
      /projects does not filter on org_id/,
    );
    expect(tenantViolation('delete from project_contacts where project_id = $1')).toMatch(/project_contacts/);
    expect(tenantViolation('insert into contacts (id) values ($1)')).toMatch(/without org_id/);
    expect(tenantViolation(`${CROSS_TENANT} select * from org_members where user_id = $1`)).toBeUndefined();
  });

  test("a request's handle counts its statements and refuses one without org_id before it runs", async () => {
    const counter = { count: 0 };
    const db = forRequest(database, counter);
    await db.selectFrom('projects').select('id').where('org_id', '=', 'org_x').execute();
    await sql`select 1`.execute(db);
    expect(counter.count).toBe(2);
    const before = database.stats.statements;
    await expect(db.deleteFrom('projects').where('id', '=', 'prj_x').execute()).rejects.toThrow(
      /tenant guard: statement on projects does not filter on org_id/,
    );
    // Refused before it reached the database, so a write that breaks the rule never happens.
    expect(database.stats.statements).toBe(before);
    // The process-wide handle (admin tools, migrations) is not a request's: not counted, not guarded.
    await database.db.deleteFrom('projects').where('id', '=', 'prj_x').execute();
    expect(counter.count).toBe(2);
  });

  test('a statement compiled earlier and kept is counted and guarded like one Kysely builds', async () => {
    const counter = { count: 0 };
    const db = forRequest(database, counter);
    await executeCompiled(db, 'select id from projects where org_id = $1', ['org_x']);
    expect(counter.count).toBe(1);
    const before = database.stats.statements;
    await expect(executeCompiled(db, 'delete from projects where id = $1', ['prj_x'])).rejects.toThrow(
      /tenant guard: statement on projects does not filter on org_id/,
    );
    expect(database.stats.statements).toBe(before);
  });
});

describe.runIf(onCitus)('on Citus, the migrations distributed every table', () => {
  test('tenant tables by org_id, all co-located; the cross-tenant tables are reference tables', async () => {
    const { rows } = await sql<{ name: string; method: string; column: string | null; colocation: number }>`
      select logicalrelid::regclass::text as name, partmethod as method,
        case when partmethod = 'h' then column_to_column_name(logicalrelid, partkey) end as column,
        colocationid as colocation
      from pg_dist_partition order by 1`.execute(database.db);
    const by = new Map(rows.map((r) => [r.name, r]));
    const sharded = TENANT_TABLES.filter((t) => !ON_CITUS_REFERENCE.includes(t));
    for (const t of sharded) {
      expect(by.get(t)?.method, t).toBe('h');
      expect(by.get(t)?.column, t).toBe('org_id');
    }
    expect(new Set(sharded.map((t) => by.get(t)?.colocation)).size).toBe(1);
    for (const t of [...REFERENCE_TABLES, ROOT, ...ON_CITUS_REFERENCE])
      expect(by.get(t)?.method, t).toBe('n');
    expect(rows.length).toBe(sharded.length + REFERENCE_TABLES.length + 1 + ON_CITUS_REFERENCE.length);
  });
});

describe.runIf(onCitus)('test databases on the cluster', () => {
  test('are created one at a time: a creation waits for the lock another one holds', async () => {
    // Two test files creating their databases at once failed one of them ("tuple concurrently
    // updated", as both citus_add_node calls re-created the role on a worker).
    const adminUrl = process.env.DATABASE_URL!;
    const holder = new pg.Client({ connectionString: adminUrl });
    await holder.connect();
    const name = `sdg_lock_${process.pid}_${randomBytes(4).toString('hex')}`;
    let drop: (() => Promise<void>) | undefined;
    try {
      await holder.query('select pg_advisory_lock($1)', [CREATE_DATABASE_LOCK]);
      let done = false;
      const creating = createCitusDatabase(adminUrl, name).then((d) => {
        done = true;
        drop = d;
      });
      await new Promise((r) => setTimeout(r, 1_500));
      expect(done).toBe(false);
      await holder.query('select pg_advisory_unlock($1)', [CREATE_DATABASE_LOCK]);
      await creating;
      expect(done).toBe(true);
    } finally {
      await holder.end();
      await drop?.();
    }
  });
});
