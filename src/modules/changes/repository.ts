import { type Kysely, type RawBuilder, sql } from 'kysely';
import { writesOnCitus } from '../../db/citus.js';
import { CROSS_TENANT } from '../../db/tenant-guard.js';
import { inTransaction } from '../../db/transaction.js';
import type { DB, RecordKind } from '../../db/types.js';
import type { Actor, ChangeModel, ChangeOp } from './types.js';

/**
 * Writing the change log. Every writer goes through `writeLogged`: it runs a write and adds the
 * entries of what the write touched, so the two commit or roll back together. The write is given
 * once, as the statement that changes the rows; only how it is sent differs by engine:
 * - on PostgreSQL and PGlite, one statement: the locks, the write and the entries are CTEs of it,
 *   and the entries' changes are computed in SQL from the rows the write returns (no BEGIN and
 *   COMMIT, docs/decisions.md#a-write-is-one-statement-or-one-transaction);
 * - on Citus, statements of one transaction, each one shard task: the locks, the write, and the
 *   entries as an INSERT … VALUES of constants computed here from the rows the write returned.
 *   A CTE that reads no distributed table (the locks) or inserts from a SELECT is planned on the
 *   coordinator there, and a subquery in VALUES is refused (docs/scaling.md#the-change-log-on-citus).
 */

/** One change-log entry of a write: one per row the write returns, or once when there is no write. */
export interface LogEntry {
  /** `access`: an administration entry (invites, roles, guests, keys), kept out of the feed. */
  kind: RecordKind | 'access';
  op: ChangeOp | 'access';
  /** The record; a schema change's property. Omitted: the written row's `id`. */
  recordId?: string;
  /** Link and unlink: the other record. */
  relatedId?: string;
  /** Null for a schema change. */
  portfolioId: string | null;
  /**
   * The properties that changed, from columns of the written row: those of `keys` whose value differs
   * between `before` and `after`; a create (only `after`) or a delete (only `before`) logs them all.
   */
  properties?: { before: string; after: string; keys: string[] } | { before: string } | { after: string };
  /** Or the change as a constant (a schema change's definitions). Neither: `{}` (a link). */
  changes?: Record<string, unknown>;
}

/**
 * How a write waits for the record locks of `writeLogged`: put `ok` in its WHERE, or insert
 * `values(row)`. A write given locks must use one: in the one statement of PostgreSQL the locks are
 * taken where the write asks for them, before it touches a row.
 */
export interface Locked {
  /** A condition that holds once the locks are taken. */
  ok: RawBuilder<unknown>;
  /** An INSERT's one row (its values, comma-separated), inserted once the locks are taken. */
  values: (row: RawBuilder<unknown>) => RawBuilder<unknown>;
}

export interface LoggedWrite<R> {
  orgId: string;
  actor: Actor;
  /** Records to lock before the write, so one record's entries keep its commit order (see recordLocks). */
  lock?: string[];
  /**
   * The statement that writes: an INSERT, UPDATE or DELETE … RETURNING `org_id` and the columns the
   * entries name. Or none: the caller wrote in its own transaction, and `entries` are constants.
   */
  write?: (locked: Locked) => RawBuilder<R>;
  entries: LogEntry[];
}

/**
 * Runs a write and logs its entries, atomically: the one way into the change log. Returns the rows
 * the write returned.
 */
export async function writeLogged<R extends object>(db: Kysely<DB>, w: LoggedWrite<R>): Promise<R[]> {
  const { write } = w;
  if (!write) {
    if (w.entries.length) await logInsert(w.entries.map((e) => entryValues(w, e, null))).execute(db);
    return [];
  }
  if (await writesOnCitus())
    return inTransaction(db, async (tx) => {
      if (w.lock?.length) await lockRecords(tx, w.orgId, w.lock);
      const { rows } = await write(UNLOCKED).execute(tx);
      const values = rows.flatMap((row) =>
        w.entries.map((e) => entryValues(w, e, row as Record<string, unknown>)),
      );
      if (values.length) await logInsert(values).execute(tx);
      return rows;
    });
  const locks = w.lock?.length ? sql`lk as (${recordLocks(w.orgId, w.lock)}), ` : sql``;
  const { rows } = await sql<R>`
    with ${locks}w as (${write(w.lock?.length ? LOCKED : UNLOCKED)}),
    log as (${logInsert(
      w.entries.map((e) => entryValues(w, e, 'w')),
      w,
    )})
    select * from w`.execute(db);
  return rows;
}

/** The locks taken by a statement of their own, before the write (Citus), or none to wait for. */
const UNLOCKED: Locked = { ok: sql`true`, values: (row) => sql`values (${row})` };

/** The locks of the write's own statement: the `lk` CTE. */
const LOCKED: Locked = {
  ok: sql`(select lk.ok from lk)`,
  values: (row) => sql`select ${row} from lk where lk.ok`,
};

/**
 * The change log's one INSERT: rows of (org, portfolio, kind, record, op, related record, changes,
 * user, key, source) as constants, or, inside a write's statement, as SQL over each row the write
 * (`w`) returns, filtered on its org as every statement on a tenant table is (src/db/tenant-guard.ts).
 */
const logInsert = (rows: RawBuilder<unknown>[], overWriteOf?: { orgId: string }) =>
  sql`insert into change_log (org_id, portfolio_id, record_kind, record_id, op, related_id, changes, user_id, key_id, source)
    ${
      overWriteOf
        ? sql`select e.* from w cross join lateral (values ${sql.join(rows)}) e where w.org_id = ${overWriteOf.orgId}`
        : sql`values ${sql.join(rows)}`
    }`;

/** One entry's row for logInsert: over the write's rows in SQL (`w`), from a row it returned, or from nothing. */
function entryValues(
  w: { orgId: string; actor: Actor },
  e: LogEntry,
  row: 'w' | Record<string, unknown> | null,
): RawBuilder<unknown> {
  const id = e.recordId ?? (row === 'w' ? sql`w.id` : row?.id);
  if (id === undefined || (e.properties && !row)) throw new Error(`a ${e.op} entry needs the written row`);
  const changes =
    row === 'w'
      ? changesInSql(e)
      : sql`${JSON.stringify(e.properties && row ? changesOf(e.properties, row) : (e.changes ?? {}))}::jsonb`;
  const a = w.actor;
  return sql`(${w.orgId}::text, ${e.portfolioId}::text, ${e.kind}::text, ${id}::text, ${e.op}::text,
    ${e.relatedId ?? null}::text, ${changes}, ${a.userId}::text, ${a.keyId}::text, ${a.source}::text)`;
}

function changesInSql(e: LogEntry): RawBuilder<unknown> {
  const p = e.properties;
  const col = (name: string) => sql.ref(`w.${name}`);
  if (!p) return sql`${JSON.stringify(e.changes ?? {})}::jsonb`;
  if ('before' in p && 'after' in p) return propertyDiff(col(p.before), col(p.after), p.keys);
  return 'before' in p
    ? wholeRecordChange(col(p.before), 'before')
    : wholeRecordChange(col(p.after), 'after');
}

type Props = Record<string, unknown> | null;

/** changesInSql for a row the write returned. */
function changesOf(p: NonNullable<LogEntry['properties']>, row: Record<string, unknown>) {
  const before = 'before' in p ? (row[p.before] as Props) : null;
  const after = 'after' in p ? (row[p.after] as Props) : null;
  return diffProperties(before, after, 'keys' in p ? p.keys : undefined);
}

/**
 * A one-row query that takes a transaction-level advisory lock per record (in sorted order, so two
 * writers never deadlock), for a writer's CTE to join before it touches a row. It runs before the
 * transaction has an id: advisory locks do not assign one, and the lock is held until commit. So
 * of two transactions that change one record, the later one gets its id only after the earlier
 * one committed, and the log's (tx, seq) order is that record's commit order. A row lock alone
 * would not do: a transaction gets its id before it waits for the row.
 */
const recordLocks = (orgId: string, ids: string[]) =>
  sql`select bool_and(pg_advisory_xact_lock(hashtextextended(${orgId}::text || ':' || x, 0)) is not null) as ok
    from unnest(${[...ids].sort()}::text[]) x`;

/** The same locks as a statement of their own: the first of a multi-statement write. */
export async function lockRecords(db: Kysely<DB>, orgId: string, ids: string[]): Promise<void> {
  await recordLocks(orgId, ids).execute(db);
}

/** Sorted-key JSON, so two jsonb values compare equal exactly when the database would say so. */
const canonical = (v: unknown): string =>
  v === null || typeof v !== 'object'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`;

/** `propertyDiff` / `wholeRecordChange` computed in the process (missing counts as null, as `->` gives). */
function diffProperties(
  before: Props,
  after: Props,
  keys?: string[],
): Record<string, { before: unknown; after: unknown }> {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  for (const k of keys ?? Object.keys(before ?? after ?? {})) {
    const b = before?.[k] ?? null;
    const a = after?.[k] ?? null;
    if (canonical(b) !== canonical(a)) out[k] = { before: b, after: a };
  }
  return out;
}

/** jsonb of `{ propertyId: { before, after } }` from one properties map (create: after; delete: before). */
const wholeRecordChange = (props: RawBuilder<unknown>, side: 'before' | 'after') =>
  sql`(select coalesce(jsonb_object_agg(e.key, jsonb_build_object('before', ${side === 'before' ? sql`e.value` : sql`null::jsonb`}, 'after', ${side === 'after' ? sql`e.value` : sql`null::jsonb`})), '{}'::jsonb) from jsonb_each(${props}) e)`;

/** jsonb of the listed properties whose value differs between two maps. */
const propertyDiff = (before: RawBuilder<unknown>, after: RawBuilder<unknown>, keys: string[]) =>
  sql`(select coalesce(jsonb_object_agg(k, jsonb_build_object('before', ${before} -> k, 'after', ${after} -> k)), '{}'::jsonb)
    from unnest(${keys}::text[]) k where (${before} -> k) is distinct from (${after} -> k))`;

interface ChangeRow {
  org_id: string;
  seq_text: string;
  tx_text: string;
  portfolio_id: string | null;
  record_kind: RecordKind;
  record_id: string;
  op: ChangeOp;
  related_id: string | null;
  user_id: string | null;
  key_id: string | null;
  source: 'api' | 'cli';
  at: Date;
  changes: Record<string, unknown>;
}

const toChange = (r: ChangeRow): ChangeModel => ({
  orgId: r.org_id,
  seq: r.seq_text,
  tx: r.tx_text,
  portfolioId: r.portfolio_id,
  recordKind: r.record_kind,
  recordId: r.record_id,
  op: r.op,
  relatedId: r.related_id,
  userId: r.user_id,
  keyId: r.key_id,
  source: r.source,
  at: r.at,
  changes: r.changes,
});

const COLS = sql`org_id, seq, tx, seq::text as seq_text, tx::text as tx_text, portfolio_id, record_kind, record_id, op, related_id, user_id, key_id, source, at, changes`;

/** A (tx, seq) position; both are decimal strings (xid8 and bigint exceed JS numbers' safe range in principle). */
export interface LogPosition {
  tx: string;
  seq: string;
}

/** One record's entries, newest first, strictly before `before` when given; `limit` rows. */
export async function historyPage(
  db: Kysely<DB>,
  orgId: string,
  recordId: string,
  limit: number,
  before?: LogPosition,
): Promise<ChangeModel[]> {
  const bound = before ? sql`and (tx, seq) < (${before.tx}::xid8, ${before.seq}::bigint)` : sql``;
  const { rows } = await sql<ChangeRow>`
    select ${COLS} from change_log
    where org_id = ${orgId} and record_id = ${recordId} ${bound}
    order by tx desc, seq desc limit ${limit}`.execute(db);
  return rows.map(toChange);
}

/**
 * A portfolio's feed (its records' entries and the org's schema changes) after a position, in
 * (tx, seq) order, holding back every transaction that may still be running: only rows whose tx is
 * older than the snapshot's xmin. Every transaction older than xmin has ended, so no row can later
 * appear at or before a position returned here: a reader that stores the last position misses and
 * repeats nothing. Two index scans (the portfolio's rows, the schema rows) merged.
 */
export async function feedPage(
  db: Kysely<DB>,
  orgId: string,
  portfolioId: string,
  limit: number,
  after?: LogPosition,
): Promise<ChangeModel[]> {
  const from = after ? sql`and (tx, seq) > (${after.tx}::xid8, ${after.seq}::bigint)` : sql``;
  const visible = await visibleClause(db);
  const { rows } = await sql<ChangeRow>`
    select * from (
      (select ${COLS} from change_log where org_id = ${orgId} and portfolio_id = ${portfolioId} ${from} ${visible}
        order by tx, seq limit ${limit})
      union all
      (select ${COLS} from change_log where org_id = ${orgId} and portfolio_id is null ${from} ${visible}
        and record_kind <> 'access' order by tx, seq limit ${limit})
    ) x order by tx, seq limit ${limit}`.execute(db);
  return rows.map(toChange);
}

/**
 * Only entries of ended transactions. On Citus an entry's tx is the coordinator's (Citus evaluates
 * the volatile default there), while the reading query runs on a worker: read the coordinator's
 * horizon by its own statement and pass it in. The coordinator commits the worker's transaction
 * before its own, so below its xmin all is visible.
 */
async function visibleClause(db: Kysely<DB>): Promise<RawBuilder<unknown>> {
  return (await writesOnCitus())
    ? sql`and tx < ${(await feedHead(db)).tx}::xid8`
    : sql`and tx < pg_snapshot_xmin(pg_current_snapshot())`;
}

/**
 * An organization's whole log after a position, in (tx, seq) order, with the feed's rule for
 * running transactions (see feedPage): the webhook dispatcher's read, so an endpoint's position
 * never passes an entry that could still appear.
 */
export async function orgFeedPage(
  db: Kysely<DB>,
  orgId: string,
  limit: number,
  after: LogPosition,
): Promise<ChangeModel[]> {
  const { rows } = await sql<ChangeRow>`
    select ${COLS} from change_log
    where org_id = ${orgId} and (tx, seq) > (${after.tx}::xid8, ${after.seq}::bigint) ${await visibleClause(db)}
      and record_kind <> 'access'
    order by tx, seq limit ${limit}`.execute(db);
  return rows.map(toChange);
}

/** One administration entry (`access`): who did what to whom, when. */
export interface AuditEntry {
  seq: string;
  tx: string;
  /** The user the change is about. */
  subjectId: string;
  userId: string | null;
  keyId: string | null;
  source: 'api' | 'cli';
  at: Date;
  /** `{ action, … }`: what was done, with its before and after where there is one. */
  changes: Record<string, unknown>;
}

/** An organization's administration entries, newest first, strictly before `before` when given. */
export async function auditPage(
  db: Kysely<DB>,
  orgId: string,
  limit: number,
  before?: LogPosition,
): Promise<AuditEntry[]> {
  const bound = before ? sql`and (tx, seq) < (${before.tx}::xid8, ${before.seq}::bigint)` : sql``;
  const { rows } = await sql<ChangeRow>`
    select ${COLS} from change_log
    where org_id = ${orgId} and portfolio_id is null and record_kind = 'access' ${bound}
    order by tx desc, seq desc limit ${limit}`.execute(db);
  return rows.map((r) => ({
    seq: r.seq_text,
    tx: r.tx_text,
    subjectId: r.record_id,
    userId: r.user_id,
    keyId: r.key_id,
    source: r.source,
    at: r.at,
    changes: r.changes,
  }));
}

/** The feed's present end: everything before it has either been committed or never will be. */
export async function feedHead(db: Kysely<DB>): Promise<LogPosition> {
  const { rows } = await sql<{
    tx: string;
  }>`select pg_snapshot_xmin(pg_current_snapshot())::text as tx`.execute(db);
  return { tx: rows[0].tx, seq: '0' };
}

/**
 * The feed's head with the snapshot it was read from: a live subscription starts at the head (so no
 * entry that commits later is missed) and skips the entries whose transaction the snapshot shows as
 * ended (so nothing committed before it started is delivered).
 */
export async function feedStart(db: Kysely<DB>): Promise<{ position: LogPosition; snapshot: string }> {
  const { rows } = await sql<{ snapshot: string }>`select pg_current_snapshot()::text as snapshot`.execute(
    db,
  );
  const snapshot = rows[0].snapshot;
  return { position: { tx: snapshot.slice(0, snapshot.indexOf(':')), seq: '0' }, snapshot };
}

/** Drops entries older than `days`, per organization (each delete stays on one shard). */
export async function pruneOlderThan(db: Kysely<DB>, days: number): Promise<number> {
  const { rows: orgs } = await sql<{
    id: string;
  }>`${sql.raw(CROSS_TENANT)} select id from organizations`.execute(db);
  let n = 0;
  for (const { id } of orgs) {
    const r =
      await sql`delete from change_log where org_id = ${id} and at < now() - make_interval(days => ${days}::int)`.execute(
        db,
      );
    n += Number(r.numAffectedRows ?? 0);
  }
  return n;
}
