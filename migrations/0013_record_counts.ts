import { type Kysely, sql } from 'kysely';
import { distribute, isCitus } from '../src/db/citus.js';

/**
 * A kept count of each portfolio's projects, parcels and contacts. A grid's `totalCount` (and the
 * base of a filtered count's estimate) counted the portfolio's index entries on every request: at
 * county scale that is most of a page's time, and it grew with the roll.
 *
 * On PostgreSQL and PGlite, statement-level triggers keep it: one upsert per portfolio per
 * statement, from the statement's transition table, so a bulk insert of a thousand records moves
 * one row, and every writer is counted, the gateway's and any other (a seed, psql, the cascade of
 * a deleted portfolio, a TRUNCATE). The count is the sum of up to STRIPES rows, each backend adding to the one
 * its process id picks: on a single row, concurrent inserts into one portfolio queued behind each
 * other's commits (docs/benchmarks.md, "A portfolio's kept record count"). A
 * record never changes portfolio (no writer sets `portfolio_id`), so updates are not watched.
 *
 * On Citus a trigger would run on a shard, where it cannot write another table (as in 0003), so
 * the table is created (distributed with its org, for a router query) but neither filled nor kept:
 * a portfolio with no row here is counted row by row (repository.ts listSize), which is also what
 * a portfolio that never held a record costs on PostgreSQL.
 */
const TABLES = { parcels: 'parcel', projects: 'project', contacts: 'contact' } as const;
const STRIPES = 16;
/** Each trigger's event and its transition table (one event per trigger when it has one). */
const EVENTS = [
  ['insert', 'new'],
  ['delete', 'old'],
  ['truncate', undefined],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table record_counts (
    org_id text not null,
    portfolio_id text not null,
    kind text not null,
    stripe smallint not null,
    n bigint not null,
    primary key (org_id, portfolio_id, kind, stripe))`.execute(db);
  await distribute(db, { byOrg: ['record_counts'] });
  if (await isCitus(db)) return;
  // Rows in key order, so two statements that count the same portfolios on one stripe lock them in
  // one order.
  await sql`
    create function sdg_count_records() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into record_counts (org_id, portfolio_id, kind, stripe, n)
        select org_id, portfolio_id, tg_argv[0], pg_backend_pid() % ${sql.lit(STRIPES)}, count(*) from new_rows
        group by org_id, portfolio_id order by org_id, portfolio_id
        on conflict (org_id, portfolio_id, kind, stripe) do update set n = record_counts.n + excluded.n;
      elsif tg_op = 'DELETE' then
        insert into record_counts (org_id, portfolio_id, kind, stripe, n)
        select org_id, portfolio_id, tg_argv[0], pg_backend_pid() % ${sql.lit(STRIPES)}, -count(*) from old_rows
        group by org_id, portfolio_id order by org_id, portfolio_id
        on conflict (org_id, portfolio_id, kind, stripe) do update set n = record_counts.n + excluded.n;
      else
        delete from record_counts where kind = tg_argv[0];
      end if;
      return null;
    end $$`.execute(db);
  for (const [table, kind] of Object.entries(TABLES)) {
    // Counted and triggered under one lock of the table, so no insert falls between the two.
    await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(db);
    await sql`insert into record_counts (org_id, portfolio_id, kind, stripe, n)
      select org_id, portfolio_id, ${kind}, 0, count(*) from ${sql.table(table)} group by org_id, portfolio_id`.execute(
      db,
    );
    for (const [event, rows] of EVENTS)
      await sql`create trigger ${sql.id(`${table}_count_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
        ${rows ? sql.raw(`referencing ${rows} table as ${rows}_rows`) : sql``}
        for each statement execute function sdg_count_records(${sql.lit(kind)})`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of Object.keys(TABLES)) {
    for (const [event] of EVENTS)
      await sql`drop trigger if exists ${sql.id(`${table}_count_${event}`)} on ${sql.table(table)}`.execute(
        db,
      );
  }
  await sql`drop function if exists sdg_count_records()`.execute(db);
  await sql`drop table if exists record_counts`.execute(db);
}
