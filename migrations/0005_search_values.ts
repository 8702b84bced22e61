import { type Kysely, sql } from 'kysely';

/**
 * Search over the values themselves (issue 12). The search text was the JSON array of a record's
 * text values, so `"`, `[`, `,` or a backslash matched nearly every record, and a substring could
 * run from one value into the next. It is now the values, unescaped, joined by U+0001: a control
 * character that stored text refuses and a search refuses too (filter.ts), so no match can span
 * two values. The function is IMMUTABLE, so an index may use it (the trigram index, replaced here
 * when pg_trgm is installed); its body calls only pg_catalog functions.
 */
const TABLES = ['projects', 'parcels', 'contacts'] as const;

const trigramInstalled = async (db: Kysely<any>) =>
  (
    await sql<{
      ok: boolean;
    }>`select exists (select 1 from pg_extension where extname = 'pg_trgm') as ok`.execute(db)
  ).rows[0].ok;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create function record_search_text(properties jsonb) returns text
    language sql immutable strict parallel safe
    return (select coalesce(string_agg(t #>> '{}', chr(1)), '')
      from jsonb_path_query(properties, '$.*.text ? (@.type() == "string")') as t)`.execute(db);
  if (!(await trigramInstalled(db))) return;
  for (const t of TABLES) {
    await sql`drop index if exists ${sql.id(`${t}_search_trgm`)}`.execute(db);
    await sql`create index ${sql.id(`${t}_search_trgm`)} on ${sql.table(t)}
      using gin (record_search_text(properties) gin_trgm_ops)`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (await trigramInstalled(db))
    for (const t of TABLES) {
      await sql`drop index if exists ${sql.id(`${t}_search_trgm`)}`.execute(db);
      await sql`create index ${sql.id(`${t}_search_trgm`)} on ${sql.table(t)}
        using gin (((jsonb_path_query_array(properties, '$.*.text', '{}', false))::text) gin_trgm_ops)`.execute(
        db,
      );
    }
  await sql`drop function record_search_text(jsonb)`.execute(db);
}
