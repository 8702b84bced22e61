import { type Kysely, sql } from 'kysely';
import { distribute, isCitus } from '../src/db/citus.js';

/**
 * A version per organization, bumped by triggers whenever anything that processes cache changes:
 * its property schemas, members, guests, portfolios, or the names of its users. The key lookup
 * returns the caller's org versions, so caches keyed by (org, version) are exact on every replica,
 * with no TTL and no invalidation messages. No foreign key: rows may outlive a deleted org.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table org_versions (org_id text primary key, version bigint not null default 1)`.execute(
    db,
  );
  await sql`insert into org_versions (org_id) select id from organizations`.execute(db);
  // On Citus the key lookup reads versions with the memberships, on one node; and triggers there
  // would run on shards, where they cannot write another table. The writers bump instead
  // (bumpOrgVersion in modules/org/repository.ts), on every backend.
  await distribute(db, { reference: ['org_versions'] });
  if (await isCitus(db)) return;
  await sql`
    create function sdg_bump_org_version() returns trigger language plpgsql as $$
    begin
      insert into org_versions (org_id)
      values (case when tg_op = 'DELETE' then old.org_id else new.org_id end)
      on conflict (org_id) do update set version = org_versions.version + 1;
      if tg_op = 'UPDATE' and new.org_id is distinct from old.org_id then
        insert into org_versions (org_id) values (old.org_id)
        on conflict (org_id) do update set version = org_versions.version + 1;
      end if;
      return null;
    end $$`.execute(db);
  for (const t of ['property_defs', 'org_members', 'portfolio_guests', 'portfolios']) {
    await sql`create trigger ${sql.raw(`${t}_bump_org_version`)} after insert or update or delete on ${sql.table(t)}
      for each row execute function sdg_bump_org_version()`.execute(db);
  }
  // A user's name or e-mail shows in every org they belong to (user lists, people labels).
  await sql`
    create function sdg_bump_user_orgs() returns trigger language plpgsql as $$
    begin
      insert into org_versions (org_id)
      select org_id from org_members where user_id = new.id
      union select org_id from portfolio_guests where user_id = new.id
      on conflict (org_id) do update set version = org_versions.version + 1;
      return null;
    end $$`.execute(db);
  await sql`create trigger users_bump_org_version after update of name, email on users
    for each row execute function sdg_bump_user_orgs()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists users_bump_org_version on users`.execute(db);
  for (const t of ['property_defs', 'org_members', 'portfolio_guests', 'portfolios']) {
    await sql`drop trigger if exists ${sql.raw(`${t}_bump_org_version`)} on ${sql.table(t)}`.execute(db);
  }
  await sql`drop function if exists sdg_bump_user_orgs()`.execute(db);
  await sql`drop function if exists sdg_bump_org_version()`.execute(db);
  await sql`drop table if exists org_versions`.execute(db);
}
