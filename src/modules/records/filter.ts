import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import type { PropertyDefModel, PropertySchemaModel } from '../schema/types.js';
import { compileOrder, type OrderInput, type SortKey } from './order.js';
import { MAX_TEXT_LENGTH } from './validate.js';

/**
 * GraphQL list filters (`filter`, `search`, and with order.ts `orderBy`) checked against the
 * organization's property schema and compiled to SQL fragments over the child record alias `c`.
 * Every value travels as a bind parameter; property ids too (they are checked to exist first).
 *
 * Stored values are `{text}`, `{number}`, `{date:{start}}`, `{select:[ids]}`, `{people:[uid]}`, so:
 * - equality, select, multi_select and people tests compile to jsonb containment (`properties @> …`),
 *   which the GIN index `<table>_properties_gin` (jsonb_path_ops) serves;
 * - number ranges compare jsonb numbers (`properties->id->'number' > '42'::jsonb`): no cast, so a
 *   stray value can never make a query fail;
 * - date ranges compare the `YYYY-MM-DD` start as text in the C collation;
 * - text contains/startsWith are ILIKE with the pattern characters escaped.
 */

export interface FilterInput {
  and?: FilterInput[] | null;
  or?: FilterInput[] | null;
  not?: FilterInput | null;
  property?: PropertyFilterInput | null;
  createdAt?: RangeInput | null;
  updatedAt?: RangeInput | null;
}
interface RangeInput {
  from?: Date | null;
  to?: Date | null;
}
type Ops = Record<string, unknown>;
export interface PropertyFilterInput {
  id: string;
  text?: Ops | null;
  number?: Ops | null;
  date?: Ops | null;
  select?: Ops | null;
  multiSelect?: Ops | null;
  people?: Ops | null;
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
/** Most ids in one in/notIn/containsAny/containsAll list. */
export const MAX_FILTER_LIST = 200;
/** Longest search string, in characters (text operands may be as long as stored text). */
export const MAX_SEARCH_LENGTH = 200;

/** The operator group that fits each property type, and its operators. */
export const GROUP_FOR_TYPE = {
  text: 'text',
  url: 'text',
  email: 'text',
  number: 'number',
  date: 'date',
  select: 'select',
  multi_select: 'multiSelect',
  people: 'people',
} as const;
type Group = (typeof GROUP_FOR_TYPE)[keyof typeof GROUP_FOR_TYPE];
export const OPERATORS: Record<Group, string[]> = {
  text: ['eq', 'neq', 'contains', 'startsWith', 'isEmpty'],
  number: ['eq', 'lt', 'lte', 'gt', 'gte', 'between', 'isEmpty'],
  date: ['eq', 'before', 'after', 'between', 'isEmpty'],
  select: ['in', 'notIn', 'isEmpty'],
  multiSelect: ['containsAny', 'containsAll', 'isEmpty'],
  people: ['in', 'me', 'isEmpty'],
};
const GROUPS = Object.keys(OPERATORS) as Group[];

/** `%`, `_` and the escape character itself, escaped for LIKE/ILIKE (default escape `\`). */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

const and = (parts: RawBuilder<unknown>[]): RawBuilder<unknown> =>
  parts.length === 0 ? sql`true` : parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` and `)})`;
const or = (parts: RawBuilder<unknown>[]): RawBuilder<unknown> =>
  parts.length === 0 ? sql`false` : parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` or `)})`;
const contains = (doc: unknown) => sql`c.properties @> ${JSON.stringify(doc)}::jsonb`;
const prop = (id: string) => sql`c.properties -> ${id}::text`;

/**
 * The search text of a record: its text, url and email values as one string (a JSON array), the
 * expression of the trigram index (migrations/0002). The jsonpath function's defaults are written
 * out: an index on the two-argument call is not matched by the planner.
 */
export const SEARCH_TEXT = sql`(jsonb_path_query_array(c.properties, '$.*.text', '{}', false))::text`;

interface Compiler {
  schema: PropertySchemaModel;
  viewerId: string;
  details: ErrorDetail[];
  people: { field: string; uid: string }[];
  conditions: number;
}

function compileProperty(cx: Compiler, f: PropertyFilterInput, path: string): RawBuilder<unknown> {
  const def = cx.schema.byId.get(f.id);
  if (!def) {
    cx.details.push({
      field: f.id,
      path,
      reason: `unknown property "${f.id}"; the ${cx.schema.kind} property schema lists the ids`,
    });
    return sql`false`;
  }
  const given = GROUPS.filter((g) => f[g] != null);
  const fits = GROUP_FOR_TYPE[def.type];
  const allowed = { operatorGroup: fits, allowedOperators: OPERATORS[fits] };
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
  return and(ops.map(([op, v]) => compileOperator(cx, def, op, v, `${path}.${fits}.${op}`)));
}

function checkOptions(cx: Compiler, def: PropertyDefModel, ids: unknown, path: string): string[] {
  const list = ids as string[];
  if (list.length > MAX_FILTER_LIST) {
    cx.details.push({ field: def.id, path, reason: `at most ${MAX_FILTER_LIST} ids` });
    return [];
  }
  for (const id of list)
    if (!def.options.some((o) => o.id === id))
      cx.details.push({
        field: def.id,
        path,
        reason: `"${id}" is not an option of ${def.id}; the property schema lists them`,
      });
  return list;
}

function compileOperator(
  cx: Compiler,
  def: PropertyDefModel,
  op: string,
  v: unknown,
  path: string,
): RawBuilder<unknown> {
  const id = def.id;
  if (op === 'isEmpty') {
    const empty =
      def.type === 'text' || def.type === 'url' || def.type === 'email'
        ? sql`coalesce(${prop(id)} ->> 'text', '') = ''`
        : def.type === 'multi_select'
          ? sql`coalesce(jsonb_array_length(${prop(id)} -> 'select'), 0) = 0`
          : sql`${prop(id)} is null`;
    return v ? empty : sql`not ${empty}`;
  }
  if (typeof v === 'string' && v.length > MAX_TEXT_LENGTH && [...v].length > MAX_TEXT_LENGTH) {
    cx.details.push({ field: id, path, reason: `at most ${MAX_TEXT_LENGTH} characters, like stored text` });
    return sql`false`;
  }
  switch (GROUP_FOR_TYPE[def.type]) {
    case 'text': {
      const t = sql`(${prop(id)} ->> 'text')`;
      const s = v as string;
      if (op === 'eq') return contains({ [id]: { text: s } });
      if (op === 'neq') return sql`not coalesce(${t} = ${s}, false)`;
      if (op === 'contains') return sql`${t} ilike ${`%${likeEscape(s)}%`}`;
      return sql`${t} ilike ${`${likeEscape(s)}%`}`; // startsWith
    }
    case 'number': {
      const n = sql`(${prop(id)} -> 'number')`;
      const j = (x: unknown) => sql`${JSON.stringify(x)}::jsonb`;
      if (op === 'eq') return contains({ [id]: { number: v } });
      if (op === 'between') {
        const r = v as { min: number; max: number };
        return sql`(${n} >= ${j(r.min)} and ${n} <= ${j(r.max)})`;
      }
      const cmp = { lt: sql`<`, lte: sql`<=`, gt: sql`>`, gte: sql`>=` }[op as 'lt']!;
      return sql`${n} ${cmp} ${j(v)}`;
    }
    case 'date': {
      const d = sql`(${prop(id)} -> 'date' ->> 'start') collate "C"`;
      if (op === 'eq') return contains({ [id]: { date: { start: v } } });
      if (op === 'before') return sql`${d} < ${v as string}`;
      if (op === 'after') return sql`${d} > ${v as string}`;
      const r = v as { from: string; to: string };
      return sql`(${d} >= ${r.from} and ${d} <= ${r.to})`;
    }
    case 'select': {
      const ids = checkOptions(cx, def, v, path);
      const any = or(ids.map((o) => contains({ [id]: { select: [o] } })));
      return op === 'in' ? any : sql`not ${any}`;
    }
    case 'multiSelect': {
      const ids = checkOptions(cx, def, v, path);
      if (op === 'containsAll') return contains({ [id]: { select: ids } });
      return or(ids.map((o) => contains({ [id]: { select: [o] } })));
    }
    case 'people': {
      if (op === 'me') return v ? contains({ [id]: { people: [cx.viewerId] } }) : sql`true`;
      const uids = v as string[];
      if (uids.length > MAX_FILTER_LIST) {
        cx.details.push({ field: id, path, reason: `at most ${MAX_FILTER_LIST} ids` });
        return sql`false`;
      }
      for (const uid of uids) cx.people.push({ field: id, uid });
      return or(uids.map((u) => contains({ [id]: { people: [u] } })));
    }
  }
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
  // Left bare, so the planner sees indexable operators (`@>`, ILIKE on the search text); `not`
  // makes its operand null-safe, so `not` of a condition on a missing value is true.
  return and(parts);
}

/**
 * Checks and compiles the filter, order and search of a list request, for the schema of the child
 * record kind in `orgId`. Every problem is reported at once, as one VALIDATION_FAILED.
 */
export async function compileQuery(
  ctx: Context,
  kind: RecordKind,
  orgId: string,
  args: QueryArgs,
): Promise<RecordQuery> {
  const search = typeof args.search === 'string' ? args.search.trim() : '';
  if (!args.filter && !args.orderBy?.length && !search) return PLAIN_QUERY;
  const schema = await ctx.loaders.schema.load({ orgId, kind });
  const cx: Compiler = { schema, viewerId: ctx.viewer.userId, details: [], people: [], conditions: 0 };
  const parts: RawBuilder<unknown>[] = [];
  if (args.filter) parts.push(compileFilter(cx, args.filter, 'filter', 0));
  if (search) {
    if ([...search].length > MAX_SEARCH_LENGTH)
      cx.details.push({ field: 'search', reason: `at most ${MAX_SEARCH_LENGTH} characters` });
    parts.push(sql`${SEARCH_TEXT} ilike ${`%${likeEscape(search)}%`}`);
  }
  const keys = compileOrder(schema, args.orderBy ?? [], cx.details);
  const ok = await Promise.all(cx.people.map((p) => ctx.loaders.isOrgUser.load({ orgId, id: p.uid })));
  cx.people.forEach((p, i) => {
    if (!ok[i])
      cx.details.push({
        field: p.field,
        reason: `user "${p.uid}" is not a member or guest of this organization; GET /users/v1 lists them`,
      });
  });
  if (cx.details.length)
    throw new AppError(
      'VALIDATION_FAILED',
      `${cx.details.length} problem${cx.details.length === 1 ? '' : 's'} in filter, orderBy or search; see details.`,
      cx.details,
    );
  // The signature names this query in cursors (and batches): the viewer is part of it when `me` is.
  const sig = createHash('sha256')
    .update(JSON.stringify([args.filter ?? null, args.orderBy ?? null, search, ctx.viewer.userId]))
    .digest('base64url')
    .slice(0, 12);
  return { sig, where: parts.length ? and(parts) : undefined, keys };
}
