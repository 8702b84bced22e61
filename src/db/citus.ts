import { type Kysely, sql } from 'kysely';

/**
 * How migrations declare where their tables live on Citus. On plain Postgres (and PGlite) this is a
 * no-op; on a database with the citus extension each migration distributes the tables it created:
 * - `reference`: small cross-tenant tables, copied to every node (users, keys, and what the key
 *   lookup reads: memberships, guest grants, org versions), so the lookup is one single-node task;
 * - `byOrg`: tenant tables, distributed by org_id and co-located with each other, so every query
 *   that names one org is routed to one shard.
 * Citus cannot distribute a table under foreign keys it is not yet distributed for, and turns a
 * local table with a foreign key to a reference table into a "Citus local table". So the foreign keys
 * touching the declared tables are dropped, the tables distributed (reference tables first), and the
 * keys added back; `dropOnCitus` names keys Citus cannot hold (a reference table to a distributed one).
 */
export interface Distribution {
  reference?: readonly string[];
  byOrg?: readonly string[];
  dropOnCitus?: readonly string[];
}

/** The table every tenant table is co-located with. */
const ANCHOR = 'portfolios';

export async function isCitus(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ on: boolean }>`
    select exists (select 1 from pg_extension where extname = 'citus') as on`.execute(db);
  return rows[0]?.on === true;
}

export async function distribute(db: Kysely<any>, plan: Distribution): Promise<void> {
  if (!(await isCitus(db))) return;
  const wanted = [...(plan.reference ?? []), ...(plan.byOrg ?? [])];
  const { rows: done } = await sql<{ name: string }>`
    select logicalrelid::regclass::text as name from pg_dist_partition`.execute(db);
  const already = new Set(done.map((r) => r.name));
  const todo = wanted.filter((t) => !already.has(t));
  if (!todo.length) return;
  // One connection per node for the rest of the migration's transaction: Citus refuses parallel
  // DDL after a reference table was touched in the same transaction.
  await sql`set local citus.multi_shard_modify_mode to 'sequential'`.execute(db);
  const { rows: fks } = await sql<{ tbl: string; name: string; def: string }>`
    select conrelid::regclass::text as tbl, conname as name, pg_get_constraintdef(oid) as def
    from pg_constraint
    where contype = 'f' and (conrelid::regclass::text in (${sql.join(todo)})
      or confrelid::regclass::text in (${sql.join(todo)}))`.execute(db);
  for (const fk of fks)
    await sql`alter table ${sql.table(fk.tbl)} drop constraint ${sql.id(fk.name)}`.execute(db);
  for (const t of plan.reference ?? [])
    if (!already.has(t)) await sql`select create_reference_table(${t})`.execute(db);
  for (const t of plan.byOrg ?? []) {
    if (already.has(t)) continue;
    const anchored = t !== ANCHOR && (already.has(ANCHOR) || plan.byOrg?.includes(ANCHOR));
    if (anchored)
      await sql`select create_distributed_table(${t}, 'org_id', colocate_with => ${ANCHOR})`.execute(db);
    else await sql`select create_distributed_table(${t}, 'org_id')`.execute(db);
  }
  const dropped = new Set(plan.dropOnCitus ?? []);
  for (const fk of fks) {
    if (dropped.has(fk.name)) continue;
    await sql`alter table ${sql.table(fk.tbl)} add constraint ${sql.id(fk.name)} ${sql.raw(fk.def)}`.execute(
      db,
    );
  }
}

/**
 * Whether the server database is a Citus coordinator, for the writers that need a form Citus
 * routes (see writesOnCitus). Set by createDatabase for each server database; a failed check counts
 * as plain Postgres.
 */
let citusDetected: Promise<boolean> = Promise.resolve(false);
const CHECK_WAIT_MS = 5_000;

export function noteServerDatabase(check: () => Promise<boolean>): void {
  const before = citusDetected;
  // Bounded: a pool ended before its check ran never answers, and writers wait on every check.
  const mine = Promise.race([
    check().catch(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(false), CHECK_WAIT_MS).unref()),
  ]);
  citusDetected = Promise.all([before, mine]).then(([a, b]) => a || b);
}

/**
 * True on Citus. There a write and its change-log entry cannot share one statement: an
 * INSERT … SELECT inside a CTE, and a CTE that reads no distributed table (the advisory locks), are
 * planned as coordinator subplans, and the UPDATE joined to them ran on every shard. So on Citus
 * the lock, the write and the entry are three statements of one transaction, each one task.
 */
export const writesOnCitus = (): Promise<boolean> => citusDetected;
