import { type Kysely, sql } from 'kysely';

/**
 * Admin keys (issue 14): with GRAPHQL_TRUSTED_DOCUMENTS set, only they may send GraphQL documents
 * that are not in the manifest (GraphiQL, scripts). Every existing key stays a normal one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table api_keys add column admin boolean not null default false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table api_keys drop column admin`.execute(db);
}
