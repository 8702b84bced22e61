import { type Kysely, sql } from 'kysely';
import { CROSS_TENANT } from '../../db/tenant-guard.js';
import type { DB, RecordKind } from '../../db/types.js';
import { newId } from '../../ids.js';
import { type Actor, writeLogged } from '../changes/index.js';
import { geometryColumns, RECORD_TYPENAME, type StoredValue } from '../records/index.js';
import type { ExternalIdModel, UpsertAnswer } from './types.js';

/**
 * Sync's SQL: external id sources, external ids, bulk record writes, idempotency keys. Every
 * statement names its organization as a constant, so on Citus each one is routed to one shard.
 * A batch's keys are unnested and each is looked up by a LATERAL index probe, kept from being
 * flattened into a join (LIMIT 1 on a unique key, OFFSET 0 otherwise): a plain `= any(array)`, or
 * the flattened join, was planned as a scan of the organization's whole index while the table's
 * statistics were stale (right after a large import), one batch then costing a read of every row.
 *
 * Inserts are multi-row VALUES, not INSERT … SELECT FROM unnest(…): Citus plans the latter by
 * pulling the rows to the coordinator, and routes the former. A call holds at most 1,000 rows, so
 * the VALUES stay far under Postgres's 65,535 parameters (parcels: 8 a row). Updates read their rows
 * from VALUES too (see updateRecords).
 */

const TABLE = { project: 'projects', parcel: 'parcels', contact: 'contacts' } as const;
/** The external_ids column that points at a record of each kind. */
const REF = { project: 'project_id', parcel: 'parcel_id', contact: 'contact_id' } as const;

export async function sourcesOf(db: Kysely<DB>, orgId: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select name from external_sources where org_id = ${orgId} order by name`.execute(db);
  return rows.map((r) => r.name);
}

export async function addSource(db: Kysely<DB>, orgId: string, name: string): Promise<void> {
  await sql`insert into external_sources (org_id, name) values (${orgId}, ${name})
    on conflict do nothing`.execute(db);
}

/** The external ids of records of one kind, by record id, ordered by source. */
export async function externalIdsOf(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  ids: readonly string[],
): Promise<Map<string, ExternalIdModel[]>> {
  const col = sql.ref(REF[kind]);
  const { rows } = await sql<{ record_id: string; source: string; external_id: string }>`
    select e.record_id, e.source, e.external_id from unnest(${[...ids]}::text[]) as x(id)
    cross join lateral (select ${col} as record_id, source, external_id from external_ids
      where org_id = ${orgId} and ${col} = x.id offset 0) e
    order by e.source`.execute(db);
  const out = new Map<string, ExternalIdModel[]>();
  for (const r of rows) {
    const list = out.get(r.record_id) ?? [];
    list.push({ source: r.source, id: r.external_id });
    out.set(r.record_id, list);
  }
  return out;
}

/** Where an external id points: the record's kind and id, and its portfolio. */
export interface ExternalTarget {
  externalId: string;
  kind: RecordKind;
  id: string;
  portfolioId: string;
}

/** The records the external ids of a source point at (absent ids are left out). */
export async function findByExternalIds(
  db: Kysely<DB>,
  orgId: string,
  source: string,
  externalIds: readonly string[],
): Promise<ExternalTarget[]> {
  if (!externalIds.length) return [];
  // The portfolio of whichever record the row points at: one of the three joins matches.
  const { rows } = await sql<{
    external_id: string;
    project_id: string | null;
    parcel_id: string | null;
    contact_id: string | null;
    portfolio_id: string;
  }>`
    select e.* from unnest(${[...externalIds]}::text[]) as x(ext)
    cross join lateral (
      select e.external_id, e.project_id, e.parcel_id, e.contact_id, coalesce(
        (select portfolio_id from projects where org_id = ${orgId} and id = e.project_id),
        (select portfolio_id from parcels where org_id = ${orgId} and id = e.parcel_id),
        (select portfolio_id from contacts where org_id = ${orgId} and id = e.contact_id)) as portfolio_id
      from external_ids e where e.org_id = ${orgId} and e.source = ${source} and e.external_id = x.ext
      limit 1) e`.execute(db);
  return rows.map((r) => {
    const kind: RecordKind = r.project_id ? 'project' : r.parcel_id ? 'parcel' : 'contact';
    return {
      externalId: r.external_id,
      kind,
      id: (r.project_id ?? r.parcel_id ?? r.contact_id)!,
      portfolioId: r.portfolio_id,
    };
  });
}

/** Records of one kind by id, with the external id each carries in `source` (or null). */
export async function findByIds(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  source: string | null,
  ids: readonly string[],
): Promise<{ id: string; portfolioId: string; externalId: string | null }[]> {
  if (!ids.length) return [];
  const { rows } = await sql<{ id: string; portfolio_id: string; external_id: string | null }>`
    select r.* from unnest(${[...ids]}::text[]) as x(id)
    cross join lateral (
      select r.id, r.portfolio_id, (select e.external_id from external_ids e
        where e.org_id = ${orgId} and e.${sql.ref(REF[kind])} = r.id and e.source = ${source}) as external_id
      from ${sql.table(TABLE[kind])} r where r.org_id = ${orgId} and r.id = x.id limit 1) r`.execute(db);
  return rows.map((r) => ({ id: r.id, portfolioId: r.portfolio_id, externalId: r.external_id }));
}

/** A record to create: its values, and for a parcel its geometry (null: none). */
export interface NewRow {
  properties: Record<string, StoredValue>;
  geometry?: unknown;
}

/**
 * Inserts records of one portfolio, each logged as created, in one statement (with its log
 * entries, on Postgres). Returns the new ids in input order. Both timestamps come from one clock
 * reading, as a single create's do.
 */
export async function insertRecords(
  db: Kysely<DB>,
  kind: RecordKind,
  orgId: string,
  portfolioId: string,
  rows: readonly NewRow[],
  actor: Actor,
): Promise<string[]> {
  if (!rows.length) return [];
  const ids = rows.map(() => newId(RECORD_TYPENAME[kind]));
  const at = sql`date_trunc('milliseconds', statement_timestamp())`;
  const values = rows.map((r, i) => {
    const base = sql`${orgId}, ${portfolioId}, ${ids[i]}, ${JSON.stringify(r.properties)}::jsonb, ${at}, ${at}`;
    if (kind !== 'parcel') return sql`(${base})`;
    const g = r.geometry == null ? null : r.geometry;
    const c = g == null ? null : geometryColumns(g);
    return sql`(${base}, ${g == null ? null : JSON.stringify(g)}::jsonb, ${c?.acres ?? null}::float8,
      ${c?.bounds ?? null}::box, ${c?.rings ?? null}::polygon[])`;
  });
  const geoCols = kind === 'parcel' ? sql`, geometry, acres, bounds, rings` : sql``;
  await writeLogged(db, {
    orgId,
    actor,
    write: () => sql<{ org_id: string; id: string }>`
      insert into ${sql.table(TABLE[kind])} (org_id, portfolio_id, id, properties, created_at, updated_at${geoCols})
      values ${sql.join(values)}
      returning org_id, id, properties`,
    entries: [{ kind, op: 'create', portfolioId, properties: { after: 'properties' } }],
  });
  return ids;
}

/** A change to an existing record: values to set and clear, and for a parcel maybe a geometry. */
export interface ChangeRow {
  id: string;
  set: Record<string, StoredValue>;
  clear: string[];
  /** Parcels: undefined leaves the geometry, null clears it. */
  geometry?: unknown;
}

/**
 * Applies changes to records of one portfolio and logs each record that changed; a record whose
 * values (and geometry) already are what the change says is not touched: no `updated_at`, no
 * entry, not even a row lock (the comparison comes before FOR UPDATE, which would write the tuple)
 * or a record lock.
 * The database decides, in the UPDATE's own sub-select, and checks again once the row is locked, so
 * a concurrent write cannot make an unchanged record look changed or the reverse. Returns the ids that changed.
 * `recordLocks` off: no record locks, only the rows' own (see UpsertInput.recordLocks). `updated_at`
 * strictly increases, as in a single update (records/repository.ts updateRecord).
 */
export async function updateRecords(
  db: Kysely<DB>,
  kind: RecordKind,
  orgId: string,
  portfolioId: string,
  changes: readonly ChangeRow[],
  actor: Actor,
  recordLocks = true,
): Promise<Set<string>> {
  if (!changes.length) return new Set();
  const t = sql.table(TABLE[kind]);
  const parcel = kind === 'parcel';
  // Rows as VALUES, each cast once on its parameter: Citus evaluates those casts before routing
  // the statement, where a cast of an unnested column (text to polygon[] is STABLE) inside the
  // CASE below is refused ("non-IMMUTABLE functions are not allowed in CASE").
  const rowsOf = changes.map((c) => {
    const base = sql`${c.id}::text, ${JSON.stringify(c.set)}::jsonb, ${JSON.stringify(c.clear)}::jsonb`;
    if (!parcel) return sql`(${base})`;
    const g = c.geometry == null ? null : geometryColumns(c.geometry);
    return sql`(${base}, ${c.geometry !== undefined}::boolean,
      ${c.geometry == null ? null : JSON.stringify(c.geometry)}::jsonb, ${g?.acres ?? null}::float8,
      ${g?.bounds ?? null}::box, ${g?.rings ?? null}::polygon[])`;
  });
  const names = parcel
    ? sql`x_id, set_v, clear_v, geo_given, geo_v, acres_v, bounds_v, rings_v`
    : sql`x_id, set_v, clear_v`;
  const merged = sql`((o.properties || x.set_v) - array(select jsonb_array_elements_text(x.clear_v)))`;
  const geoSet = parcel
    ? sql`, geometry = case when old.geo_given then old.geo_v else r.geometry end,
        acres = case when old.geo_given then old.acres_v else r.acres end,
        bounds = case when old.geo_given then old.bounds_v else r.bounds end,
        rings = case when old.geo_given then old.rings_v else r.rings end`
    : sql``;
  const geoChanged = parcel ? sql` or (x.geo_given and x.geo_v is distinct from o.geometry)` : sql``;
  const differs = sql`(${merged} is distinct from o.properties${geoChanged})`;
  // Not `=`: an equality on portfolio_id lets the planner probe the (org, portfolio, …) page index
  // for each row, reading the whole portfolio's range each time (docs/benchmarks.md); IS NOT
  // DISTINCT FROM is no index condition, so each row is one primary-key probe.
  const inPortfolio = sql`o.portfolio_id is not distinct from ${portfolioId}`;
  // Which records differ, read before any lock: an unchanged record takes no record lock either.
  // The locks are transaction-level advisory locks, one lock-table slot each until commit, and the
  // CLI's import is one transaction: re-sending a large roll ran the table out ("out of shared
  // memory"). The UPDATE below compares again once the rows are locked.
  const { rows: changed } = await sql<{ id: string }>`
    select x.x_id as id from (values ${sql.join(rowsOf)}) as x(${names})
    cross join lateral (select 1 from ${t} o
      where o.org_id = ${orgId} and o.id = x.x_id and ${inPortfolio} and ${differs}
      offset 0) o`.execute(db);
  if (!changed.length) return new Set();
  const todo = new Set(changed.map((r) => r.id));
  const keys = [...new Set(changes.flatMap((c) => [...Object.keys(c.set), ...c.clear]))];
  const rows = await writeLogged(db, {
    orgId,
    actor,
    lock: recordLocks ? [...todo] : undefined,
    write: (locked) => sql<{ org_id: string; id: string }>`
      update ${t} r set
        properties = old.merged${geoSet},
        updated_at = greatest(${new Date().toISOString()}::timestamptz,
          ((r.updated_at at time zone 'UTC') + interval '1 millisecond') at time zone 'UTC')
      from (select o.id, o.properties, o.merged, x.* from (values ${sql.join(rowsOf.filter((_, i) => todo.has(changes[i].id)))}) as x(${names})
        cross join lateral (select o.id, o.properties, ${merged} as merged from ${t} o
          where o.org_id = ${orgId} and o.id = x.x_id and ${inPortfolio} and ${locked.ok}
            and ${differs}
          for update) o) old
      where r.org_id = ${orgId} and r.id = old.id
      returning r.org_id, r.id, r.properties, old.properties as before`,
    entries: [
      { kind, op: 'update', portfolioId, properties: { before: 'before', after: 'properties', keys } },
    ],
  });
  return new Set(rows.map((r) => r.id));
}

/** Binds external ids of a source to records of one kind (new bindings only). */
export async function bindExternalIds(
  db: Kysely<DB>,
  orgId: string,
  kind: RecordKind,
  source: string,
  pairs: readonly { externalId: string; id: string }[],
): Promise<void> {
  if (!pairs.length) return;
  await sql`insert into external_ids (org_id, source, external_id, ${sql.ref(REF[kind])})
    values ${sql.join(pairs.map((p) => sql`(${orgId}, ${source}, ${p.externalId}, ${p.id})`))}`.execute(db);
}

/**
 * Where an idempotency key's 24 hours begin, by the gateway's clock, sent as a parameter: Citus
 * refuses a non-IMMUTABLE function such as now() in an INSERT … ON CONFLICT's WHERE on a
 * distributed table, so every statement on these keys takes its time from here, one clock for all.
 */
const keptSince = () => new Date(Date.now() - 24 * 3600_000).toISOString();

/** The key's stored request hash and answer, when it was used in the last 24 hours. */
export async function findIdempotent(
  db: Kysely<DB>,
  orgId: string,
  key: string,
): Promise<{ hash: string; answer: UpsertAnswer | null } | undefined> {
  const { rows } = await sql<{ request_hash: string; response: UpsertAnswer | null }>`
    select request_hash, response from idempotency_keys
    where org_id = ${orgId} and key = ${key} and created_at > ${keptSince()}::timestamptz`.execute(db);
  return rows[0] && { hash: rows[0].request_hash, answer: rows[0].response };
}

/**
 * Claims a key for this call, inside its transaction: true when it is ours (new, or its last use
 * is older than 24 hours). A concurrent call with the same key waits here until the first
 * commits, then finds it taken.
 */
export async function claimIdempotent(
  db: Kysely<DB>,
  orgId: string,
  key: string,
  hash: string,
): Promise<boolean> {
  const { rows } = await sql`
    insert into idempotency_keys as k (org_id, key, request_hash, created_at)
    values (${orgId}, ${key}, ${hash}, ${new Date().toISOString()}::timestamptz)
    on conflict (org_id, key) do update set request_hash = excluded.request_hash, response = null,
      created_at = excluded.created_at
    where k.created_at <= ${keptSince()}::timestamptz
    returning k.key`.execute(db);
  return rows.length > 0;
}

export async function storeIdempotent(
  db: Kysely<DB>,
  orgId: string,
  key: string,
  answer: UpsertAnswer,
): Promise<void> {
  await sql`update idempotency_keys set response = ${JSON.stringify(answer)}::jsonb
    where org_id = ${orgId} and key = ${key}`.execute(db);
}

/** Deletes idempotency keys older than 24 hours, per organization (each delete one shard's). */
export async function pruneIdempotencyKeys(db: Kysely<DB>): Promise<number> {
  const { rows: orgs } = await sql<{
    id: string;
  }>`${sql.raw(CROSS_TENANT)} select id from organizations`.execute(db);
  let n = 0;
  for (const { id } of orgs) {
    const r = await sql`delete from idempotency_keys
      where org_id = ${id} and created_at <= ${keptSince()}::timestamptz`.execute(db);
    n += Number(r.numAffectedRows ?? 0);
  }
  return n;
}
