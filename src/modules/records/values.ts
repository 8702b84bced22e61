import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import { type UserModel, visibleOrgUsers } from '../org/index.js';
import {
  namesUsers,
  propertyType,
  type StoredValue,
  shapeOf,
  VALUE_SHAPES,
  type ValueShape,
} from '../properties/index.js';
import type { PropertyDefModel, PropertySchemaModel } from '../schema/index.js';
import type { RecordModel, ValueModel } from './types.js';
import { fitsType } from './validate.js';

/** How a record's values read: REST's `properties` map, and GraphQL's typed values. */

/**
 * A typed value as GraphQL reads it. Its fields (`property`, and each shape's `graphqlFields` from
 * the registry) are plain data set at construction, not resolvers: graphql-jit reads a field
 * without a resolver inline, where a resolver costs a call through its resolver machinery for each
 * field of each of the thousands of values a nested page holds. Not getters either: the compiled
 * query reads a list or object field several times (null, error and iterable checks), and a getter
 * would build it each time. People's `users` come from the request's user list, passed in.
 */
class TypedValue implements ValueModel {
  // Assigned, not class fields: define semantics made construction several times slower.
  declare readonly orgId: string;
  declare readonly propertyId: string;
  declare readonly def: PropertyDefModel;
  declare readonly value: StoredValue;
  declare readonly property: PropertyDefModel;

  constructor(orgId: string, def: PropertyDefModel, value: StoredValue, fields: ShapeFields, users?: Users) {
    const self = this as unknown as Record<string, unknown>;
    self.orgId = orgId;
    self.propertyId = def.id;
    self.def = def;
    self.value = value;
    self.property = def;
    // Same fields in the same order for every value of a shape: one object layout per shape.
    for (const [field, read] of fields.plain) self[field] = read(this);
    for (const [field, read] of fields.users) {
      if (!users) throw new Error(`a ${def.type} value is built without the organization's users`);
      self[field] = read(this, users);
    }
  }
}

type Users = ReadonlyMap<string, UserModel>;
interface ShapeFields {
  plain: [string, ValueShape['graphqlFields'][string]][];
  users: [string, NonNullable<ValueShape['graphqlUserFields']>[string]][];
}

const SHAPE_FIELDS = new Map<ValueShape, ShapeFields>(
  VALUE_SHAPES.map((shape) => [
    shape,
    { plain: Object.entries(shape.graphqlFields), users: Object.entries(shape.graphqlUserFields ?? {}) },
  ]),
);

/**
 * The shape a stored value reads as, when its property's type (still) fits it; else undefined and
 * the value is not shown as a typed value. The resolvers and the planned reads (src/graphql/plan)
 * both decide by this.
 */
export function readableShape(def: PropertyDefModel, value: StoredValue): ValueShape | undefined {
  const shape = propertyType(def.type)?.shape;
  return shape && fitsType(def, value) ? shape : undefined;
}

/**
 * A stored value as a typed value, when its property's type fits it; else null. `users`: the
 * organization's users the caller may see (userMap), needed when the record names users
 * (registry namesUsers: people values).
 */
export function typedValue(
  orgId: string,
  def: PropertyDefModel,
  value: StoredValue,
  users?: Users,
): ValueModel | null {
  const shape = readableShape(def, value);
  if (!shape) return null;
  return new TypedValue(orgId, def, value, SHAPE_FIELDS.get(shape)!, users);
}

/** typedValue, with the organization's users loaded first when the value names users. */
export async function typedValueOf(
  ctx: Context,
  orgId: string,
  def: PropertyDefModel,
  value: StoredValue,
): Promise<ValueModel | null> {
  const users = namesUsers({ [def.id]: value }) ? await userMap(ctx, orgId) : undefined;
  return typedValue(orgId, def, value, users);
}

/**
 * What reading records of one kind needs: the kind's schema and, for records that name users, the
 * organization's users the caller may see.
 */
export interface RecordReads {
  schema: PropertySchemaModel;
  users: Users | undefined;
}

/**
 * The schema of `kind` in `orgId` and, when `withUsers`, the organization's users: each loaded once
 * per request, then handed to the synchronous readers (valuesIn, restPropertiesIn) for every record
 * of a page, so thousands of records cost one wait, not one each. The request keeps the answer
 * (loadedReads).
 */
export async function recordReads(
  ctx: Context,
  orgId: string,
  kind: RecordKind,
  withUsers: boolean,
): Promise<RecordReads> {
  const [schema, users] = await Promise.all([
    schemaOf(ctx, orgId, kind),
    withUsers ? userMap(ctx, orgId) : undefined,
  ]);
  const reads = { schema, users };
  const { loaded } = orgMemo(ctx, orgId);
  if (!loaded[kind]?.users) loaded[kind] = reads;
  return reads;
}

/**
 * What reading `r` needs, when this request has already loaded it with recordReads (a page does,
 * for its records, before it returns); else undefined. For callers that answer many records one by
 * one and can use the synchronous readers when they may (records/resolvers.ts).
 */
export function loadedReads(ctx: Context, r: RecordModel): RecordReads | undefined {
  const reads = (ctx.memo?.get(r.orgId) as OrgMemo | undefined)?.loaded[r.kind];
  return reads && (reads.users || !namesUsers(r.properties)) ? reads : undefined;
}

/** The reads one record needs: its users only when it names some. */
const readsOf = (ctx: Context, r: RecordModel) => recordReads(ctx, r.orgId, r.kind, namesUsers(r.properties));

/**
 * Typed values in schema order. Values whose property left the schema, or changed type since they
 * were written, are skipped.
 */
export async function recordValues(ctx: Context, r: RecordModel): Promise<ValueModel[]> {
  const { schema, users } = await readsOf(ctx, r);
  return valuesIn(r, schema, users);
}

/** recordValues with the schema and users already in hand (recordReads). */
export function valuesIn(
  r: RecordModel,
  schema: PropertySchemaModel,
  users: Users | undefined,
): ValueModel[] {
  const out: ValueModel[] = [];
  for (const def of schema.properties) {
    const v = r.properties[def.id];
    const typed = v === undefined ? null : typedValue(r.orgId, def, v, users);
    if (typed) out.push(typed);
  }
  return out;
}

/**
 * The users a people value names, among the users of the record's organization the caller may
 * see (org/service.ts visibleOrgUsers): someone who left the org, or a guest out of the caller's
 * sight, is not shown, as the caller's GET /users/v1 does not list them.
 * One statement per organization, whatever the number of values.
 */
export async function peopleOf(ctx: Context, orgId: string, uids: string[]) {
  const users = await userMap(ctx, orgId);
  return uids.map((uid) => {
    const u = users.get(uid);
    return u && { id: u.id, email: u.email, name: u.name };
  });
}

export async function recordValue(
  ctx: Context,
  r: RecordModel,
  propertyId: string,
): Promise<ValueModel | null> {
  const schema = await schemaOf(ctx, r.orgId, r.kind);
  const def = schema.byId.get(propertyId);
  const value = r.properties[propertyId];
  return def && value !== undefined ? typedValueOf(ctx, r.orgId, def, value) : null;
}

/**
 * The organization's users the caller may see, by id: one load per organization and request,
 * whatever the number of records and values that name users.
 */
export function userMap(ctx: Context, orgId: string): Promise<Users> {
  const memo = orgMemo(ctx, orgId);
  memo.users ??= visibleOrgUsers(ctx, orgId).then((us) => new Map(us.map((u) => [u.id, u])));
  return memo.users;
}

/** Per-request memo of what many resolvers share, by organization (Context.memo). */
interface OrgMemo {
  users?: Promise<Users>;
  /** recordReads' answers by record kind; with the users once any answer has them. */
  loaded: Partial<Record<RecordKind, RecordReads>>;
}

function orgMemo(ctx: Context, orgId: string): OrgMemo {
  ctx.memo ??= new Map();
  let memo = ctx.memo.get(orgId) as OrgMemo | undefined;
  if (!memo) {
    memo = { loaded: {} };
    ctx.memo.set(orgId, memo);
  }
  return memo;
}

/** The property schema of a record kind; the schema loader keeps it for the request. */
export function schemaOf(ctx: Context, orgId: string, kind: RecordKind): Promise<PropertySchemaModel> {
  return ctx.loaders.schema.load({ orgId, kind });
}

/** The REST v1 `properties` map: stored values, with `labels` on select/people and the project location. */
export async function restProperties(ctx: Context, r: RecordModel): Promise<Record<string, unknown>> {
  const { schema, users } = await readsOf(ctx, r);
  return restPropertiesIn(r, schema, users);
}

/**
 * restProperties with the schema and users already in hand: what a planned page does for each of
 * its records, having read them once for the page. `users` may be absent when the record names none.
 */
export function restPropertiesIn(
  r: RecordModel,
  schema: PropertySchemaModel,
  users: Users | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const stored = r.properties;
  // for-in, not Object.entries or Object.keys: no array per record or per value. Labels go by the
  // value's own member, so a value whose property left the schema still reads the same.
  for (const id in stored) {
    const v = stored[id];
    const withLabels = shapeOf(v)?.withLabels;
    out[id] = withLabels ? withLabels(v, schema.byId.get(id), users) : v;
  }
  if (r.kind === 'project' && r.location) out.location = { location: r.location };
  return out;
}
