import { createQueryId, type Kysely, PostgresQueryCompiler, type RawBuilder, sql } from 'kysely';
import { executeCompiled } from '../../db/database.js';
import type { DB, RecordKind } from '../../db/types.js';
import { isForeignKeyViolation } from '../../errors.js';
import { newId } from '../../ids.js';
import { type Actor, writeLogged } from '../changes/index.js';
import { PLAIN_QUERY, type RecordQuery } from './filter.js';
import { geometryColumns } from './geo.js';
import { LISTS, type ListName } from './lists.js';
import { RECORD_TABLE, RECORD_TYPENAME, type RecordModel, type StoredValue } from './types.js';

interface RecordRow {
  org_id: string;
  portfolio_id: string;
  id: string;
  properties: Record<string, StoredValue>;
  created_at: Date;
  updated_at: Date;
  location?: unknown;
  acres?: number | null;
}

export function toRecord(kind: RecordKind, r: RecordRow): RecordModel {
  const record: RecordModel = {
    kind,
    orgId: r.org_id,
    portfolioId: r.portfolio_id,
    id: r.id,
    properties: r.properties,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  // Set, not spread in: a spread builds a second object for every row of a page.
  if (kind === 'project') record.location = (r.location ?? null) as RecordModel['location'];
  else if (kind === 'parcel') record.acres = r.acres ?? null;
  return record;
}

/** The columns a record read returns; parcel geometry is loaded apart, only when asked for. */
function recordColumns(kind: RecordKind, alias: string): RawBuilder<unknown> {
  const a = sql.ref(alias);
  const cols = sql`${a}.org_id, ${a}.portfolio_id, ${a}.id, ${a}.properties, ${a}.created_at, ${a}.updated_at`;
  if (kind === 'project') return sql`${cols}, ${a}.location`;
  return kind === 'parcel' ? sql`${cols}, ${a}.acres` : cols;
}

/** Records by id, limited to the given organizations (the caller's). Access to portfolios is checked by the caller. */
export async function recordsByIds(
  db: Kysely<DB>,
  kind: RecordKind,
  ids: readonly string[],
  orgIds: readonly string[],
): Promise<RecordModel[]> {
  if (!ids.length || !orgIds.length) return [];
  const { rows } = await sql<RecordRow>`
    select ${recordColumns(kind, 'r')} from ${sql.table(RECORD_TABLE[kind])} r
    where r.org_id in (${sql.join(orgIds)}) and r.id in (${sql.join(ids)})`.execute(db);
  return rows.map((r) => toRecord(kind, r));
}

export interface PageRequest {
  list: ListName;
  orgId: string;
  parentId: string;
  /** Rows wanted, plus one to learn whether more exist. */
  limit: number;
  direction: 'forward' | 'backward';
  /** Filter, order and search; absent for the plain list. Requests batch by its `sig`. */
  query?: RecordQuery;
  /**
   * Exclusive keyset bound: the sort key values (jsonb text, or timestamp ms), then the tiebreak
   * [sort timestamp ms, id].
   */
  bound?: (string | number)[];
}

export interface PageRow {
  record: RecordModel;
  sortAt: Date;
  linkedAt: Date | null;
  /** The row's sort key values, as cursors carry them. */
  keys: (string | number)[];
}

/**
 * The rows of one parent's list, over the child alias `c` (and the link alias `l`): the FROM/WHERE
 * every page, count and facet shares. `p` is the parent row with its `parent_id` (pages unnest the
 * parents from arrays, counts and facets list them as VALUES).
 */
export function listScope(
  list: ListName,
  query: RecordQuery,
  /** A parameter: the org's id, or the marker a kept statement is compiled with. */
  orgId: unknown,
  /** The parent: by default the column `p.parent_id` of the batch's parents, joined LATERAL. */
  parent: RawBuilder<unknown> = sql`p.parent_id`,
): { from: RawBuilder<unknown>; sortAt: RawBuilder<unknown>; childId: RawBuilder<unknown> } {
  const def = LISTS[list];
  // The org as a constant, not the parent row's column: Citus routes a statement to one shard only
  // when it can read the distribution value from the query itself. The loaders batch per org.
  const org = sql`${orgId}::text`;
  const child = sql.table(RECORD_TABLE[def.childKind]);
  const where = query.where ? sql` and ${query.where}` : sql``;
  if (!def.linkTable) {
    return {
      from: sql`${child} c where c.org_id = ${org} and c.${sql.ref(def.parentCol)} = ${parent}${where}`,
      sortAt: sql`c.created_at`,
      childId: sql`c.id`,
    };
  }
  const childCol = sql.ref(`l.${def.childCol}`);
  return {
    from: sql`${sql.table(def.linkTable)} l join ${child} c on c.org_id = ${org} and c.id = ${childCol}
      where l.org_id = ${org} and ${sql.ref(`l.${def.parentCol}`)} = ${parent}${where}`,
    sortAt: sql`l.linked_at`,
    childId: childCol,
  };
}

/** The one org of a batch (the loaders group by org). */
export function oneOrg(keys: readonly { orgId: string }[]): string {
  const org = keys[0].orgId;
  if (keys.some((k) => k.orgId !== org)) throw new Error('a batch spans organizations');
  return org;
}

/**
 * Pages for many parents of the same list, direction and query in ONE statement: the parents (with
 * each one's cursor) as unnested arrays, each joined LATERALly to its own ordered, limited page. Each
 * parent gets exactly its page.
 *
 * The order is the query's sort keys, then the list's stable order (created_at or linked_at, then
 * the child id), which runs the same way as the last key. Sort keys are never null (order.ts), so
 * the keyset condition is a row comparison when every key runs the same way, an index condition,
 * and the expanded OR form when directions are mixed. A page without a cursor gets a bound every
 * row passes (±infinity, or jsonb values beyond any stored one), so the condition keeps its shape.
 */
export async function pagesFor(db: Kysely<DB>, reqs: readonly PageRequest[]): Promise<PageRow[][]> {
  if (!reqs.length) return [];
  const { list, direction } = reqs[0];
  const query = reqs[0].query ?? PLAIN_QUERY;
  const kind = LISTS[list].childKind;
  const org = oneOrg(reqs);
  const terms = orderTerms(query, direction === 'backward');
  // The parents as one array per column, unnested into rows: a parameter per column rather than per
  // parent and column, so building, sending and parsing the statement does not grow with the parents.
  const parents: PageParents = {
    org,
    ords: reqs.map((_, i) => i),
    ids: reqs.map((r) => r.parentId),
    bounds: terms.map((t, j) => reqs.map((r) => boundValue(t, r.bound?.[j]))),
    limits: reqs.map((r) => r.limit),
  };
  const { rows } =
    query === PLAIN_QUERY
      ? await executeCompiled<PageRowData>(db, ...plainPageStatement(list, direction, parents))
      : await pageStatement(list, query, direction, parents).execute(db);
  const out: PageRow[][] = reqs.map(() => []);
  for (const r of rows)
    out[r.ord].push({
      record: toRecord(kind, r),
      sortAt: r.sort_at,
      linkedAt: r.linked_at,
      keys: query.keys.map((k, i) =>
        k.type === 'json' ? (r[`k${i}`] as string) : (r[`k${i}`] as Date).getTime(),
      ),
    });
  return out;
}

/** What a page statement takes as parameters: the org, and one array per column of the parents. */
interface PageParents {
  org: unknown;
  ords: unknown;
  ids: unknown;
  /** One array per order atom: each parent's cursor value for it (boundValue). */
  bounds: unknown[];
  limits: unknown;
}

function pageStatement(
  list: ListName,
  query: RecordQuery,
  direction: PageRequest['direction'],
  p: PageParents,
): RawBuilder<PageRowData> {
  const kind = LISTS[list].childKind;
  const scope = listScope(list, query, p.org);
  const atoms = orderAtoms(query, scope, direction === 'backward');
  const cols = atoms.map((_, i) => sql.raw(`b${i}`));
  const parents = sql.join([
    sql`${p.ords}::int[]`,
    sql`${p.ids}::text[]`,
    ...atoms.map((a, j) => sql`${p.bounds[j]}::${sql.raw(BOUND_TYPE[a.type])}[]`),
    sql`${p.limits}::int[]`,
  ]);
  const orderBy = sql.join(atoms.map((a) => sql`${a.expr} ${a.asc ? sql`asc` : sql`desc`}`));
  const keyCols = query.keys.map((k, i) =>
    k.type === 'json'
      ? sql`, (${k.expr})::text as ${sql.raw(`k${i}`)}`
      : sql`, ${k.expr} as ${sql.raw(`k${i}`)}`,
  );
  const linked = LISTS[list].linkTable ? sql`l.linked_at` : sql`null::timestamptz`;
  return sql<PageRowData>`
    select p.ord, x.* from unnest(${parents}) as p(ord, parent_id, ${sql.join(cols)}, lim)
    cross join lateral (
      select ${recordColumns(kind, 'c')}, ${scope.sortAt} as sort_at, ${linked} as linked_at${sql.join(keyCols, sql``)}
      from ${scope.from} and ${keysetCondition(atoms, cols)}
      order by ${orderBy} limit p.lim) x`;
}

/**
 * The plain list's page statement (no filter, order or search), compiled once per list and
 * direction: its text never changes, only its parameters. Building it with Kysely on every page
 * cost more Node CPU than anything else the loaders do
 * (docs/decisions.md#plain-page-statements-are-compiled-once). It is compiled with a marker in each
 * parameter's place, which says where each of a request's values goes.
 */
function plainPageStatement(
  list: ListName,
  direction: PageRequest['direction'],
  p: PageParents,
): [sql: string, parameters: unknown[]] {
  const key = `${list}:${direction}`;
  let kept = plainStatements.get(key);
  if (!kept) {
    const marks: PageParents = { org: {}, ords: {}, ids: {}, bounds: p.bounds.map(() => ({})), limits: {} };
    const marked = parameterList(marks);
    // Compiled apart from any handle, so that no request's plugins (its statement count) see it.
    const statement = pageStatement(list, PLAIN_QUERY, direction, marks);
    const compiled = new PostgresQueryCompiler().compileQuery(statement.toOperationNode(), createQueryId());
    const slots = compiled.parameters.map((param) => {
      const at = marked.indexOf(param);
      if (at < 0) throw new Error(`the ${key} page statement has a parameter that is not the parents'`);
      return at;
    });
    kept = { sql: compiled.sql, slots };
    plainStatements.set(key, kept);
  }
  const values = parameterList(p);
  return [kept.sql, kept.slots.map((at) => values[at])];
}

/** A page statement's parameters, each once, in a fixed order: where a kept statement's slots point. */
const parameterList = (p: PageParents): unknown[] => [p.org, p.ords, p.ids, p.limits, ...p.bounds];

/** Per list and direction: the compiled text, and for each of its parameters its place in parameterList. */
const plainStatements = new Map<string, { sql: string; slots: number[] }>();

type PageRowData = RecordRow & { ord: number; sort_at: Date; linked_at: Date | null } & Record<
    string,
    unknown
  >;

/** One term of a page's order: its type, and the direction the scan runs it in. */
interface OrderTerm {
  type: 'json' | 'ts' | 'id';
  asc: boolean;
}

/** A term with its expression. */
interface OrderAtom extends OrderTerm {
  expr: RawBuilder<unknown>;
}

/** The query's sort keys, then the list's stable order (sort time, child id) the way the last key runs. */
function orderTerms(query: RecordQuery, back: boolean): OrderTerm[] {
  const lastAsc = (query.keys.at(-1)?.dir ?? 'asc') === 'asc';
  return [
    ...query.keys.map((k) => ({ type: k.type, asc: (k.dir === 'asc') !== back })),
    { type: 'ts' as const, asc: lastAsc !== back },
    { type: 'id' as const, asc: lastAsc !== back },
  ];
}

function orderAtoms(query: RecordQuery, scope: ReturnType<typeof listScope>, back: boolean): OrderAtom[] {
  const exprs = [...query.keys.map((k) => k.expr), scope.sortAt, scope.childId];
  return orderTerms(query, back).map((t, i) => ({ ...t, expr: exprs[i] }));
}

const BOUND_TYPE = { id: 'text', ts: 'timestamptz', json: 'jsonb' } as const;

/** A cursor's value for one atom as text of its BOUND_TYPE, or without a cursor a bound every row passes. */
function boundValue(a: OrderTerm, v: string | number | undefined): string {
  if (a.type === 'id') return (v as string | undefined) ?? '';
  if (a.type === 'ts')
    return v === undefined ? (a.asc ? '-infinity' : 'infinity') : new Date(v as number).toISOString();
  return v === undefined ? (a.asc ? 'null' : '{}') : (v as string);
}

/** Rows after the bound: a row comparison when every atom runs one way (an index condition), else the expanded OR. */
function keysetCondition(atoms: OrderAtom[], cols: RawBuilder<unknown>[]): RawBuilder<unknown> {
  const cmp = (a: OrderAtom) => (a.asc ? sql`>` : sql`<`);
  if (atoms.every((a) => a.asc === atoms[0].asc))
    return sql`(${sql.join(atoms.map((a) => a.expr))}) ${cmp(atoms[0])} (${sql.join(cols.map((c) => sql`p.${c}`))})`;
  const after = (a: OrderAtom, i: number) =>
    sql`(${sql.join(
      [
        ...atoms.slice(0, i).map((e, j) => sql`${e.expr} = p.${cols[j]}`),
        sql`${a.expr} ${cmp(a)} p.${cols[i]}`,
      ],
      sql` and `,
    )})`;
  return sql`(${sql.join(atoms.map(after), sql` or `)})`;
}

/**
 * A list's totalCount. Under a filter or search, `estimate` says the count was not counted row by
 * row: more than EXACT_COUNT_LIMIT records match, and the number is extrapolated (filteredCounts).
 */
export interface ListCount {
  count: number;
  estimate: boolean;
}

/**
 * Above this many matches, a filtered or searched list's totalCount is an estimate (flagged in the
 * answer): counting every match of a broad search over a county roll reads every row of it, on
 * every keystroke, where the page itself stops after its first rows.
 */
export const EXACT_COUNT_LIMIT = 1000;

/** How many records each parent's list holds, in one statement (two more when many match a filter). */
export async function countsFor(
  db: Kysely<DB>,
  list: ListName,
  keys: readonly { orgId: string; parentId: string }[],
  query: RecordQuery = PLAIN_QUERY,
): Promise<ListCount[]> {
  if (!keys.length) return [];
  if (query.where) return filteredCounts(db, list, keys, query);
  return (await plainCounts(db, list, keys)).map((count) => ({ count, estimate: false }));
}

async function plainCounts(
  db: Kysely<DB>,
  list: ListName,
  keys: readonly { orgId: string; parentId: string }[],
): Promise<number[]> {
  const def = LISTS[list];
  if (!def.linkTable) {
    const { rows } = await sql<{ ord: number; n: number }>`
      select p.ord, ${listSize(list, oneOrg(keys))} as n
      from (values ${parentValues(keys)}) as p(ord, org_id, parent_id)`.execute(db);
    const out = keys.map(() => 0);
    for (const r of rows) out[r.ord] = r.n;
    return out;
  }
  const table = sql.table(def.linkTable);
  const parentCol = sql.ref(def.parentCol);
  const { rows } = await sql<{ org_id: string; parent_id: string; n: number }>`
    select org_id, ${parentCol} as parent_id, count(*)::int as n from ${table}
    where org_id in (${sql.join([...new Set(keys.map((k) => k.orgId))])})
      and ${parentCol} in (${sql.join(keys.map((k) => k.parentId))})
    group by org_id, ${parentCol}`.execute(db);
  const byKey = new Map(rows.map((r) => [`${r.org_id}\0${r.parent_id}`, r.n]));
  return keys.map((k) => byKey.get(`${k.orgId}\0${k.parentId}`) ?? 0);
}

/**
 * How many records a parent `p` (of `parentValues`) holds, as an int expression: for a portfolio's
 * list its kept count (migration 0013: the sum of its stripes' rows), or, where none is kept (Citus, or a portfolio
 * that never held a record of the kind), its records counted; a link list is always counted.
 */
function listSize(list: ListName, org: string): RawBuilder<number> {
  const def = LISTS[list];
  const counted = sql<number>`(select count(*)::int from ${listScope(list, PLAIN_QUERY, org).from})`;
  if (def.linkTable) return counted;
  return sql<number>`coalesce((select sum(k.n)::int from record_counts k
    where k.org_id = ${org}::text and k.portfolio_id = p.parent_id and k.kind = ${def.childKind}), ${counted})`;
}

export const parentValues = (keys: readonly { orgId: string; parentId: string }[]) =>
  sql.join(keys.map((k, i) => sql`(${i}::int, ${k.orgId}::text, ${k.parentId}::text)`));

/**
 * Counts matches up to EXACT_COUNT_LIMIT + 1, in id order. Ids are random (ids.ts), so the first
 * matches by id are a uniform sample that owes nothing to creation time, import order or any value.
 * A list with more is estimated by inverse sampling: the (limit + 1)th match by id lies after `seen`
 * of the list's records, so about limit / (seen - 1) of them match; times the list's size. The
 * size is kept (listSize) and `seen` an index-only count. The relative error is about 1 / sqrt(limit) whatever the share of
 * matches, and when the last match is the list's last record the count is exact after all.
 */
async function filteredCounts(
  db: Kysely<DB>,
  list: ListName,
  keys: readonly { orgId: string; parentId: string }[],
  query: RecordQuery,
): Promise<ListCount[]> {
  const org = oneOrg(keys);
  const scope = listScope(list, query, org);
  const { rows } = await sql<{ ord: number; n: number; last: string | null }>`
    select p.ord, x.n, x.last from (values ${parentValues(keys)}) as p(ord, org_id, parent_id)
    cross join lateral (select count(*)::int as n, max(m.id) as last from (select ${scope.childId} as id
      from ${scope.from} order by ${scope.childId} limit ${EXACT_COUNT_LIMIT + 1}) m) x`.execute(db);
  const out: ListCount[] = keys.map(() => ({ count: 0, estimate: false }));
  const over: { orgId: string; parentId: string; i: number; last: string }[] = [];
  for (const r of rows) {
    out[r.ord] = { count: r.n, estimate: false };
    if (r.n > EXACT_COUNT_LIMIT && r.last !== null) over.push({ ...keys[r.ord], i: r.ord, last: r.last });
  }
  if (!over.length) return out;
  const plain = listScope(list, PLAIN_QUERY, org);
  const parents = sql.join(
    over.map((k, i) => sql`(${i}::int, ${k.orgId}::text, ${k.parentId}::text, ${k.last}::text)`),
  );
  const { rows: sized } = await sql<{ ord: number; total: number; seen: number }>`
    select p.ord, t.total, s.seen from (values ${parents}) as p(ord, org_id, parent_id, last)
    cross join lateral (select ${listSize(list, org)} as total) t
    cross join lateral (select count(*)::int as seen from ${plain.from} and ${plain.childId} <= p.last) s`.execute(
    db,
  );
  for (const r of sized) {
    const { i } = over[r.ord];
    if (r.seen >= r.total) continue; // every record was read: the count is exact
    const estimated = Math.round((r.total * EXACT_COUNT_LIMIT) / (r.seen - 1));
    out[i] = { count: Math.min(r.total, Math.max(EXACT_COUNT_LIMIT + 1, estimated)), estimate: true };
  }
  return out;
}

/** Records of a list with one option or user (value), or with none (null). */
export interface FacetCount {
  value: string | null;
  count: number;
}

/**
 * Facet counts of one select, multi_select, people or checkbox property per parent, under the
 * query's filter: [value (option or user id, 'true' / 'false', null for none), count] per parent,
 * in one statement. A checkbox's boolean is counted as a one-element array would be.
 */
export async function facetsFor(
  db: Kysely<DB>,
  list: ListName,
  keys: readonly { orgId: string; parentId: string }[],
  query: RecordQuery,
  propertyId: string,
  member: 'select' | 'people' | 'checkbox',
): Promise<FacetCount[][]> {
  if (!keys.length) return [];
  const v = sql`x.properties -> ${propertyId}::text -> ${member}::text`;
  const { rows } = await sql<{ ord: number; value: string | null; n: number }>`
    select p.ord, v.value, count(distinct x.id)::int as n from (values ${parentValues(keys)}) as p(ord, org_id, parent_id)
    cross join lateral (select c.id, c.properties from ${listScope(list, query, oneOrg(keys)).from}) x
    left join lateral (
      select distinct e as value from jsonb_array_elements_text(
        case jsonb_typeof(${v}) when 'array' then ${v} when 'boolean' then jsonb_build_array(${v}) end) e
    ) v on true
    group by p.ord, v.value`.execute(db);
  const out: FacetCount[][] = keys.map(() => []);
  for (const r of rows) out[r.ord].push({ value: r.value, count: r.n });
  return out;
}

/** Whether a record exists in the portfolio. */
export async function recordInPortfolio(
  db: Kysely<DB>,
  kind: RecordKind,
  key: { orgId: string; portfolioId: string; id: string },
): Promise<boolean> {
  const { rows } = await sql`
    select 1 from ${sql.table(RECORD_TABLE[kind])}
    where org_id = ${key.orgId} and portfolio_id = ${key.portfolioId} and id = ${key.id}`.execute(db);
  return rows.length > 0;
}

/** Parcel geometries by id, for the GraphQL `geometry` field. */
export async function parcelGeometries(db: Kysely<DB>, orgIds: readonly string[], ids: readonly string[]) {
  if (!ids.length || !orgIds.length) return new Map<string, unknown>();
  const rows = await db
    .selectFrom('parcels')
    .select(['id', 'geometry'])
    .where('org_id', 'in', orgIds)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.geometry]));
}

/**
 * Inserts one record and logs it (with its values as "after"); undefined when its portfolio does
 * not exist (anymore). `created_at` and `updated_at` come from one clock reading (the statement's
 * start; the two column defaults, on clock_timestamp(), could straddle a millisecond), in a plain
 * VALUES row: Citus routes it to one shard.
 */
export async function insertRecord(
  db: Kysely<DB>,
  kind: RecordKind,
  orgId: string,
  portfolioId: string,
  properties: Record<string, StoredValue>,
  actor: Actor,
): Promise<RecordModel | undefined> {
  try {
    const [r] = await writeLogged(db, {
      orgId,
      actor,
      write: () => sql<RecordRow>`
        insert into ${sql.table(RECORD_TABLE[kind])} (org_id, portfolio_id, id, properties, created_at, updated_at)
        values (${orgId}, ${portfolioId}, ${newId(RECORD_TYPENAME[kind])}, ${JSON.stringify(properties)}::jsonb,
          date_trunc('milliseconds', statement_timestamp()), date_trunc('milliseconds', statement_timestamp()))
        returning ${recordColumns(kind, RECORD_TABLE[kind])}`,
      entries: [{ kind, op: 'create', portfolioId, properties: { after: 'properties' } }],
    });
    return toRecord(kind, r);
  } catch (err) {
    if (isForeignKeyViolation(err)) return undefined;
    throw err;
  }
}

/** Why an update did not happen: the record is gone, or (with an expected version) it changed. */
export type UpdateOutcome = { record: RecordModel } | { missing: true } | { conflict: true };

/**
 * A partial update, logged: a jsonb merge of the set values and removal of the cleared keys, so
 * concurrent updates of different properties all survive. `updated_at` strictly increases. The row
 * is locked first (a sub-select FOR UPDATE joined to the update: Citus runs that form as one task)
 * and its properties as locked are the entry's "before", so concurrent updates log a chain where
 * each one's before is the last one's after. With `expectedUpdatedAt`, the update
 * happens only if the record still has that version. The time comes from this process, and the
 * millisecond is added in UTC: Citus refuses a volatile function in an UPDATE, and a stable one
 * (timestamptz + interval) beside a column. The floor of one millisecond past the old value keeps
 * it increasing whatever the clocks say.
 */
export async function updateRecord(
  db: Kysely<DB>,
  kind: RecordKind,
  key: { orgId: string; portfolioId: string; id: string },
  set: Record<string, StoredValue>,
  clear: string[],
  actor: Actor,
  expectedUpdatedAt?: Date,
): Promise<UpdateOutcome> {
  const t = sql.table(RECORD_TABLE[kind]);
  const version = expectedUpdatedAt
    ? sql`and o.updated_at = ${expectedUpdatedAt.toISOString()}::timestamptz`
    : sql``;
  const [r] = await writeLogged(db, {
    orgId: key.orgId,
    actor,
    lock: [key.id],
    write: (locked) => sql<RecordRow & { before: Record<string, unknown> }>`
      update ${t} r set
        properties = (r.properties || ${JSON.stringify(set)}::jsonb) - ${clear}::text[],
        updated_at = greatest(${new Date().toISOString()}::timestamptz,
          ((r.updated_at at time zone 'UTC') + interval '1 millisecond') at time zone 'UTC')
      from (select o.id, o.properties from ${t} o
        where o.org_id = ${key.orgId} and o.portfolio_id = ${key.portfolioId} and o.id = ${key.id} ${version}
          and ${locked.ok}
        for update) old
      where r.org_id = ${key.orgId} and r.id = old.id
      returning ${recordColumns(kind, 'r')}, old.properties as before`,
    entries: [
      {
        kind,
        op: 'update',
        portfolioId: key.portfolioId,
        properties: { before: 'before', after: 'properties', keys: [...Object.keys(set), ...clear] },
      },
    ],
  });
  if (r) return { record: toRecord(kind, r) };
  if (!expectedUpdatedAt) return { missing: true };
  const still = await recordInPortfolio(db, kind, key);
  return still ? { conflict: true } : { missing: true };
}

/** Deletes a record and logs it (with its values as "before"); its link rows go with it (ON DELETE CASCADE). */
export async function deleteRecord(
  db: Kysely<DB>,
  kind: RecordKind,
  key: { orgId: string; portfolioId: string; id: string },
  actor: Actor,
): Promise<boolean> {
  const rows = await writeLogged(db, {
    orgId: key.orgId,
    actor,
    lock: [key.id],
    write: (locked) => sql<{ id: string }>`
      delete from ${sql.table(RECORD_TABLE[kind])}
      where org_id = ${key.orgId} and portfolio_id = ${key.portfolioId} and id = ${key.id} and ${locked.ok}
      returning org_id, id, properties`,
    entries: [{ kind, op: 'delete', portfolioId: key.portfolioId, properties: { before: 'properties' } }],
  });
  return rows.length > 0;
}

/** A parcel's geometry columns: the GeoJSON, and what maps and spatial filters read instead of it. */
function parcelGeometry(geometry: unknown) {
  if (geometry == null) return { geometry: null, acres: null, bounds: null, rings: null };
  return { geometry: JSON.stringify(geometry), ...geometryColumns(geometry) };
}

export interface BulkRecord {
  id?: string;
  properties: Record<string, StoredValue>;
  geometry?: unknown;
}

/**
 * Inserts many records of one portfolio with multi-row INSERTs (seeds, imports). Returns ids in
 * input order. With an actor (an import) each record's creation is logged as an API create is;
 * seeds pass none and are not logged.
 */
export async function bulkInsertRecords(
  db: Kysely<DB>,
  kind: RecordKind,
  orgId: string,
  portfolioId: string,
  records: BulkRecord[],
  actor?: Actor,
  chunk = 1000,
): Promise<string[]> {
  const ids = records.map((r) => r.id ?? newId(RECORD_TYPENAME[kind]));
  for (let i = 0; i < records.length; i += chunk) {
    const rows = records.slice(i, i + chunk).map((r, j) => ({
      org_id: orgId,
      portfolio_id: portfolioId,
      id: ids[i + j],
      properties: JSON.stringify(r.properties),
      ...(kind === 'parcel' ? parcelGeometry(r.geometry) : {}),
    }));
    const insert = db.insertInto(RECORD_TABLE[kind]).values(rows as never);
    if (!actor) await insert.execute();
    else
      await writeLogged(db, {
        orgId,
        actor,
        write: () => sql<{ id: string }>`${insert.returning(['org_id', 'id', 'properties'])}`,
        entries: [{ kind, op: 'create', portfolioId, properties: { after: 'properties' } }],
      });
  }
  return ids;
}
