import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import { visibleOrgUsers } from '../org/service.js';
import type { UserModel } from '../org/types.js';
import { namesUsers, type StoredValue, shapeOf } from '../properties/registry.js';
import type { PropertyDefModel, PropertySchemaModel } from '../schema/types.js';
import type { RecordModel, ValueModel } from './types.js';
import { fitsType } from './validate.js';

/** How a record's values read: REST's `properties` map, and GraphQL's typed values. */

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
 * The users a people value names, among the users of the record's organization the caller may
 * see (org/service.ts visibleOrgUsers): someone who left the org, or a guest out of the caller's
 * sight, is not shown, as the caller's GET /users/v1 does not list them.
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

export const userMap = (ctx: Context, orgId: string) =>
  memoized(
    ctx,
    `users:${orgId}`,
    async () => new Map((await visibleOrgUsers(ctx, orgId)).map((u) => [u.id, u])),
  );

export const schemaOf = (ctx: Context, orgId: string, kind: RecordKind) =>
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
