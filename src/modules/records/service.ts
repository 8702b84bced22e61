import type { Context } from '../../context.js';
import { inTransaction } from '../../db/transaction.js';
import type { RecordKind } from '../../db/types.js';
import { AppError, forbidden, notFound } from '../../errors.js';
import { type ConnectionArgs, pageWindow } from '../../pagination/connection.js';
import type { UserModel } from '../org/types.js';
import {
  namesUsers,
  PROPERTY_TYPES,
  propertyType,
  type StoredValue,
  shapeOf,
} from '../properties/registry.js';
import type { PropertyDefModel, PropertySchemaModel } from '../schema/types.js';
import { compileListQuery, type QueryArgs, type RecordQuery } from './filter.js';
import { LISTS, type ListName } from './lists.js';
import * as repo from './repository.js';
import type { ConnectionModel, FacetModel, RecordModel, ValueModel } from './types.js';
import { checkProperties, fitsType, validationFailed } from './validate.js';

/** "select, multi_select or people": the types with facets, for messages. */
const FACETED = PROPERTY_TYPES.filter((t) => t.facet)
  .map((t) => t.name)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

const LABEL = { project: 'Project', parcel: 'Parcel', contact: 'Contact' } as const;

/** A record the caller can read, or undefined (absent and out-of-reach look the same). */
export async function findRecord(
  ctx: Context,
  kind: RecordKind,
  id: string,
): Promise<RecordModel | undefined> {
  if (typeof id !== 'string' || !id) return undefined;
  const r = await ctx.loaders.record[kind].load(id);
  return r && ctx.viewer.canReadPortfolio(r.orgId, r.portfolioId) ? r : undefined;
}

export interface Scope {
  orgId?: string | null;
  portfolioId?: string | null;
}

/** Like findRecord, but 404s, also when the record is not in the organization/portfolio the caller named. */
export async function requireRecord(
  ctx: Context,
  kind: RecordKind,
  id: string,
  scope: Scope = {},
): Promise<RecordModel> {
  const r = await findRecord(ctx, kind, id);
  if (
    !r ||
    (scope.orgId != null && r.orgId !== scope.orgId) ||
    (scope.portfolioId != null && r.portfolioId !== scope.portfolioId)
  ) {
    throw notFound(LABEL[kind]);
  }
  return r;
}

export function assertCanWrite(ctx: Context, orgId: string, action: string): void {
  if (!ctx.viewer.canWriteIn(orgId)) throw forbidden(action);
}

/** People values that name no member or guest of the org, as validation details. */
async function foreignPeople(ctx: Context, orgId: string, people: { propertyId: string; uid: string }[]) {
  const ok = await Promise.all(people.map((p) => ctx.loaders.isOrgUser.load({ orgId, id: p.uid })));
  return people
    .filter((_, i) => !ok[i])
    .map((b) => ({
      field: b.propertyId,
      reason: `user "${b.uid}" is not a member or guest of this organization; GET /users/v1 lists them`,
    }));
}

/**
 * Validates a write's properties: the schema checks and the people lookup, reported together in
 * one VALIDATION_FAILED, in the order the properties were sent.
 */
async function changesFor(
  ctx: Context,
  kind: RecordKind,
  orgId: string,
  properties: unknown,
  mode: 'create' | 'update',
) {
  const schema = await ctx.loaders.schema.load({ orgId, kind });
  const { changes, details } = checkProperties(kind, schema, properties, mode);
  const people = await foreignPeople(ctx, orgId, changes.usersToCheck);
  if (details.length || people.length) {
    const order = Object.keys(properties as object);
    const rank = (f: string | undefined) => {
      const i = f === undefined ? -1 : order.indexOf(f);
      return i < 0 ? order.length : i;
    };
    throw validationFailed([...details, ...people].sort((a, b) => rank(a.field) - rank(b.field)));
  }
  return changes;
}

export async function createRecord(
  ctx: Context,
  kind: 'project' | 'contact',
  input: { orgId: string; portfolioId: string; properties: unknown },
): Promise<RecordModel> {
  if (!ctx.viewer.canReadPortfolio(input.orgId, input.portfolioId)) throw notFound('Portfolio');
  // A read-only caller hears 403 only about a portfolio that exists in that org (writers learn it
  // from the insert's foreign key), so an unknown or foreign portfolio id is a 404 for everyone.
  if (
    !ctx.viewer.canWriteIn(input.orgId) &&
    !(await ctx.loaders.portfolio.load({ orgId: input.orgId, id: input.portfolioId }))
  )
    throw notFound('Portfolio');
  assertCanWrite(ctx, input.orgId, `create ${kind}s`);
  const { set } = await changesFor(ctx, kind, input.orgId, input.properties, 'create');
  const created = await inTransaction(ctx.db, (tx) =>
    repo.insertRecord(tx, kind, input.orgId, input.portfolioId, set),
  );
  // The portfolio was deleted meanwhile (the insert's foreign key).
  if (!created) throw notFound('Portfolio');
  return created;
}

export async function updateRecord(
  ctx: Context,
  kind: RecordKind,
  input: { id: string; properties: unknown } & Scope,
): Promise<RecordModel> {
  const current = await requireRecord(ctx, kind, input.id, input);
  assertCanWrite(ctx, current.orgId, `update ${kind}s`);
  const { set, clear } = await changesFor(ctx, kind, current.orgId, input.properties, 'update');
  const updated = await inTransaction(ctx.db, (tx) => repo.updateRecord(tx, kind, current, set, clear));
  // Deleted between the read and the write: it no longer exists.
  if (!updated) throw notFound(LABEL[kind]);
  ctx.loaders.record[kind].clear(updated.id).prime(updated.id, updated);
  return updated;
}

export async function deleteRecord(
  ctx: Context,
  kind: 'project' | 'contact',
  input: { id: string } & Scope,
): Promise<string> {
  const current = await requireRecord(ctx, kind, input.id, input);
  assertCanWrite(ctx, current.orgId, `delete ${kind}s`);
  if (!(await inTransaction(ctx.db, (tx) => repo.deleteRecord(tx, kind, current))))
    throw notFound(LABEL[kind]);
  ctx.loaders.record[kind].clear(current.id);
  return current.id;
}

/**
 * One page of a list (a portfolio's records or a link side) as a Relay connection. The parent has
 * already been access-checked by the caller.
 */
export async function listPage(
  ctx: Context,
  list: ListName,
  orgId: string,
  parentId: string,
  args: ConnectionArgs & QueryArgs,
): Promise<ConnectionModel> {
  const w = pageWindow(args);
  const query = await compileListQuery(ctx, LISTS[list].childKind, orgId, args);
  // A cursor names its list, parent and query: replayed under another filter, order or search it
  // is refused (INVALID_CURSOR) rather than silently skipping or repeating rows.
  const scope = query.sig ? `${list}:${parentId}:${query.sig}` : `${list}:${parentId}`;
  const arity = query.keys.length + 2;
  const bound = w.cursor ? ctx.cursors.decode(scope, w.cursor, arity) : undefined;
  if (
    bound &&
    (typeof bound[arity - 2] !== 'number' ||
      typeof bound[arity - 1] !== 'string' ||
      query.keys.some((k, i) => typeof bound[i] !== (k.type === 'ts' ? 'number' : 'string')))
  )
    throw new AppError('INVALID_CURSOR', 'The cursor is malformed.');
  const rows =
    w.size === 0
      ? []
      : await ctx.loaders.page.load({
          list,
          orgId,
          parentId,
          limit: w.size + 1,
          direction: w.direction,
          query,
          bound,
        });
  const more = rows.length > w.size;
  const pageRows = rows.slice(0, w.size);
  if (w.direction === 'backward') pageRows.reverse();
  const edges = pageRows.map((r) => {
    ctx.loaders.record[r.record.kind].prime(r.record.id, r.record);
    let cursor: string | undefined;
    return {
      node: r.record,
      linkedAt: r.linkedAt,
      // Signed only if asked for: REST pages read one cursor (nextKey), not one per item.
      get cursor() {
        cursor ??= ctx.cursors.encode(scope, [...r.keys, r.sortAt.getTime(), r.record.id]);
        return cursor;
      },
    };
  });
  // Resolve what every record's `properties` needs once, so that thousands of them resolve synchronously.
  if (pageRows.length) {
    const kind = LISTS[list].childKind;
    await schemaOf(ctx, orgId, kind);
    if (pageRows.some((r) => namesUsers(r.record.properties))) await userMap(ctx, orgId);
  }
  return {
    edges,
    pageInfo: {
      hasNextPage: w.direction === 'forward' ? more : !!w.cursor,
      hasPreviousPage: w.direction === 'backward' ? more : !!w.cursor,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: () => ctx.loaders.count(list, orgId, query).load({ orgId, parentId }),
    facets: (propertyId: string) => listFacets(ctx, list, orgId, parentId, query, propertyId),
  };
}

/**
 * Counts per option (every option of the property, in schema order, zeros included) or per user
 * (users with records, most first), then the records without a value when there are any.
 */
async function listFacets(
  ctx: Context,
  list: ListName,
  orgId: string,
  parentId: string,
  query: RecordQuery,
  propertyId: string,
): Promise<FacetModel[]> {
  const schema = await ctx.loaders.schema.load({ orgId, kind: LISTS[list].childKind });
  const def = schema.byId.get(propertyId);
  const member = def && propertyType(def.type)?.facet;
  if (!def || !member)
    throw new AppError('VALIDATION_FAILED', `facets need a ${FACETED} property.`, [
      {
        field: propertyId,
        reason: def
          ? `a ${def.type} property has no facets; use a ${FACETED} property`
          : `unknown property "${propertyId}"; the property schema lists the ids`,
      },
    ]);
  const counts = await ctx.loaders.facets(list, orgId, query, propertyId, member).load({ orgId, parentId });
  const none = counts.find((c) => c.value === null);
  const tail = none ? [{ value: null, label: null, count: none.count }] : [];
  if (member === 'select') {
    const by = new Map(counts.map((c) => [c.value, c.count]));
    return [...def.options.map((o) => ({ value: o.id, label: o.name, count: by.get(o.id) ?? 0 })), ...tail];
  }
  const users = counts
    .filter((c) => c.value !== null)
    .sort((a, b) => b.count - a.count || a.value!.localeCompare(b.value!));
  const named = await peopleOf(
    ctx,
    orgId,
    users.map((u) => u.value!),
  );
  return [
    ...users.map((u, i) => ({ value: u.value, label: named[i]?.name ?? null, count: u.count })),
    ...tail,
  ];
}

/**
 * Typed values in schema order. Values whose property left the schema, or changed type since they
 * were written, are skipped.
 */
export function recordValues(ctx: Context, r: RecordModel): ValueModel[] | Promise<ValueModel[]> {
  const build = (schema: PropertySchemaModel) =>
    schema.properties
      .filter((def) => r.properties[def.id] !== undefined && fitsType(def, r.properties[def.id]))
      .map((def) => ({ orgId: r.orgId, propertyId: def.id, def, value: r.properties[def.id] }));
  const schema = schemaOf(ctx, r.orgId, r.kind);
  return schema instanceof Promise ? schema.then(build) : build(schema);
}

/**
 * The users a people value names, among the users of the record's organization (members and
 * guests): someone who left the org is no longer shown, as GET /users/v1 no longer lists them.
 * One statement per organization, whatever the number of values.
 */
export function peopleOf(ctx: Context, orgId: string, uids: string[]) {
  const pick = (users: ReadonlyMap<string, UserModel>) =>
    uids.map((uid) => {
      const u = users.get(uid);
      return u && { id: u.id, email: u.email, name: u.name };
    });
  const users = userMap(ctx, orgId);
  return users instanceof Promise ? users.then(pick) : pick(users);
}

export async function recordValue(
  ctx: Context,
  r: RecordModel,
  propertyId: string,
): Promise<ValueModel | null> {
  const schema = await schemaOf(ctx, r.orgId, r.kind);
  const def = schema.byId.get(propertyId);
  const value = r.properties[propertyId];
  return def && value !== undefined && fitsType(def, value)
    ? { orgId: r.orgId, propertyId, def, value }
    : null;
}

/**
 * A stored value as REST reads it: with `labels` for the shapes that have them (select, people),
 * by the value's own member, so a value whose property left the schema still reads the same.
 */
function labelled(
  def: PropertyDefModel | undefined,
  v: StoredValue,
  users: ReadonlyMap<string, { name: string }> | undefined,
): unknown {
  const labels = shapeOf(v)?.labels;
  return labels ? { ...v, labels: labels(v, def, users) } : v;
}

/**
 * Per-request memo of what a page's records all need (the schema, the org's users): loaded once,
 * then every record's `properties` resolves synchronously, which matters on 5000-item pages.
 */
function memoized<T>(ctx: Context, key: string, load: () => Promise<T>): T | Promise<T> {
  ctx.memo ??= new Map();
  const memo = ctx.memo;
  if (memo.has(key)) return memo.get(key) as T | Promise<T>;
  const p = load().then((v) => {
    memo.set(key, v);
    return v;
  });
  memo.set(key, p);
  return p;
}

const userMap = (ctx: Context, orgId: string) =>
  memoized(
    ctx,
    `users:${orgId}`,
    async () => new Map((await ctx.loaders.orgUsers.load(orgId)).map((u) => [u.id, u])),
  );

const schemaOf = (ctx: Context, orgId: string, kind: RecordKind) =>
  memoized(ctx, `schema:${orgId}:${kind}`, () => ctx.loaders.schema.load({ orgId, kind }));

/** The REST v1 `properties` map: stored values, with `labels` on select/people and the project location. */
export function restProperties(
  ctx: Context,
  r: RecordModel,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const schema = schemaOf(ctx, r.orgId, r.kind);
  const users = namesUsers(r.properties) ? userMap(ctx, r.orgId) : undefined;
  const build = (s: PropertySchemaModel, u: ReadonlyMap<string, { name: string }> | undefined) => {
    const out: Record<string, unknown> = {};
    for (const [id, v] of Object.entries(r.properties)) out[id] = labelled(s.byId.get(id), v, u);
    if (r.kind === 'project' && r.location) out.location = { location: r.location };
    return out;
  };
  if (!(schema instanceof Promise) && !(users instanceof Promise)) return build(schema, users);
  return Promise.all([schema, users]).then(([s, u]) => build(s, u));
}
