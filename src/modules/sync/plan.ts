import type { Kysely } from 'kysely';
import type { DB, RecordKind } from '../../db/types.js';
import { orgUsersByIds } from '../org/index.js';
import {
  checkProperties,
  geometryProblem,
  readWrite,
  type StoredValue,
  userErrorOf,
} from '../records/index.js';
import { type PropertySchemaModel, schemasByKeys } from '../schema/index.js';
import * as repo from './repository.js';
import type { BulkUserError, UpsertInput, UpsertItem } from './types.js';

/**
 * An upsert's plan: each item's target record (by external id or by id) and its checked values, or
 * its user errors: everything a write decides before it writes. Apart from upsert.ts, which writes
 * a plan in one transaction under the call's idempotency key: a plan writes nothing, so checkUpserts
 * runs it alone.
 */

const MAX_EXTERNAL_ID_LENGTH = 255;

/** What the core reads through the request's loaders when there is one. */
export interface SyncReads {
  schema?: (orgId: string, kind: RecordKind) => Promise<PropertySchemaModel>;
  /** The uids that are members or guests of the organization. */
  orgUsers?: (orgId: string, uids: string[]) => Promise<Set<string>>;
}

export const dbReads = (db: Kysely<DB>): Required<SyncReads> => ({
  schema: async (orgId, kind) => (await schemasByKeys(db, [{ orgId, kind }]))[0],
  orgUsers: async (orgId, uids) => new Set((await orgUsersByIds(db, orgId, uids)).map((u) => u.id)),
});

/** How a user error's message names its item: by index, and by external id when it has one. */
export const itemName = (index: number, externalId: string | null) =>
  externalId === null ? `Item ${index}` : `Item ${index} (external id "${externalId}")`;

/** An item's problem as a user error: the message names the item's index and external id. */
export function itemError(
  index: number,
  externalId: string | null,
  code: BulkUserError['code'],
  reason: string,
  where: string[] = [],
  propertyId: string | null = null,
): BulkUserError {
  return {
    code,
    message: `${itemName(index, externalId)}: ${reason}`,
    propertyId,
    path: ['input', 'items', String(index), ...where],
  };
}

/** One item on its way through a call. */
export interface Plan {
  index: number;
  item: UpsertItem;
  errors: BulkUserError[];
  /** The record it updates; none: it creates one. */
  id?: string;
  /** Its external id must be bound to `id` (a new record, or one named by id). */
  bind?: boolean;
  set?: Record<string, StoredValue>;
  clear?: string[];
}

/** Each item's target and checked values, or its problems: everything a write decides before it writes. */
export async function planUpsert(
  db: Kysely<DB>,
  orgId: string,
  input: UpsertInput,
  reads: Required<SyncReads>,
) {
  const { kind, portfolioId } = input;
  const source = input.source ?? null;
  const plans: Plan[] = input.items.map((item, index) => ({ index, item, errors: [] }));
  const ext = (p: Plan) => (source === null ? null : String(p.item.externalId));

  // Shape: external ids present and unique in the call, ids unique, geometry only on parcels and valid.
  const count = new Map<string, number>();
  const idCount = new Map<string, number>();
  for (const p of plans) {
    const e = ext(p);
    if (e !== null) count.set(e, (count.get(e) ?? 0) + 1);
    if (p.item.id) idCount.set(p.item.id, (idCount.get(p.item.id) ?? 0) + 1);
  }
  for (const p of plans) {
    const e = ext(p);
    const fail = (code: BulkUserError['code'], reason: string, where: string[] = []) =>
      p.errors.push(itemError(p.index, e, code, reason, where));
    if (e === null) {
      if (p.item.externalId != null || p.item.id != null)
        fail('INVALID_INPUT', 'externalId and id need the call to name a source', ['externalId']);
    } else if (typeof p.item.externalId !== 'string' || !e.trim() || e.length > MAX_EXTERNAL_ID_LENGTH)
      fail('INVALID_INPUT', `externalId must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters`, ['externalId']);
    else if (count.get(e)! > 1)
      fail('DUPLICATE', `external id "${e}" appears ${count.get(e)} times in this call; send each once`, [
        'externalId',
      ]);
    if (p.item.id && idCount.get(p.item.id)! > 1)
      fail('DUPLICATE', `id "${p.item.id}" appears more than once in this call`, ['id']);
    if (kind !== 'parcel' && p.item.geometry !== undefined)
      fail('INVALID_INPUT', `geometry is for parcels only; ${kind}s have none`, ['geometry']);
    if (kind === 'parcel' && p.item.geometry != null) {
      const problem = geometryProblem(p.item.geometry);
      if (problem) fail('INVALID_VALUE', `geometry ${problem}`, ['geometry']);
    }
  }

  // Where each external id points now, and the records named by id.
  const usable = plans.filter((p) => !p.errors.length);
  const targets = new Map(
    (source === null
      ? []
      : await repo.findByExternalIds(
          db,
          orgId,
          source,
          usable.map((p) => ext(p)!),
        )
    ).map((t) => [t.externalId, t]),
  );
  const named = new Map(
    (
      await repo.findByIds(
        db,
        orgId,
        kind,
        source,
        usable.flatMap((p) => (p.item.id ? [p.item.id] : [])),
      )
    ).map((r) => [r.id, r]),
  );
  for (const p of usable) {
    const e = ext(p);
    const fail = (code: BulkUserError['code'], reason: string, where: string[] = ['externalId']) =>
      p.errors.push(itemError(p.index, e, code, reason, where));
    if (e === null) continue;
    const t = targets.get(e);
    if (t) {
      if (t.kind !== kind)
        fail('EXTERNAL_ID_TAKEN', `external id "${e}" of ${source} belongs to a ${t.kind}`);
      else if (t.portfolioId !== portfolioId)
        fail(
          'EXTERNAL_ID_TAKEN',
          `external id "${e}" of ${source} belongs to a ${kind} of another portfolio`,
        );
      else if (p.item.id && p.item.id !== t.id)
        fail('EXTERNAL_ID_TAKEN', `external id "${e}" of ${source} belongs to ${t.id}, not ${p.item.id}`);
      else p.id = t.id;
    } else if (p.item.id) {
      const r = named.get(p.item.id);
      if (!r || r.portfolioId !== portfolioId)
        fail('NOT_FOUND', `no ${kind} with id "${p.item.id}" in this portfolio`, ['id']);
      else if (r.externalId !== null)
        fail(
          'EXTERNAL_ID_TAKEN',
          `${kind} ${r.id} already carries external id "${r.externalId}" of ${source} (one per source)`,
          ['id'],
        );
      else {
        p.id = r.id;
        p.bind = true;
      }
    } else p.bind = true;
  }

  // Values: the same checks as a single create (required properties) or update.
  const schema = await reads.schema(orgId, kind);
  const people: { plan: Plan; propertyId: string; uid: string; path: string[] }[] = [];
  for (const p of usable) {
    if (p.errors.length) continue;
    const src = readWrite(p.item, schema);
    const { changes, details, codes } = checkProperties(
      kind,
      schema,
      src.properties,
      p.id ? 'update' : 'create',
    );
    const problems = [
      ...src.problems,
      ...details.map((d, i) => ({ code: codes[i], field: d.field, reason: d.reason })),
    ];
    for (const pr of problems) {
      const u = userErrorOf(src, pr);
      p.errors.push(itemError(p.index, ext(p), u.code, u.message, u.path.slice(1), u.propertyId));
    }
    for (const c of changes.usersToCheck)
      people.push({
        plan: p,
        ...c,
        path: userErrorOf(src, { code: 'INVALID_VALUE', field: c.propertyId, reason: '' }).path,
      });
    p.set = changes.set;
    p.clear = changes.clear;
  }
  if (people.length) {
    const members = await reads.orgUsers(orgId, [...new Set(people.map((x) => x.uid))]);
    for (const x of people)
      if (!members.has(x.uid))
        x.plan.errors.push(
          itemError(
            x.plan.index,
            ext(x.plan),
            'INVALID_VALUE',
            `user "${x.uid}" is not a member or guest of this organization; GET /users/v1 lists them`,
            x.path.slice(1),
            x.propertyId,
          ),
        );
  }

  return { plans, ext };
}
