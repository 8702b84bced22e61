import { type Kysely, sql } from 'kysely';
import { distribute } from '../src/db/citus.js';

/**
 * Signed webhooks (issue 15). `webhook_endpoints` holds each endpoint and its position in the change
 * log (`cursor_tx`, `cursor_seq`); the dispatcher turns the entries after that position into rows of
 * `webhook_deliveries` (the outbox) and moves the position, in one transaction, so every entry
 * becomes exactly one delivery. Deliveries are claimed with FOR UPDATE SKIP LOCKED and a lease
 * (`next_attempt_at` moved past the send's timeout): a process killed mid-send leaves its delivery
 * pending, and it goes out again once the lease has passed. Both tables lead with org_id and are
 * distributed by it on Citus, so every dispatcher statement (one org at a time) is one shard's.
 *
 * `secret` is the endpoint's signing key, kept as it is: HMAC needs it (see docs/decisions.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      org_id text not null,
      id text not null,
      url text not null,
      events text[] not null,
      portfolio_ids text[],
      secret text not null,
      enabled boolean not null default true,
      consecutive_failures int not null default 0,
      disabled_reason text,
      created_by text,
      created_at timestamptz not null default now(),
      cursor_tx xid8 not null,
      cursor_seq bigint not null default 0,
      start_snapshot text not null,
      constraint webhook_endpoints_pk primary key (org_id, id)
    )`.execute(db);
  await sql`
    create table webhook_deliveries (
      org_id text not null,
      id text not null,
      endpoint_id text not null,
      event text not null,
      change_tx xid8 not null,
      change_seq bigint not null,
      body text not null,
      status text not null default 'pending' check (status in ('pending', 'delivered')),
      attempts int not null default 0,
      next_attempt_at timestamptz not null default now(),
      last_status int,
      last_error text,
      created_at timestamptz not null default now(),
      delivered_at timestamptz,
      constraint webhook_deliveries_pk primary key (org_id, id),
      constraint webhook_deliveries_endpoint_fk foreign key (org_id, endpoint_id)
        references webhook_endpoints (org_id, id) on delete cascade
    )`.execute(db);
  // What is due, per org (the claim), and an endpoint's log, newest first.
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (org_id, next_attempt_at) where status = 'pending'`.execute(
    db,
  );
  await sql`create index webhook_deliveries_endpoint_idx on webhook_deliveries (org_id, endpoint_id, created_at, id)`.execute(
    db,
  );
  // The dispatcher reads an org's whole log in (tx, seq) order after an endpoint's position.
  await sql`create index change_log_org_order_idx on change_log (org_id, tx, seq)`.execute(db);
  await distribute(db, { byOrg: ['webhook_endpoints', 'webhook_deliveries'] });
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists change_log_org_order_idx`.execute(db);
  await sql`drop table if exists webhook_deliveries`.execute(db);
  await sql`drop table if exists webhook_endpoints`.execute(db);
}
