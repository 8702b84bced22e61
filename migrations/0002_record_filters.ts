import { type Kysely, sql } from 'kysely';

/**
 * Indexes for GraphQL list filters, sorting and search (src/modules/records/filter.ts, order.ts):
 * - a GIN index (jsonb_path_ops) on `properties` of each record table, for containment (`@>`):
 *   text/number/date equality, select, multi_select and people filters compile to it;
 * - a trigram GIN index over the record's search text (its text, url and email values, the
 *   expression filter.ts SEARCH_TEXT) when the pg_trgm extension is available. Without pg_trgm the
 *   search still works, as a plain ILIKE over the portfolio's rows.
 * Sort keys on a property cannot be indexed generically; see order.ts sortIndexSql.
 */
const TABLES = ['projects', 'parcels', 'contacts'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const t of TABLES)
    await sql`create index ${sql.id(`${t}_properties_gin`)} on ${sql.table(t)} using gin (properties jsonb_path_ops)`.execute(
      db,
    );
  // Checked first: a failed CREATE EXTENSION would abort the migration's transaction.
  const { rows: available } = await sql<{ n: number }>`
    select count(*)::int as n from pg_available_extensions where name = 'pg_trgm'`.execute(db);
  if (!available[0]?.n) return;
  const { rows: rights } = await sql<{ ok: boolean }>`
    select exists (select 1 from pg_extension where extname = 'pg_trgm')
      or has_database_privilege(current_database(), 'CREATE') as ok`.execute(db);
  if (!rights[0]?.ok) return;
  await sql`create extension if not exists pg_trgm`.execute(db);
  for (const t of TABLES)
    await sql`create index ${sql.id(`${t}_search_trgm`)} on ${sql.table(t)}
      using gin (((jsonb_path_query_array(properties, '$.*.text', '{}', false))::text) gin_trgm_ops)`.execute(
      db,
    );
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of TABLES) {
    await sql`drop index if exists ${sql.id(`${t}_search_trgm`)}`.execute(db);
    await sql`drop index if exists ${sql.id(`${t}_properties_gin`)}`.execute(db);
  }
}
