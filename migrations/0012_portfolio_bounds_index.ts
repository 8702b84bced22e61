import { type Kysely, sql } from 'kysely';

/**
 * Every spatial read is one portfolio's (a bbox page, a tile), but the GiST index of 0009 held
 * `bounds` alone. The planner cannot see how few rows a box holds, so it ANDed that index's bitmap
 * with the portfolio's whole page index (reading every entry of a county roll for a page of a
 * thousand), and a whole-portfolio tile read the heap rows of every portfolio's boxes in the tile.
 *
 * With btree_gist the index leads with the portfolio, so one descent finds a portfolio's records in
 * a box; `org_id` and `id` ride along (INCLUDE) so a tile chooses its features from the index
 * alone. Without btree_gist (not installable here) the index stays as 0009 made it.
 */
const TABLES = ['parcels', 'projects'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // Checked first: a failed CREATE EXTENSION would abort the migration's transaction.
  const { rows } = await sql<{ ok: boolean }>`
    select exists (select 1 from pg_extension where extname = 'btree_gist')
      or (exists (select 1 from pg_available_extensions where name = 'btree_gist')
        and has_database_privilege(current_database(), 'CREATE')) as ok`.execute(db);
  if (!rows[0]?.ok) return;
  await sql`create extension if not exists btree_gist`.execute(db);
  for (const t of TABLES) {
    await sql`drop index ${sql.id(`${t}_bounds_idx`)}`.execute(db);
    await sql`create index ${sql.id(`${t}_bounds_idx`)} on ${sql.table(t)}
      using gist (portfolio_id, bounds) include (org_id, id)`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TABLES) {
    await sql`drop index if exists ${sql.id(`${t}_bounds_idx`)}`.execute(db);
    await sql`create index ${sql.id(`${t}_bounds_idx`)} on ${sql.table(t)} using gist (bounds)`.execute(db);
  }
}
