import DataLoader from 'dataloader';
import {
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  getArgumentValues,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Context, Loaders } from '../../context.js';
import type { DB, RecordKind } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { tracedBatch } from '../../observability/tracing.js';
import { PROPERTY_TYPES, type PropertyType, propertyType } from '../properties/index.js';
import type { PropertyDefModel, PropertySchemaModel } from '../schema/index.js';
import type { RecordQuery } from './filter.js';
import { LISTS, type ListName } from './lists.js';
import { propertyNamePart } from './order.js';
import { listScope, oneOrg, parentValues } from './repository.js';
import type {
  AggregatesModel,
  GroupedAggregatesArgs,
  GroupKeyModel,
  GroupModel,
  GroupsModel,
} from './types.js';
import { peopleOf } from './values.js';

/**
 * Dashboards: `aggregates` and `groupedAggregates` on record connections. Each field is
 * one SQL statement over the list's own FROM and WHERE (repository.ts listScope: tenant, parent,
 * filter, search, spatial), grouped in SQL. The aggregates a client asks for are read from the
 * field's selection before the statement runs, so every aggregate and every group's aggregates
 * come from that one statement; the fields of RecordAggregates then only look their values up.
 * Statements of the same list, organization, query and selection over many parents (a link list
 * under each record of a page) are batched into one, like counts and facets.
 */

/** The aggregate functions, as RecordAggregates names them. */
export const AGGREGATE_FUNCTIONS = [
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'minDate',
  'maxDate',
  'minTime',
  'maxTime',
  'withValue',
  'withoutValue',
] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

/** An aggregate's arguments as GraphQL gives them (enum values by name). */
export interface AggregateArgs {
  propertyId?: string | null;
  field?: string | null;
}

export type GroupedArgs = GroupedAggregatesArgs;
export type GroupByInput = GroupedArgs['groupBy'][number];
type GroupOrderInput = NonNullable<GroupedArgs['orderBy']>;

export const MAX_GROUP_KEYS = 2;
export const MAX_GROUPS = 1000;
export const DEFAULT_GROUPS = 100;

const NUMBER_FNS = new Set<AggregateFunction>(['sum', 'avg', 'min', 'max']);
const BUCKETS = { DAY: 'day', WEEK: 'week', MONTH: 'month', QUARTER: 'quarter', YEAR: 'year' } as const;
const TIME_COLUMNS: Record<string, string> = { CREATED_AT: 'created_at', UPDATED_AT: 'updated_at' };

/** Type names with a hook, in registry order, for messages: "number", "select, multi_select, …". */
const typesWith = (has: (t: PropertyType) => unknown) =>
  PROPERTY_TYPES.filter((t) => has(t as PropertyType))
    .map((t) => t.name)
    .join(', ');
const NUMBER_TYPES = typesWith((t) => t.aggregate?.number);
const DAY_TYPES = typesWith((t) => t.aggregate?.day);
const GROUP_TYPES = typesWith((t) => t.aggregate?.group);

/** Which aggregates fit which types: every message about a misfit ends with it. */
export const AGGREGATES_FIT = `sum, avg, min and max take a ${NUMBER_TYPES} property or field ACRES (parcels); minDate and maxDate a ${DAY_TYPES} property; minTime and maxTime field CREATED_AT or UPDATED_AT; withValue and withoutValue any property`;
export const GROUP_KEYS_FIT = `group by a ${GROUP_TYPES} property, or with a bucket (DAY, WEEK, MONTH, QUARTER, YEAR) a ${DAY_TYPES} property or field CREATED_AT or UPDATED_AT`;

/** One aggregate of a statement: its name in answers (`sig`) and its SQL over the child alias `c`. */
export interface Measure {
  sig: string;
  sql: RawBuilder<unknown>;
  /** minTime / maxTime read timestamps. */
  time?: boolean;
}

/** The name of one aggregate and its target, as the statement's answers are keyed. */
export function measureSig(fn: AggregateFunction, args: AggregateArgs): string {
  if (fn === 'count') return 'count';
  return args.propertyId != null ? `${fn}:p:${args.propertyId}` : `${fn}:f:${args.field ?? ''}`;
}

const prop = (id: string) => sql`(c.properties -> ${id}::text)`;

/**
 * Checks one aggregate against the schema and compiles it; a misfit is pushed to `details` (with
 * what fits which types) and compiles to undefined.
 */
export function compileMeasure(
  schema: PropertySchemaModel,
  fn: AggregateFunction,
  args: AggregateArgs,
  details: ErrorDetail[],
  path: string,
): Measure | undefined {
  const sig = measureSig(fn, args);
  if (fn === 'count') return { sig, sql: sql`count(*)::int` };
  const problem = (field: string, reason: string) => {
    details.push({ field, path, reason: `${reason}; ${AGGREGATES_FIT}` });
    return undefined;
  };
  const hasProperty = args.propertyId != null;
  const hasField = args.field != null;
  if (hasProperty === hasField) return problem(fn, `${fn} takes exactly one of propertyId and field`);
  if (hasField) {
    const field = args.field!;
    if (NUMBER_FNS.has(fn)) {
      if (field !== 'ACRES') return problem(field, `${fn} does not take field ${field}`);
      if (schema.kind !== 'parcel')
        return problem(field, `field ACRES is a parcel's; a ${schema.kind} has no acres`);
      return {
        sig,
        sql: fn === 'sum' || fn === 'avg' ? acresAggregate(fn) : numberAggregate(fn, sql`c.acres`),
      };
    }
    if ((fn === 'minTime' || fn === 'maxTime') && TIME_COLUMNS[field])
      return { sig, sql: sql`${sql.raw(fn.slice(0, 3))}(c.${sql.ref(TIME_COLUMNS[field])})`, time: true };
    return problem(field, `${fn} does not take field ${field}`);
  }
  const id = args.propertyId!;
  const def = schema.byId.get(id);
  const type = def && propertyType(def.type);
  if (!def || !type)
    return problem(id, `unknown property "${id}"; the ${schema.kind} property schema lists the ids`);
  if (fn === 'withValue' || fn === 'withoutValue') {
    const empty = sql`coalesce(${type.filter.empty(prop(id))}, true)`;
    return {
      sig,
      sql: sql`(count(*) filter (where ${fn === 'withValue' ? sql`not ${empty}` : empty}))::int`,
    };
  }
  if (NUMBER_FNS.has(fn)) {
    const number = type.aggregate?.number;
    if (!number) return problem(id, `${fn} does not take a ${def.type} property`);
    return { sig, sql: numberAggregate(fn, number(prop(id))) };
  }
  if (fn === 'minDate' || fn === 'maxDate') {
    const day = type.aggregate?.day;
    if (!day) return problem(id, `${fn} does not take a ${def.type} property`);
    return { sig, sql: sql`${sql.raw(fn.slice(0, 3))}(${day(prop(id))})` };
  }
  return problem(id, `${fn} takes a field, not a property`);
}

/**
 * sum / avg / min / max as a float8 for the answer. Sums run exact in numeric first; one beyond a
 * Float's range (values near 1e308) answers null rather than failing the cast. Postgres computes
 * the repeated aggregate once.
 */
function numberAggregate(fn: AggregateFunction, x: RawBuilder<unknown>) {
  const agg = sql`${sql.raw(fn)}(${x})`;
  return fn === 'sum'
    ? sql`(case when abs(${agg}) <= 1.7976931348623157e308 then (${agg})::float8 end)`
    : sql`(${agg})::float8`;
}

/**
 * Sum and average of parcel acres, in whole micro-acres. Acres are float8, whose sum depends on the
 * order the rows are added in, and a parallel scan adds them in another order each time: the same
 * question would get answers that differ in their last digits. Integers add up exactly in any order
 * (Postgres sums int8 in 128 bits). Rounding costs at most half a micro-acre (2 mm²) per parcel, and
 * no parcel on Earth comes near int8's 9.2e12 acres.
 */
const acresAggregate = (fn: 'sum' | 'avg') => sql`(${sql.raw(fn)}(round(c.acres * 1e6)::int8) / 1e6)::float8`;

/** A compiled group key: its values per record, their order, and how they read. */
export interface GroupKey {
  sig: string;
  /**
   * The record's one key, a text expression over the child alias `c`; or, for a record with several,
   * a query of one text column `v` over `c` (joined LATERAL).
   */
  value: { one: RawBuilder<unknown> } | { many: RawBuilder<unknown> };
  /** Sort terms over the key's column `k`, ascending (the group without a value goes last apart). */
  order: (k: RawBuilder<unknown>) => RawBuilder<unknown>[];
  by: 'option' | 'user' | 'checkbox' | 'day';
  bucket?: (typeof BUCKETS)[keyof typeof BUCKETS];
  def?: PropertyDefModel;
}

/** Checks and compiles one group key; a misfit is pushed to `details` and compiles to undefined. */
export function compileGroupKey(
  schema: PropertySchemaModel,
  g: GroupByInput,
  details: ErrorDetail[],
  path: string,
): GroupKey | undefined {
  const problem = (field: string, reason: string) => {
    details.push({ field, path, reason: `${reason}; ${GROUP_KEYS_FIT}` });
    return undefined;
  };
  const hasProperty = g.propertyId != null;
  if (hasProperty === (g.field != null))
    return problem('groupBy', 'a group key takes exactly one of propertyId and field');
  const bucket = g.bucket == null ? undefined : BUCKETS[g.bucket as keyof typeof BUCKETS];
  if (g.bucket != null && !bucket) return problem('bucket', `unknown bucket ${g.bucket}`);
  const sig = JSON.stringify([g.propertyId ?? null, g.field ?? null, bucket ?? null]);
  // Byte order, whatever the database's collation: ids, 'false' < 'true', YYYY-MM-DD days.
  const byText = (k: RawBuilder<unknown>) => [sql`${k} collate "C"`];
  const dayKey = (at: RawBuilder<unknown>): GroupKey => ({
    sig,
    value: { one: sql`to_char(date_trunc(${sql.lit(bucket!)}, ${at}), 'YYYY-MM-DD')` },
    order: byText,
    by: 'day',
    bucket,
  });
  if (!hasProperty) {
    const col = TIME_COLUMNS[g.field!];
    if (!col) return problem(g.field!, `field ${g.field} cannot group`);
    if (!bucket) return problem(g.field!, `field ${g.field} groups by a bucket: give bucket`);
    return dayKey(sql`(c.${sql.ref(col)} at time zone 'UTC')`);
  }
  const id = g.propertyId!;
  const def = schema.byId.get(id);
  const type = def && propertyType(def.type);
  if (!def || !type)
    return problem(id, `unknown property "${id}"; the ${schema.kind} property schema lists the ids`);
  const hooks = type.aggregate;
  if (hooks?.day) {
    if (!bucket) return problem(id, `a ${def.type} property groups by a bucket: give bucket`);
    // A value stored in another shape (by an older release) is no day, rather than a failed cast.
    const day = hooks.day(prop(id));
    return dayKey(sql`(case when ${day} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' then (${day})::timestamp end)`);
  }
  if (!hooks?.group) return problem(id, `a ${def.type} property cannot group`);
  if (bucket) return problem(id, `bucket is for dates; a ${def.type} property groups by its values`);
  const options = def.options.map((o) => o.id);
  return {
    sig,
    value: hooks.group.value ? { one: hooks.group.value(prop(id)) } : { many: hooks.group.values(prop(id)) },
    order:
      hooks.group.by === 'option'
        ? (k) => [sql`array_position(${options}::text[], ${k})`, sql`${k} collate "C"`]
        : byText,
    by: hooks.group.by,
    def,
  };
}

/**
 * DDL for the statistics an operator adds for one property (`sdg schema index`), for a type whose
 * records have one group key each (select, people, checkbox). Without them Postgres guesses that a
 * grouped scan of a portfolio makes about as many groups as it reads rows, and then plans no
 * parallel workers; with them it knows the few keys and splits the scan (docs/decisions.md, "A
 * dashboard's grouped scan runs in parallel"). The expression is exactly the one the statement
 * groups by, with the property id as a literal, as the planner sees it once the id is bound. One
 * object serves every organization with that property id (the expression is the same); it is
 * named as the property's indexes are (propertyNamePart).
 */
export function groupStatisticsSql(
  table: 'projects' | 'parcels' | 'contacts',
  schema: PropertySchemaModel,
  id: string,
): { name: string; create: RawBuilder<unknown>; analyze: RawBuilder<unknown> } | undefined {
  const def = schema.byId.get(id);
  const group = def && propertyType(def.type)?.aggregate?.group;
  if (!group?.value) return undefined;
  const name = `${table}_group_${propertyNamePart(id)}_stat`;
  const key = group.value(sql`(properties -> ${sql.lit(id)}::text)`);
  return {
    name,
    create: sql`create statistics if not exists ${sql.id(name)} on (${key}) from ${sql.table(table)}`,
    // Statistics are empty until the table is analyzed; autovacuum would do it only after many writes.
    analyze: sql`analyze ${sql.table(table)}`,
  };
}

/** The statement of one `aggregates` field, or of one `groupedAggregates` field. */
interface Plan {
  sig: string;
  measures: Measure[];
  grouped?: {
    keys: GroupKey[];
    /** The ordering aggregate (absent: the keys alone) and the direction. */
    order: { sql?: RawBuilder<unknown>; desc: boolean };
    first: number;
  };
}

interface AggregateKey {
  list: ListName;
  orgId: string;
  parentId: string;
  query: RecordQuery;
  plan: Plan;
}

type Row = Record<string, unknown> & { ord: number };

/**
 * The aggregates of each parent's list in one statement (grouped: up to first + 1 groups each).
 *
 * Many parents join their VALUES to the grouped query LATERALly; one parent, a dashboard's case, is
 * a constant instead. Postgres runs a lateral subquery once per outer row and never in parallel,
 * while a plain grouped scan of a portfolio's 100,000 rows runs on parallel workers once Postgres
 * knows that its key makes few groups (the statistics of groupStatisticsSql). For the same reason a
 * key of one value per record is a column of the scanned rows, not a LATERAL of its own: the null a
 * left join adds would hide the expression from those statistics.
 */
async function aggregateRows(db: Kysely<DB>, keys: readonly AggregateKey[]): Promise<Row[][]> {
  const { list, query, plan } = keys[0];
  const single = keys.length === 1;
  const scope = listScope(list, query, oneOrg(keys), single ? sql`${keys[0].parentId}::text` : undefined);
  const cols = [
    sql`count(*)::int as n`,
    ...plan.measures.map((m, i) => sql`${m.sql} as ${sql.ref(`m${i}`)}`),
  ];
  let inner: RawBuilder<unknown>;
  if (!plan.grouped) inner = sql`select ${sql.join(cols)} from ${scope.from}`;
  else {
    const g = plan.grouped;
    const k = g.keys.map((key, i) => sql.ref('one' in key.value ? `c.k${i}` : `k${i}.v`));
    const ones = g.keys.flatMap((key, i) =>
      'one' in key.value ? [sql`, ${key.value.one} as ${sql.ref(`k${i}`)}`] : [],
    );
    // Under an aggregate, ties follow the key order; under the keys alone, the direction is theirs.
    const dir = (desc: boolean) => (desc ? sql`desc nulls last` : sql`asc nulls last`);
    const keyDesc = !g.order.sql && g.order.desc;
    const order = [
      ...(g.order.sql ? [sql`${g.order.sql} ${dir(g.order.desc)}`] : []),
      ...g.keys.flatMap((key, i) => [
        sql`${k[i]} is null`,
        ...key.order(k[i]).map((t) => sql`${t} ${dir(keyDesc)}`),
      ]),
    ];
    inner = sql`select ${sql.join(k.map((x, i) => sql`${x} as ${sql.ref(`k${i}`)}`))}, ${sql.join(cols)},
        count(*) over ()::int as groups
      from (select c.*${sql.join(ones, sql``)} from ${scope.from}) c
      ${sql.join(
        g.keys.flatMap((key, i) =>
          'many' in key.value ? [sql`left join lateral (${key.value.many}) ${sql.ref(`k${i}`)} on true`] : [],
        ),
        sql` `,
      )}
      group by ${sql.join(k)}
      order by ${sql.join(order)}
      limit ${g.first + 1}`;
  }
  const { rows } = await (single
    ? sql<Row>`select 0 as ord, x.* from (${inner}) x`
    : sql<Row>`select p.ord, x.* from (values ${parentValues(keys)}) as p(ord, org_id, parent_id)
        cross join lateral (${inner}) x`
  ).execute(db);
  const out: Row[][] = keys.map(() => []);
  for (const r of rows) out[r.ord].push(r);
  return out;
}

/** Per request (per set of loaders: a read-pool switch makes new ones), one batching loader. */
const loadersOf = new WeakMap<Loaders, DataLoader<AggregateKey, Row[], string>>();

function aggregateLoader(ctx: Context): DataLoader<AggregateKey, Row[], string> {
  let loader = loadersOf.get(ctx.loaders);
  if (!loader) {
    const db = ctx.db;
    // One statement per list, org, query and selection: the plan's sig names the selection.
    const groupOf = (k: AggregateKey) => `${k.list}:${k.orgId}:${k.query.sig}:${k.plan.sig}`;
    loader = new DataLoader<AggregateKey, Row[], string>(
      tracedBatch('records.aggregates', async (keys) => {
        const groups = new Map<string, AggregateKey[]>();
        for (const k of keys) {
          const g = groups.get(groupOf(k));
          if (g) g.push(k);
          else groups.set(groupOf(k), [k]);
        }
        const byKey = new Map<string, Row[]>();
        await Promise.all(
          [...groups.values()].map(async (group) => {
            const unique = [...new Map(group.map((k) => [k.parentId, k])).values()];
            const rows = await aggregateRows(db, unique);
            for (const [i, k] of unique.entries()) byKey.set(`${groupOf(k)}\0${k.parentId}`, rows[i]);
          }),
        );
        return keys.map((k) => byKey.get(`${groupOf(k)}\0${k.parentId}`)!);
      }),
      // Like counts and facets: a mutation's later payloads must see its own writes.
      { cache: false },
    );
    loadersOf.set(ctx.loaders, loader);
  }
  return loader;
}

/** What aggregates read of a connection's list: pages.ts hands its own over. */
export interface AggregateScope {
  ctx: Context;
  list: ListName;
  orgId: string;
  parentId: string;
  query: RecordQuery;
}

/** The aggregates a selection of RecordAggregates asks for: each field's function and arguments. */
function selectedMeasures(
  info: GraphQLResolveInfo,
  sets: readonly SelectionSetNode[],
): { fn: AggregateFunction; args: AggregateArgs }[] {
  const type = info.schema.getType('RecordAggregates') as GraphQLObjectType;
  const out: { fn: AggregateFunction; args: AggregateArgs }[] = [];
  for (const node of fieldsOf(info, sets)) {
    const def = type.getFields()[node.name.value];
    if (!def) continue; // __typename
    out.push({
      fn: node.name.value as AggregateFunction,
      args: getArgumentValues(def, node, info.variableValues) as AggregateArgs,
    });
  }
  return out;
}

/** The field nodes of selection sets, with fragments written out (each set is of one object type). */
function fieldsOf(info: GraphQLResolveInfo, sets: readonly SelectionSetNode[]): FieldNode[] {
  const out: FieldNode[] = [];
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) out.push(sel);
      else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const f = info.fragments[sel.name.value];
        if (f) walk(f.selectionSet);
      }
    }
  };
  for (const s of sets) walk(s);
  return out;
}

const subSets = (nodes: readonly FieldNode[]) =>
  nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));

/** Whether a connection field's selection asks for `totalCount` or `totalCountIsEstimate`. */
export const asksCount = (info: GraphQLResolveInfo): boolean =>
  fieldsOf(info, subSets(info.fieldNodes)).some((n) => COUNT_FIELDS.has(n.name.value));

const COUNT_FIELDS = new Set(['totalCount', 'totalCountIsEstimate']);

/** Compiles the selected aggregates; all misfits at once, as one VALIDATION_FAILED. */
function measuresOf(
  schema: PropertySchemaModel,
  selected: { fn: AggregateFunction; args: AggregateArgs; path?: string }[],
  details: ErrorDetail[],
  path: string,
): Measure[] {
  const bySig = new Map<string, Measure>();
  for (const s of selected) {
    const sig = measureSig(s.fn, s.args);
    if (sig === 'count' || bySig.has(sig)) continue; // count is every statement's `n`
    const m = compileMeasure(schema, s.fn, s.args, details, s.path ?? `${path}.${s.fn}`);
    if (m) bySig.set(sig, m);
  }
  return [...bySig.values()];
}

function refuse(details: ErrorDetail[], what: string): never {
  throw new AppError(
    'VALIDATION_FAILED',
    `${details.length} problem${details.length === 1 ? '' : 's'} in ${what}; see details. ${details[0].reason}.`,
    details,
  );
}

/** The answers of one statement row, by aggregate sig. */
function answers(row: Row | undefined, measures: Measure[]): AggregatesModel {
  const values = new Map<string, unknown>([['count', (row?.n as number | undefined) ?? 0]]);
  measures.forEach((m, i) => {
    const v = row?.[`m${i}`] ?? null;
    values.set(m.sig, m.time && v != null && !(v instanceof Date) ? new Date(v as string) : v);
  });
  return { values };
}

/** `aggregates` of a connection. */
export async function listAggregates(
  scope: AggregateScope,
  info: GraphQLResolveInfo,
): Promise<AggregatesModel> {
  const { ctx, list, orgId, parentId, query } = scope;
  const schema = await ctx.loaders.schema.load({ orgId, kind: LISTS[list].childKind });
  const details: ErrorDetail[] = [];
  const measures = measuresOf(
    schema,
    selectedMeasures(info, subSets(info.fieldNodes)),
    details,
    'aggregates',
  );
  if (details.length) refuse(details, 'aggregates');
  const plan: Plan = { sig: `a:${measures.map((m) => m.sig).join(',')}`, measures };
  const [row] = await aggregateLoader(ctx).load({ list, orgId, parentId, query, plan });
  return answers(row, measures);
}

/** `groupedAggregates` of a connection. */
export async function listGroupedAggregates(
  scope: AggregateScope,
  args: GroupedArgs,
  info: GraphQLResolveInfo,
): Promise<GroupsModel> {
  const { ctx, list, orgId, parentId, query } = scope;
  const kind: RecordKind = LISTS[list].childKind;
  const schema = await ctx.loaders.schema.load({ orgId, kind });
  const details: ErrorDetail[] = [];
  const first = args.first ?? DEFAULT_GROUPS;
  if (!Number.isInteger(first) || first < 1 || first > MAX_GROUPS)
    details.push({ field: 'first', reason: `first takes 1 to ${MAX_GROUPS} groups` });
  if (args.groupBy.length < 1 || args.groupBy.length > MAX_GROUP_KEYS)
    details.push({
      field: 'groupBy',
      reason: `give 1 or ${MAX_GROUP_KEYS} group keys, not ${args.groupBy.length}; ${GROUP_KEYS_FIT}`,
    });
  const keys = args.groupBy
    .slice(0, MAX_GROUP_KEYS)
    .map((g, i) => compileGroupKey(schema, g, details, `groupBy[${i}]`));
  const groupFields = fieldsOf(info, subSets(info.fieldNodes)).filter((n) => n.name.value === 'groups');
  const aggFields = fieldsOf(info, subSets(groupFields)).filter((n) => n.name.value === 'aggregates');
  const order = args.orderBy ? orderOf(args.orderBy, details) : undefined;
  const selected = [
    ...(order?.measure ? [{ ...order.measure, path: 'orderBy' }] : []),
    ...selectedMeasures(info, subSets(aggFields)),
  ];
  const measures = measuresOf(schema, selected, details, 'groupedAggregates.groups.aggregates');
  if (details.length) refuse(details, 'groupedAggregates');
  const compiled = keys as GroupKey[];
  const orderSql = {
    sql: !order?.by
      ? undefined
      : order.measure
        ? measures.find((m) => m.sig === measureSig(order.measure!.fn, order.measure!.args))!.sql
        : sql`count(*)`,
    desc: order?.desc ?? false,
  };
  const plan: Plan = {
    sig: `g:${JSON.stringify([compiled.map((k) => k.sig), measures.map((m) => m.sig), order?.sig ?? null, first])}`,
    measures,
    grouped: { keys: compiled, order: orderSql, first },
  };
  const rows = await aggregateLoader(ctx).load({ list, orgId, parentId, query, plan });
  const listed = rows.slice(0, first);
  const labels = await keyLabels(ctx, orgId, compiled, listed);
  const groups: GroupModel[] = listed.map((r) => ({
    keys: compiled.map((k, i) => labels(k, i, r[`k${i}`] as string | null)),
    aggregates: answers(r, measures),
  }));
  return {
    groups,
    totalGroups: (rows[0]?.groups as number | undefined) ?? 0,
    truncated: rows.length > first,
  };
}

/** The ordering of groups: KEY (undefined measure), COUNT, or an aggregate of a number target. */
function orderOf(
  o: GroupOrderInput,
  details: ErrorDetail[],
):
  | { sig: string; by?: string; desc: boolean; measure?: { fn: AggregateFunction; args: AggregateArgs } }
  | undefined {
  const desc = o.direction === 'DESC' || o.direction === 'desc';
  const by = o.by.toUpperCase();
  const target = { propertyId: o.propertyId ?? null, field: o.field ?? null };
  if (by === 'KEY' || by === 'COUNT') {
    if (target.propertyId != null || target.field != null)
      details.push({ field: 'orderBy', reason: `orderBy ${by} takes no propertyId or field` });
    return by === 'KEY' ? { sig: `key:${desc}`, desc } : { sig: `count:${desc}`, by, desc };
  }
  const fn = by.toLowerCase() as AggregateFunction;
  if (!NUMBER_FNS.has(fn)) {
    details.push({ field: 'orderBy', reason: `unknown orderBy ${o.by}` });
    return undefined;
  }
  // Checked by measuresOf, like the aggregates selected: a misfit is reported once, there.
  return { sig: `${measureSig(fn, target)}:${desc}`, by, desc, measure: { fn, args: target } };
}

/** A group key's value with its label; names of options and users come from the schema and the org. */
async function keyLabels(ctx: Context, orgId: string, keys: GroupKey[], rows: Row[]) {
  const uids = new Set<string>();
  keys.forEach((k, i) => {
    if (k.by === 'user') for (const r of rows) if (r[`k${i}`] != null) uids.add(r[`k${i}`] as string);
  });
  const ids = [...uids];
  const named = ids.length ? await peopleOf(ctx, orgId, ids) : [];
  const users = new Map(ids.map((id, i) => [id, named[i]?.name ?? null]));
  return (k: GroupKey, _i: number, v: string | null): GroupKeyModel => {
    if (v == null) return { value: null, label: NO_VALUE, empty: true };
    return { value: v, label: keyLabel(k, v, users), empty: false };
  };
}

export const NO_VALUE = 'No value';

function keyLabel(k: GroupKey, v: string, users: ReadonlyMap<string, string | null>): string | null {
  if (k.by === 'option') return k.def?.options.find((o) => o.id === v)?.name ?? v;
  if (k.by === 'user') return users.get(v) ?? null;
  if (k.by === 'checkbox') return checkboxLabel(v);
  return bucketLabel(k.bucket!, v);
}

export const checkboxLabel = (v: string) => (v === 'true' ? 'Checked' : 'Unchecked');

/** A bucket's label from its first day: `2026-05-04`, `2026-W19`, `2026-05`, `2026-Q2`, `2026`. */
export function bucketLabel(bucket: GroupKey['bucket'] & string, day: string): string {
  const [y, m] = day.split('-');
  if (bucket === 'day') return day;
  if (bucket === 'month') return `${y}-${m}`;
  if (bucket === 'year') return y;
  if (bucket === 'quarter') return `${y}-Q${Math.floor((Number(m) - 1) / 3) + 1}`;
  // ISO week of a Monday: the week's Thursday decides its year.
  const d = new Date(`${day}T00:00:00Z`);
  const thursday = new Date(d.getTime() + 3 * 86_400_000);
  const isoYear = String(thursday.getUTCFullYear()).padStart(4, '0');
  const jan1 = new Date(`${isoYear}-01-01T00:00:00Z`).getTime();
  const week = Math.floor((thursday.getTime() - jan1) / (7 * 86_400_000)) + 1;
  return `${isoYear}-W${String(week).padStart(2, '0')}`;
}
