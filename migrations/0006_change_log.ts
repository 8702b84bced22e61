import { type Kysely, sql } from 'kysely';
import { distribute } from '../src/db/citus.js';

/**
 * The change log (issue 15): one row per change, written by the same statement (or at least the
 * same transaction) as the write it records. A tenant table like the others: `org_id` leads its
 * primary key and every index, so on Citus it is distributed by org_id, co-located with its org.
 *
 * `tx` is the writing transaction's id (xid8, never wraps). The sync feed reads rows in (tx, seq)
 * order and only those whose transaction is older than every transaction still running
 * (`pg_snapshot_xmin`), so a row can never appear behind a position a reader already passed.
 * No foreign keys: entries outlive the records they describe (deletes are logged too).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table change_log (
      org_id text not null,
      seq bigint generated always as identity,
      tx xid8 not null default pg_current_xact_id(),
      portfolio_id text,
      record_kind text not null check (record_kind in ('project', 'parcel', 'contact')),
      record_id text not null,
      op text not null check (op in ('create', 'update', 'delete', 'link', 'unlink', 'schema')),
      related_id text,
      user_id text,
      key_id text,
      source text not null default 'api' check (source in ('api', 'cli')),
      at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
      changes jsonb not null default '{}'::jsonb,
      constraint change_log_pk primary key (org_id, seq)
    )`.execute(db);
  // A record's history, newest first.
  await sql`create index change_log_record_idx on change_log (org_id, record_id, tx, seq)`.execute(db);
  // A portfolio's feed in (tx, seq) order; schema changes have no portfolio (null, also indexed).
  await sql`create index change_log_feed_idx on change_log (org_id, portfolio_id, tx, seq)`.execute(db);
  // Retention: entries older than the limit go, oldest first.
  await sql`create index change_log_at_idx on change_log (org_id, at)`.execute(db);
  // On Citus: sharded by org_id beside its org's records, so a write and its entry share a shard.
  await distribute(db, { byOrg: ['change_log'] });
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists change_log`.execute(db);
}
