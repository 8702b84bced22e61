import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import {
  CONTROL,
  FILTER_GROUPS,
  type FilterContext,
  likeEscape,
  MAX_TEXT_LENGTH,
  type PropertyType,
  propertyType,
} from '../properties/index.js';
import type { PropertyDefModel, PropertySchemaModel } from '../schema/index.js';
import { compileOrder, type OrderInput, type SortKey } from './order.js';
import { compileAcres, compileSpatial, type SpatialInput } from './spatial.js';

/**
 * GraphQL list filters (`filter`, `search`, and with order.ts `orderBy`) checked against the
 * organization's property schema and compiled to SQL fragments over the child record alias `c`.
 * Every value travels as a bind parameter; property ids too (they are checked to exist first).
 * Each property type compiles its own operators (src/modules/properties/); equality-like tests
 * compile to jsonb containment (`properties @> …`), which the GIN index `<table>_properties_gin`
 * (jsonb_path_ops) serves.
 */

export interface FilterInput extends SpatialInput {
  and?: FilterInput[] | null;
  or?: FilterInput[] | null;
  not?: FilterInput | null;
  property?: PropertyFilterInput | null;
  createdAt?: RangeInput | null;
  updatedAt?: RangeInput | null;
  acres?: Record<string, unknown> | null;
  externalId?: { source: string; id: string } | null;
}
interface RangeInput {
  from?: Date | null;
  to?: Date | null;
}
type Ops = Record<string, unknown>;
/** A condition on one property: its id and one operator group (`text`, `number`, …; see the registry). */
export interface PropertyFilterInput {
  id: string;
  [group: string]: unknown;
}

export interface QueryArgs {
  filter?: FilterInput | null;
  orderBy?: OrderInput[] | null;
  search?: string | null;
}

/** A compiled list query. `sig` is empty for the plain list (no filter, order or search). */
export interface RecordQuery {
  sig: string;
  where?: RawBuilder<unknown>;
  keys: SortKey[];
}

export const PLAIN_QUERY: RecordQuery = { sig: '', keys: [] };

/** Deepest nesting of and/or/not, and most conditions, in one filter. */
export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_CONDITIONS = 100;
/** Longest search string, in characters (text operands may be as long as stored text). */
export const MAX_SEARCH_LENGTH = 200;

const and = (parts: RawBuilder<unknown>[]): RawBuilder<unknown> =>
  parts.length === 0 ? sql`true` : parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` and `)})`;
const or = (parts: RawBuilder<unknown>[]): RawBuilder<unknown> =>
  parts.length === 0 ? sql`false` : parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` or `)})`;

/**
 * The search text of a record: its text, url and email values, unescaped, joined by U+0001
 * (migrations/0005), the expression of the trigram index. Neither stored text nor a search may
 * hold a control character, so a match never spans two values or the JSON around them.
 */
export const SEARCH_TEXT = sql`record_search_text(c.properties)`;

interface Compiler {
  schema: PropertySchemaModel;
  viewerId: string;
  details: ErrorDetail[];
  people: { field: string; uid: string }[];
  conditions: number;
}

function compileProperty(cx: Compiler, f: PropertyFilterInput, path: string): RawBuilder<unknown> {
  const def = cx.schema.byId.get(f.id);
  const type = def && propertyType(def.type);
  if (!def || !type) {
    cx.details.push({
      field: f.id,
      path,
      reason: `unknown property "${f.id}"; the ${cx.schema.kind} property schema lists the ids`,
    });
    return sql`false`;
  }
  const given = FILTER_GROUPS.filter((g) => f[g] != null);
  const fits = type.filter.group;
  const allowed = { operatorGroup: fits, allowedOperators: type.filter.operators };
  if (given.length !== 1 || given[0] !== fits) {
    cx.details.push({
      field: def.id,
      path,
      reason:
        given.length === 0
          ? `give one operator group: "${fits}" for a ${def.type} property`
          : given.length > 1
            ? `give exactly one operator group ("${fits}" for a ${def.type} property), not ${given.join(', ')}`
            : `operator group "${given[0]}" does not fit a ${def.type} property; use "${fits}"`,
      ...allowed,
    });
    return sql`false`;
  }
  const ops = Object.entries(f[fits] as Ops).filter(([, v]) => v != null);
  if (!ops.length) {
    cx.details.push({ field: def.id, path, reason: `give at least one operator in "${fits}"`, ...allowed });
    return sql`false`;
  }
  const group = f[fits] as Ops;
  return and(ops.map(([op, v]) => compileOperator(cx, def, type, group, op, v, `${path}.${fits}.${op}`)));
}

function compileOperator(
  cx: Compiler,
  def: PropertyDefModel,
  type: PropertyType,
  group: Ops,
  op: string,
  v: unknown,
  path: string,
): RawBuilder<unknown> {
  const id = def.id;
  const p = sql`c.properties -> ${id}::text`;
  if (op === 'isEmpty') {
    const empty = type.filter.empty(p);
    return v ? empty : sql`not ${empty}`;
  }
  const problem = (reason: string) => {
    cx.details.push({ field: id, path, reason });
    return sql`false`;
  };
  if (typeof v === 'string' && v.length > MAX_TEXT_LENGTH && [...v].length > MAX_TEXT_LENGTH)
    return problem(`at most ${MAX_TEXT_LENGTH} characters, like stored text`);
  const operand: FilterContext = {
    def,
    p,
    contains: (inner) => sql`c.properties @> ${JSON.stringify({ [id]: inner })}::jsonb`,
    viewerId: cx.viewerId,
    group,
    problem,
    person: (uid) => cx.people.push({ field: id, uid }),
  };
  if (def.type === 'number' && op in NUMBER_RANGE) return numberRange(p, op as keyof typeof NUMBER_RANGE, v);
  return type.filter.compile(op, v, operand);
}

const NUMBER_RANGE = { lt: sql`<`, lte: sql`<=`, gt: sql`>`, gte: sql`>=`, between: sql`` };

/**
 * A number range over the sort key of the property (order.ts): `coalesce(n, 'true')` is the number
 * itself for every stored number and sorts after all of them for a missing one, so the operator-made
 * indexes (`propertyIndexSql`) serve the range: a narrow one reads its matches from `_hi`, a broad
 * one is tested in `_page` and `_ids` rather than in each row. It answers exactly as `n <op> x` does (number.ts):
 * a lower bound adds `< 'true'`, which keeps out what has no number.
 */
function numberRange(p: RawBuilder<unknown>, op: keyof typeof NUMBER_RANGE, v: unknown): RawBuilder<unknown> {
  const n = sql`coalesce(${p} -> 'number', 'true'::jsonb)`;
  const x = (y: unknown) => sql`${JSON.stringify(y)}::jsonb`;
  if (op === 'between') {
    const r = v as { min: number; max: number };
    return sql`(${n} >= ${x(r.min)} and ${n} <= ${x(r.max)})`;
  }
  if (op === 'lt' || op === 'lte') return sql`${n} ${NUMBER_RANGE[op]} ${x(v)}`;
  return sql`(${n} ${NUMBER_RANGE[op]} ${x(v)} and ${n} < 'true'::jsonb)`;
}

function compileFilter(cx: Compiler, f: FilterInput, path: string, depth: number): RawBuilder<unknown> {
  if (depth > MAX_FILTER_DEPTH) {
    cx.details.push({ field: 'filter', path, reason: `filters nest at most ${MAX_FILTER_DEPTH} deep` });
    return sql`false`;
  }
  if (++cx.conditions > MAX_FILTER_CONDITIONS) {
    if (cx.conditions === MAX_FILTER_CONDITIONS + 1)
      cx.details.push({ field: 'filter', path, reason: `at most ${MAX_FILTER_CONDITIONS} conditions` });
    return sql`false`;
  }
  const parts: RawBuilder<unknown>[] = [];
  if (f.and) parts.push(and(f.and.map((x, i) => compileFilter(cx, x, `${path}.and[${i}]`, depth + 1))));
  if (f.or) parts.push(or(f.or.map((x, i) => compileFilter(cx, x, `${path}.or[${i}]`, depth + 1))));
  if (f.not) parts.push(sql`not coalesce(${compileFilter(cx, f.not, `${path}.not`, depth + 1)}, false)`);
  if (f.property) parts.push(compileProperty(cx, f.property, `${path}.property`));
  for (const [field, col] of [
    ['createdAt', sql`c.created_at`],
    ['updatedAt', sql`c.updated_at`],
  ] as const) {
    const r = f[field];
    if (!r) continue;
    if (r.from) parts.push(sql`${col} >= ${r.from.toISOString()}::timestamptz`);
    if (r.to) parts.push(sql`${col} < ${r.to.toISOString()}::timestamptz`);
  }
  const problem = (field: string, reason: string) => {
    cx.details.push({ field: 'filter', path: field, reason });
    return sql`false`;
  };
  parts.push(...compileSpatial(cx.schema.kind, f, path, problem));
  if (f.acres) parts.push(compileAcres(cx.schema.kind, f.acres, `${path}.acres`, problem));
  // The sync module's external ids (migrations/0010): the record carries this (source, id).
  if (f.externalId)
    parts.push(sql`exists (select 1 from external_ids e where e.org_id = c.org_id
      and e.source = ${f.externalId.source} and e.external_id = ${f.externalId.id}
      and ${sql.ref(`e.${cx.schema.kind}_id`)} = c.id)`);
  // Left bare, so the planner sees indexable operators (`@>`, ILIKE on the search text); `not`
  // makes its operand null-safe, so `not` of a condition on a missing value is true.
  return and(parts);
}

/**
 * Checks and compiles the filter, order and search of a list request, for the schema of the child
 * record kind in `orgId`. Every problem is reported at once, as one VALIDATION_FAILED.
 */
export async function compileListQuery(
  ctx: Context,
  kind: RecordKind,
  orgId: string,
  args: QueryArgs,
): Promise<RecordQuery> {
  // The plain list needs no schema: a nested query asks for a page per parent.
  if (isPlain(args)) return PLAIN_QUERY;
  const schema = await ctx.loaders.schema.load({ orgId, kind });
  const { query, details, people } = compileRecordQuery(schema, ctx.viewer.userId, args);
  const ok = await Promise.all(people.map((p) => ctx.loaders.isOrgUser.load({ orgId, id: p.uid })));
  people.forEach((p, i) => {
    if (!ok[i])
      details.push({
        field: p.field,
        reason: `user "${p.uid}" is not a member or guest of this organization; GET /users/v1 lists them`,
      });
  });
  if (details.length)
    throw new AppError(
      'VALIDATION_FAILED',
      `${details.length} problem${details.length === 1 ? '' : 's'} in filter, orderBy or search; see details.`,
      details,
    );
  return query;
}

const searchOf = (args: QueryArgs) => (typeof args.search === 'string' ? args.search.trim() : '');
const isPlain = (args: QueryArgs) => !args.filter && !args.orderBy?.length && !searchOf(args);

/**
 * The pure part of compileListQuery: the SQL of a filter, order and search against one schema,
 * the problems found, and the user ids the filter names (which only the organization can check).
 */
export function compileRecordQuery(
  schema: PropertySchemaModel,
  viewerId: string,
  args: QueryArgs,
): { query: RecordQuery; details: ErrorDetail[]; people: { field: string; uid: string }[] } {
  const search = searchOf(args);
  if (isPlain(args)) return { query: PLAIN_QUERY, details: [], people: [] };
  const cx: Compiler = { schema, viewerId, details: [], people: [], conditions: 0 };
  const parts: RawBuilder<unknown>[] = [];
  if (args.filter) parts.push(compileFilter(cx, args.filter, 'filter', 0));
  if (search) {
    if ([...search].length > MAX_SEARCH_LENGTH)
      cx.details.push({ field: 'search', reason: `at most ${MAX_SEARCH_LENGTH} characters` });
    if (CONTROL.test(search))
      cx.details.push({
        field: 'search',
        reason: 'control characters other than tab, CR and LF are refused, as in stored text',
      });
    // The one condition alone: ANALYZE keeps statistics of the trigram index's expression, so the
    // planner knows how many rows a search matches. A cheaper screen ANDed before it (the JSON text
    // of the values) had none, and its default selectivity made a search matching every row look
    // rare: the page then sorted every match instead of walking the page index for its first rows.
    parts.push(sql`${SEARCH_TEXT} ilike ${`%${likeEscape(search)}%`}`);
  }
  const keys = compileOrder(schema, args.orderBy ?? [], cx.details);
  // The signature names this query in cursors (and batches): the viewer is part of it when `me` is.
  const sig = createHash('sha256')
    .update(JSON.stringify([args.filter ?? null, args.orderBy ?? null, search, viewerId]))
    .digest('base64url')
    .slice(0, 12);
  return {
    query: { sig, where: parts.length ? and(parts) : undefined, keys },
    details: cx.details,
    people: cx.people,
  };
}
