import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import { forbidden, notFound } from '../../errors.js';
import { actorOf, ringChanges } from '../changes/index.js';
import * as repo from './repository.js';
import { RECORD_TYPENAME, type RecordModel } from './types.js';
import { readWrite, UserErrors, userErrorOf, type ValueEntry } from './user-errors.js';
import { checkProperties } from './validate.js';

/**
 * Records: who can read and write them, and every write (create, update, delete), each in its
 * transaction. Lists are pages.ts; how values read is values.ts.
 */

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
    throw notFound(RECORD_TYPENAME[kind]);
  }
  return r;
}

export function assertCanWrite(ctx: Context, orgId: string, action: string): void {
  if (!ctx.viewer.canWriteIn(orgId)) throw forbidden(action);
}

/** People values that name no member or guest of the org, as problems of the write. */
async function foreignPeople(ctx: Context, orgId: string, people: { propertyId: string; uid: string }[]) {
  const ok = await Promise.all(people.map((p) => ctx.loaders.isOrgUser.load({ orgId, id: p.uid })));
  return people
    .filter((_, i) => !ok[i])
    .map((b) => ({
      code: 'INVALID_VALUE' as const,
      field: b.propertyId,
      reason: `user "${b.uid}" is not a member or guest of this organization; GET /users/v1 lists them`,
    }));
}

/** What a write says about its properties: a JSON map (REST, `properties`) or typed `values`. */
export interface WriteInput {
  properties?: unknown;
  values?: ValueEntry[] | null;
}

/**
 * Validates a write's properties: the schema checks and the people lookup, reported together, in
 * the order the properties were sent, as one UserErrors (a VALIDATION_FAILED listing them all).
 */
async function changesFor(
  ctx: Context,
  kind: RecordKind,
  orgId: string,
  input: WriteInput,
  mode: 'create' | 'update',
) {
  const schema = await ctx.loaders.schema.load({ orgId, kind });
  const source = readWrite(input, schema);
  const { changes, details, codes } = checkProperties(kind, schema, source.properties, mode);
  const people = await foreignPeople(ctx, orgId, changes.usersToCheck);
  const problems = [
    ...source.problems,
    ...details.map((d, i) => ({ code: codes[i], field: d.field, reason: d.reason })),
    ...people,
  ];
  if (problems.length) {
    const order = source.indexOf ? [...source.indexOf.keys()] : Object.keys(source.properties as object);
    const rank = (f: string | undefined) => {
      const i = f === undefined ? -1 : order.indexOf(f);
      return i < 0 ? order.length : i;
    };
    problems.sort((a, b) => rank(a.field) - rank(b.field));
    throw new UserErrors(
      problems.map((p) => userErrorOf(source, p)),
      problems.map((p) => ({ field: p.field, reason: p.reason })),
    );
  }
  return changes;
}

export async function createRecord(
  ctx: Context,
  kind: 'project' | 'contact',
  input: { orgId: string; portfolioId: string } & WriteInput,
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
  const { set } = await changesFor(ctx, kind, input.orgId, input, 'create');
  const created = await repo.insertRecord(ctx.db, kind, input.orgId, input.portfolioId, set, actorOf(ctx));
  // The portfolio was deleted meanwhile (the insert's foreign key).
  if (!created) throw notFound('Portfolio');
  ringChanges(ctx.db, input.orgId);
  return created;
}

/** An update's result: the record as stored, or (conflict) as it is now, unchanged by this write. */
export interface UpdateResult {
  record: RecordModel;
  conflict: boolean;
}

export async function updateRecord(
  ctx: Context,
  kind: RecordKind,
  input: { id: string; expectedUpdatedAt?: Date | null } & WriteInput & Scope,
): Promise<UpdateResult> {
  const current = await requireRecord(ctx, kind, input.id, input);
  assertCanWrite(ctx, current.orgId, `update ${kind}s`);
  const { set, clear } = await changesFor(ctx, kind, current.orgId, input, 'update');
  const expected = input.expectedUpdatedAt ?? undefined;
  const out = await repo.updateRecord(ctx.db, kind, current, set, clear, actorOf(ctx), expected);
  // Deleted between the read and the write: it no longer exists.
  if ('missing' in out) throw notFound(RECORD_TYPENAME[kind]);
  ctx.loaders.record[kind].clear(current.id);
  if ('record' in out) ringChanges(ctx.db, current.orgId);
  if ('conflict' in out) {
    const now = await requireRecord(ctx, kind, current.id);
    return { record: now, conflict: true };
  }
  ctx.loaders.record[kind].prime(out.record.id, out.record);
  return { record: out.record, conflict: false };
}

export async function deleteRecord(
  ctx: Context,
  kind: 'project' | 'contact',
  input: { id: string } & Scope,
): Promise<string> {
  const current = await requireRecord(ctx, kind, input.id, input);
  assertCanWrite(ctx, current.orgId, `delete ${kind}s`);
  if (!(await repo.deleteRecord(ctx.db, kind, current, actorOf(ctx)))) throw notFound(RECORD_TYPENAME[kind]);
  ringChanges(ctx.db, current.orgId);
  ctx.loaders.record[kind].clear(current.id);
  return current.id;
}
