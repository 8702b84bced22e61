import { type Kysely, type RawBuilder, sql } from 'kysely';
import { writesOnCitus } from '../../db/citus.js';
import { CROSS_TENANT } from '../../db/tenant-guard.js';
import type { DB, RecordKind } from '../../db/types.js';
import type { Actor, ChangeModel, ChangeOp } from './types.js';

/**
 * The change log's SQL. Writers put `logColumns` / `actorValues` into their own statements (a CTE
 * beside the write), so a write and its entry commit or roll back together in one round trip.
 */

/** The columns a writer's `insert into change_log (…)` names, in the order `actorValues` fills the last three. */
export const logColumns = sql`org_id, portfolio_id, record_kind, record_id, op, related_id, changes, user_id, key_id, source`;

export const actorValues = (a: Actor): RawBuilder<unknown> =>
  sql`${a.userId}::text, ${a.keyId}::text, ${a.source}::text`;

/**
 * A one-row query that takes a transaction-level advisory lock per record (in sorted order, so two
 * writers never deadlock), for a writer's CTE to join before it touches a row. It runs before the
 * transaction has an id: advisory locks do not assign one, and the lock is held until commit. So
 * of two transactions that change one record, the later one gets its id only after the earlier
 * one committed, and the log's (tx, seq) order is that record's commit order. A row lock alone
 * would not do: a transaction gets its id before it waits for the row.
 */
export const recordLocks = (orgId: string, ids: string[]) =>
  sql`select bool_and(pg_advisory_xact_lock(hashtextextended(${orgId}::text || ':' || x, 0)) is not null) as ok
    from unnest(${[...ids].sort()}::text[]) x`;

/** The same locks as a statement of their own: the first of a multi-statement write. */
export async function lockRecords(db: Kysely<DB>, orgId: string, ids: string[]): Promise<void> {
  await recordLocks(orgId, ids).execute(db);
}

/** One entry as constants, for a writer that logs by a statement of its own (on Citus). */
export interface LogEntry {
  orgId: string;
  portfolioId: string | null;
  kind: RecordKind;
  recordId: string;
  op: ChangeOp;
  relatedId: string | null;
  changes: Record<string, { before: unknown; after: unknown }>;
}

/**
 * Entries as one multi-row `INSERT … VALUES` of constants: Citus routes it to the org's shard as one
 * task, where an INSERT … SELECT (or a subquery in VALUES) would go through the coordinator.
 */
export async function insertEntries(db: Kysely<DB>, entries: LogEntry[], actor: Actor): Promise<void> {
  if (!entries.length) return;
  const rows = entries.map(
    (e) =>
      sql`(${e.orgId}::text, ${e.portfolioId}::text, ${e.kind}::text, ${e.recordId}::text, ${e.op}::text, ${e.relatedId}::text, ${JSON.stringify(e.changes)}::jsonb, ${actorValues(actor)})`,
  );
  await sql`insert into change_log (${logColumns}) values ${sql.join(rows)}`.execute(db);
}

/**
 * One record's create, update or delete as its entry (no related record), with the property diff
 * computed in the process from the row before and after: a record write's log statement on Citus.
 */
export function logOne(
  db: Kysely<DB>,
  record: { orgId: string; portfolioId: string | null; kind: RecordKind; recordId: string },
  op: 'create' | 'update' | 'delete',
  changes: LogEntry['changes'],
  actor: Actor,
): Promise<void> {
  return insertEntries(db, [{ ...record, op, relatedId: null, changes }], actor);
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
export function diffProperties(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
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
export const wholeRecordChange = (props: RawBuilder<unknown>, side: 'before' | 'after') =>
  sql`(select coalesce(jsonb_object_agg(e.key, jsonb_build_object('before', ${side === 'before' ? sql`e.value` : sql`null::jsonb`}, 'after', ${side === 'after' ? sql`e.value` : sql`null::jsonb`})), '{}'::jsonb) from jsonb_each(${props}) e)`;

/** jsonb of the listed properties whose value differs between two maps. */
export const propertyDiff = (before: RawBuilder<unknown>, after: RawBuilder<unknown>, keys: string[]) =>
  sql`(select coalesce(jsonb_object_agg(k, jsonb_build_object('before', ${before} -> k, 'after', ${after} -> k)), '{}'::jsonb)
    from unnest(${keys}::text[]) k where (${before} -> k) is distinct from (${after} -> k))`;

/**
 * For an INSERT … SELECT on Citus: the coordinator's transaction id as a constant `tx`. Pushed down,
 * the column's default would be the worker's id, which the feed (on the coordinator's horizon)
 * cannot compare. Elsewhere nothing: the default is the one transaction's id.
 */
async function explicitTx(db: Kysely<DB>): Promise<{ col: RawBuilder<unknown>; val: RawBuilder<unknown> }> {
  if (!(await writesOnCitus())) return { col: sql``, val: sql`` };
  const { rows } = await sql<{ tx: string }>`select pg_current_xact_id()::text as tx`.execute(db);
  return { col: sql`, tx`, val: sql`, ${rows[0].tx}::xid8` };
}

/** Both sides of link changes: one entry on each record, naming the other. */
export async function logLinks(
  db: Kysely<DB>,
  k: { orgId: string; portfolioId: string },
  pairs: { aKind: RecordKind; a: string; bKind: RecordKind; b: string }[],
  op: 'link' | 'unlink',
  actor: Actor,
): Promise<void> {
  for (let i = 0; i < pairs.length; i += 1000) {
    const rows = pairs
      .slice(i, i + 1000)
      .flatMap((p) => [
        sql`(${p.aKind}::text, ${p.a}::text, ${p.b}::text)`,
        sql`(${p.bKind}::text, ${p.b}::text, ${p.a}::text)`,
      ]);
    const x = await explicitTx(db);
    await sql`insert into change_log (${logColumns}${x.col})
      select ${k.orgId}, ${k.portfolioId}, s.kind, s.rid, ${op}, s.other, '{}'::jsonb, ${actorValues(actor)}${x.val}
      from (values ${sql.join(rows)}) s(kind, rid, other)`.execute(db);
  }
}

/** Creates of records inserted by bulk (the parcel import), read back from their rows. */
export async function logBulkCreates(
  db: Kysely<DB>,
  kind: RecordKind,
  orgId: string,
  ids: string[],
  actor: Actor,
): Promise<void> {
  if (!ids.length) return;
  const t = sql.table(`${kind}s`);
  const x = await explicitTx(db);
  await sql`insert into change_log (${logColumns}${x.col})
    select r.org_id, r.portfolio_id, ${kind}, r.id, 'create', null, ${wholeRecordChange(sql`r.properties`, 'after')}, ${actorValues(actor)}${x.val}
    from ${t} r where r.org_id = ${orgId} and r.id in (${sql.join(ids)})`.execute(db);
}

/** A schema change: the property's definition before (null when new) and after. */
export async function logSchemaChange(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  propertyId: string,
  after: unknown,
  actor: Actor,
): Promise<void> {
  const x = await explicitTx(db);
  await sql`insert into change_log (${logColumns}${x.col})
    select ${orgId}, null, ${kind}, ${propertyId}, 'schema', null,
      jsonb_build_object('before', (select jsonb_build_object('name', d.name, 'type', d.property_type, 'options', d.options, 'required', d.required)
        from property_defs d where d.org_id = ${orgId} and d.kind = ${kind} and d.id = ${propertyId}), 'after', ${JSON.stringify(after)}::jsonb),
      ${actorValues(actor)}${x.val}`.execute(db);
}

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
        order by tx, seq limit ${limit})
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
    order by tx, seq limit ${limit}`.execute(db);
  return rows.map(toChange);
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
