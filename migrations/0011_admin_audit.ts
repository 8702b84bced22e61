import { type Kysely, sql } from 'kysely';

/**
 * Administration over the API (issue 42): invites, roles, guest grants and keys are audited in the
 * change log beside the records' changes, as entries of kind `access` and operation `access`
 * (which of them is in `changes.action`). They carry no portfolio and are left out of the sync
 * feed, subscriptions and webhooks (only owners and admins read them, `Organization.auditLog`).
 * On Citus the constraint change is propagated to the shards like any DDL on a distributed table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table change_log drop constraint change_log_record_kind_check`.execute(db);
  await sql`alter table change_log add constraint change_log_record_kind_check
    check (record_kind in ('project', 'parcel', 'contact', 'access'))`.execute(db);
  await sql`alter table change_log drop constraint change_log_op_check`.execute(db);
  await sql`alter table change_log add constraint change_log_op_check
    check (op in ('create', 'update', 'delete', 'link', 'unlink', 'schema', 'access'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from change_log where record_kind = 'access'`.execute(db);
  await sql`alter table change_log drop constraint change_log_record_kind_check`.execute(db);
  await sql`alter table change_log add constraint change_log_record_kind_check
    check (record_kind in ('project', 'parcel', 'contact'))`.execute(db);
  await sql`alter table change_log drop constraint change_log_op_check`.execute(db);
  await sql`alter table change_log add constraint change_log_op_check
    check (op in ('create', 'update', 'delete', 'link', 'unlink', 'schema'))`.execute(db);
}
