import { type Kysely, sql } from 'kysely';
import { distribute } from '../src/db/citus.js';

/**
 * Sync for integrators (issue 40).
 * - `external_sources`: the systems an organization syncs from, declared by name, so an id from a
 *   misspelled source is refused instead of starting a second, silent namespace.
 * - `external_ids`: (source, external id) → one record, unique within the organization. The record
 *   is one of three nullable columns, each with its own foreign key to its kind's table, so deleting
 *   a record (or its portfolio) deletes its external ids by cascade, as its links go.
 * - `idempotency_keys`: the first answer of a bulk write sent with a key, replayed for 24 hours.
 * Every table leads with org_id (primary key and indexes) and is distributed by it on Citus.
 */
const nowMs = sql`date_trunc('milliseconds', clock_timestamp())`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table external_sources (
      org_id text not null,
      name text not null,
      created_at timestamptz not null default ${nowMs},
      constraint external_sources_pk primary key (org_id, name)
    )`.execute(db);
  await sql`
    create table external_ids (
      org_id text not null,
      source text not null,
      external_id text not null,
      project_id text,
      parcel_id text,
      contact_id text,
      created_at timestamptz not null default ${nowMs},
      constraint external_ids_pk primary key (org_id, source, external_id),
      constraint external_ids_one_record check (num_nonnulls(project_id, parcel_id, contact_id) = 1),
      constraint external_ids_source_fk foreign key (org_id, source)
        references external_sources (org_id, name) on delete cascade,
      constraint external_ids_project_fk foreign key (org_id, project_id)
        references projects (org_id, id) on delete cascade,
      constraint external_ids_parcel_fk foreign key (org_id, parcel_id)
        references parcels (org_id, id) on delete cascade,
      constraint external_ids_contact_fk foreign key (org_id, contact_id)
        references contacts (org_id, id) on delete cascade
    )`.execute(db);
  // A record's ids (the `externalIds` field, the filter, the cascades of the foreign keys), and
  // at most one id per source on a record: a second id from the same system would be a duplicate.
  for (const kind of ['project', 'parcel', 'contact'])
    await sql`create unique index ${sql.id(`external_ids_${kind}_idx`)}
      on external_ids (org_id, ${sql.id(`${kind}_id`)}, source) where ${sql.id(`${kind}_id`)} is not null`.execute(
      db,
    );
  await sql`
    create table idempotency_keys (
      org_id text not null,
      key text not null,
      request_hash text not null,
      response jsonb,
      created_at timestamptz not null default ${nowMs},
      constraint idempotency_keys_pk primary key (org_id, key)
    )`.execute(db);
  // Retention deletes by age, per organization.
  await sql`create index idempotency_keys_at_idx on idempotency_keys (org_id, created_at)`.execute(db);
  await distribute(db, { byOrg: ['external_sources', 'external_ids', 'idempotency_keys'] });
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists idempotency_keys`.execute(db);
  await sql`drop table if exists external_ids`.execute(db);
  await sql`drop table if exists external_sources`.execute(db);
}
