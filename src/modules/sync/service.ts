import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Context } from '../../context.js';
import { inTransaction } from '../../db/transaction.js';
import type { DB, RecordKind } from '../../db/types.js';
import { AppError, forbidden, isForeignKeyViolation, isUniqueViolation, notFound } from '../../errors.js';
import { type Actor, actorOf, ringChanges } from '../changes/index.js';
import { setContactLinks } from '../links/index.js';
import { orgUsersByIds } from '../org/index.js';
import {
  checkProperties,
  findRecord,
  geometryProblem,
  type RecordModel,
  readWrite,
  type StoredValue,
  userErrorOf,
} from '../records/index.js';
import { type PropertySchemaModel, schemasByKeys } from '../schema/index.js';
import * as repo from './repository.js';
import {
  type BulkLinkAnswer,
  type BulkLinkInput,
  type BulkLinkItemResult,
  type BulkUserError,
  MAX_BULK_ITEMS,
  type RecordRef,
  type UpsertAnswer,
  type UpsertInput,
  type UpsertItem,
  type UpsertItemResult,
} from './types.js';

/**
 * Sync: external id sources, bulk upserts keyed by external id, bulk links. `upsertRecords` and
 * `setLinks` are the one code path of the API and the CLI: they take a database handle and an
 * actor, not a request; the `…For(ctx, …)` functions add the request's access rules.
 */

const SOURCE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const MAX_EXTERNAL_ID_LENGTH = 255;
const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

const invalid = (field: string, message: string, reason = message) =>
  new AppError('VALIDATION_FAILED', message, [{ field, reason }]);

/** Refuses a call over the bulk limit before anything is read. */
export function checkBatchSize(field: string, n: number): void {
  if (n > MAX_BULK_ITEMS)
    throw invalid(
      field,
      `${field} holds ${n} entries; at most ${MAX_BULK_ITEMS} are accepted per call. Send them in calls of ${MAX_BULK_ITEMS}.`,
      `at most ${MAX_BULK_ITEMS} per call (got ${n})`,
    );
}

/** Refuses a source the organization has not declared, naming it and the declared ones. */
async function requireSource(db: Kysely<DB>, orgId: string, source: string): Promise<void> {
  const known = await repo.sourcesOf(db, orgId);
  if (known.includes(source)) return;
  throw invalid(
    'source',
    `Unknown source "${source}": declare it first with registerExternalSource${
      known.length ? ` (declared: ${known.map((s) => `"${s}"`).join(', ')})` : ' (none is declared yet)'
    }.`,
    `unknown source "${source}"`,
  );
}

/** What the core reads through the request's loaders when there is one. */
export interface SyncReads {
  schema?: (orgId: string, kind: RecordKind) => Promise<PropertySchemaModel>;
  /** The uids that are members or guests of the organization. */
  orgUsers?: (orgId: string, uids: string[]) => Promise<Set<string>>;
}

const dbReads = (db: Kysely<DB>): Required<SyncReads> => ({
  schema: async (orgId, kind) => (await schemasByKeys(db, [{ orgId, kind }]))[0],
  orgUsers: async (orgId, uids) => new Set((await orgUsersByIds(db, orgId, uids)).map((u) => u.id)),
});

/** Sorted-key JSON: the same input hashes the same whatever order its keys came in. */
const canonical = (v: unknown): string =>
  v === null || typeof v !== 'object'
    ? (JSON.stringify(v) ?? 'null')
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`;

const requestHash = (input: UpsertInput) =>
  createHash('sha256')
    .update(
      canonical({
        kind: input.kind,
        portfolioId: input.portfolioId,
        source: input.source,
        items: input.items,
        allOrNone: input.allOrNone ?? false,
      }),
    )
    .digest('base64url');

/** How a user error's message names its item: by index, and by external id when it has one. */
export const itemName = (index: number, externalId: string | null) =>
  externalId === null ? `Item ${index}` : `Item ${index} (external id "${externalId}")`;

/** An item's problem as a user error: the message names the item's index and external id. */
function itemError(
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
interface Plan {
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

class KeyTaken extends Error {}

/**
 * Creates or updates up to 1,000 records of one kind and portfolio, keyed by their external ids in
 * one source. Answers each item's outcome in input order; nothing partial is written: the valid
 * items are written in one transaction, and with `allOrNone` none when any item failed. The caller
 * has checked access (see upsertFor); the CLI calls this directly, in batches of 1,000.
 */
export async function upsertRecords(
  db: Kysely<DB>,
  who: { orgId: string; actor: Actor },
  input: UpsertInput & { source: string },
  reads?: SyncReads,
): Promise<UpsertAnswer<string>>;
export async function upsertRecords(
  db: Kysely<DB>,
  who: { orgId: string; actor: Actor },
  input: UpsertInput,
  reads?: SyncReads,
): Promise<UpsertAnswer>;
export async function upsertRecords(
  db: Kysely<DB>,
  who: { orgId: string; actor: Actor },
  input: UpsertInput,
  reads: SyncReads = {},
): Promise<UpsertAnswer> {
  const { orgId, actor } = who;
  checkBatchSize('items', input.items.length);
  const key = input.idempotencyKey ?? undefined;
  if (key !== undefined && (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH))
    throw invalid(
      'idempotencyKey',
      `idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
      `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
    );
  if (input.source != null) await requireSource(db, orgId, input.source);
  const hash = key === undefined ? '' : requestHash(input);
  const replay = async (): Promise<UpsertAnswer | undefined> => {
    const seen = key === undefined ? undefined : await repo.findIdempotent(db, orgId, key);
    if (!seen) return undefined;
    if (seen.hash !== hash)
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        `idempotencyKey "${key}" was used in the last 24 hours with a different input; use a new key for a new call.`,
        [{ field: 'idempotencyKey', reason: 'already used with a different input' }],
      );
    return seen.answer ? { ...seen.answer, replayed: true } : undefined;
  };
  const first = await replay();
  if (first) return first;
  const r = { ...dbReads(db), ...reads };
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await attemptUpsert(db, orgId, actor, input, r, key, hash);
      if (answer.created + answer.updated > 0) ringChanges(db, orgId);
      return answer;
    } catch (err) {
      if (err instanceof KeyTaken) {
        const again = await replay();
        if (again) return again;
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          `idempotencyKey "${key}" is in use by a call still running.`,
        );
      }
      // A concurrent call bound one of these external ids first: read again, and update that record.
      if (isUniqueViolation(err) && attempt === 0) continue;
      // The portfolio (or a record named by id) was deleted while the call ran: nothing was written.
      if (isForeignKeyViolation(err)) throw notFound('Portfolio or record');
      throw err;
    }
  }
}

/**
 * Checks up to 1,000 items as upsertRecords would, and writes nothing: the failed items, with their
 * user errors. The CLI's import checks the rest of a file this way once a problem is found, so its
 * refusals are the API's, and nothing more is written into a transaction that will roll back.
 */
export async function checkUpserts(
  db: Kysely<DB>,
  orgId: string,
  input: UpsertInput,
  reads: SyncReads = {},
): Promise<UpsertItemResult[]> {
  checkBatchSize('items', input.items.length);
  if (input.source != null) await requireSource(db, orgId, input.source);
  const { plans, ext } = await planUpsert(db, orgId, input, { ...dbReads(db), ...reads });
  return plans
    .filter((p) => p.errors.length)
    .map((p) => ({
      index: p.index,
      externalId: ext(p),
      id: p.id ?? null,
      outcome: 'FAILED',
      userErrors: p.errors,
    }));
}

/** Each item's target and checked values, or its problems: everything a write decides before it writes. */
async function planUpsert(db: Kysely<DB>, orgId: string, input: UpsertInput, reads: Required<SyncReads>) {
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

async function attemptUpsert(
  db: Kysely<DB>,
  orgId: string,
  actor: Actor,
  input: UpsertInput,
  reads: Required<SyncReads>,
  key: string | undefined,
  hash: string,
): Promise<UpsertAnswer> {
  const { kind, portfolioId } = input;
  const { plans, ext } = await planUpsert(db, orgId, input, reads);
  const failed = plans.some((p) => p.errors.length);
  const halt = failed && input.allOrNone === true;
  const good = halt ? [] : plans.filter((p) => !p.errors.length);
  const creates = good.filter((p) => !p.id);
  const updates = good.filter((p) => p.id);
  const results = (created: Set<Plan>, changed: Set<string>): UpsertItemResult[] =>
    plans.map((p) => {
      const base = { index: p.index, externalId: ext(p), id: p.id ?? null };
      if (p.errors.length) return { ...base, outcome: 'FAILED', userErrors: p.errors };
      if (halt)
        return {
          ...base,
          outcome: 'FAILED',
          userErrors: [
            itemError(
              p.index,
              ext(p),
              'NOT_WRITTEN',
              'valid, but not written: another item failed under allOrNone',
            ),
          ],
        };
      const outcome = created.has(p) ? 'CREATED' : changed.has(p.id!) ? 'UPDATED' : 'UNCHANGED';
      return { ...base, outcome, userErrors: [] };
    });

  return inTransaction(db, async (tx) => {
    if (key !== undefined && !(await repo.claimIdempotent(tx, orgId, key, hash))) throw new KeyTaken();
    const ids = await repo.insertRecords(
      tx,
      kind,
      orgId,
      portfolioId,
      creates.map((p) => ({ properties: p.set!, geometry: p.item.geometry })),
      actor,
    );
    creates.forEach((p, i) => {
      p.id = ids[i];
    });
    if (input.source != null)
      await repo.bindExternalIds(
        tx,
        orgId,
        kind,
        input.source,
        good.filter((p) => p.bind).map((p) => ({ externalId: ext(p)!, id: p.id! })),
      );
    const changed = await repo.updateRecords(
      tx,
      kind,
      orgId,
      portfolioId,
      updates.map((p) => ({ id: p.id!, set: p.set!, clear: p.clear!, geometry: p.item.geometry })),
      actor,
      input.recordLocks !== false,
    );
    const list = results(new Set(creates), changed);
    const tally = (o: string) => list.filter((x) => x.outcome === o).length;
    const answer: UpsertAnswer = {
      results: list,
      created: tally('CREATED'),
      updated: tally('UPDATED'),
      unchanged: tally('UNCHANGED'),
      failed: tally('FAILED'),
      replayed: false,
    };
    if (key !== undefined) await repo.storeIdempotent(tx, orgId, key, answer);
    return answer;
  });
}

/** The access a bulk write needs: the portfolio in reach (404 otherwise) and a writing role (403). */
async function requireWritablePortfolio(ctx: Context, orgId: string, portfolioId: string, action: string) {
  if (
    !ctx.viewer.canReadPortfolio(orgId, portfolioId) ||
    !(await ctx.loaders.portfolio.load({ orgId, id: portfolioId }))
  )
    throw notFound('Portfolio');
  if (!ctx.viewer.canWriteIn(orgId)) throw forbidden(action);
}

const ctxReads = (ctx: Context): SyncReads => ({
  schema: (orgId, kind) => ctx.loaders.schema.load({ orgId, kind }),
  orgUsers: async (orgId, uids) => {
    const ok = await Promise.all(uids.map((id) => ctx.loaders.isOrgUser.load({ orgId, id })));
    return new Set(uids.filter((_, i) => ok[i]));
  },
});

/** A bulk upsert for the request's caller. Parcels: owners and admins only. */
export async function upsertFor(
  ctx: Context,
  kind: RecordKind,
  input: Omit<UpsertInput, 'kind'> & { source: string },
): Promise<UpsertAnswer<string>> {
  checkBatchSize('items', input.items.length);
  await requireWritablePortfolio(ctx, input.orgId, input.portfolioId, `write ${kind}s`);
  if (kind === 'parcel' && !['owner', 'admin'].includes(ctx.viewer.roleIn(input.orgId) ?? ''))
    throw new AppError(
      'FORBIDDEN',
      'Only owners and admins of the organization can create parcels; members update them with updateParcel.',
    );
  return upsertRecords(
    ctx.db,
    { orgId: input.orgId, actor: actorOf(ctx) },
    { ...input, kind },
    ctxReads(ctx),
  );
}

/** Declares a source (owners and admins); declaring a declared one changes nothing. */
export async function registerSource(ctx: Context, orgId: string, name: string): Promise<string[]> {
  if (!ctx.viewer.canReadOrg(orgId)) throw notFound('Organization');
  if (!['owner', 'admin'].includes(ctx.viewer.roleIn(orgId) ?? ''))
    throw new AppError(
      'FORBIDDEN',
      'Only owners and admins of the organization can declare external id sources.',
    );
  return declareSource(ctx.db, orgId, name);
}

/** Declares a source of an organization (no access check: the caller has made it); all its sources. */
export async function declareSource(db: Kysely<DB>, orgId: string, name: string): Promise<string[]> {
  if (typeof name !== 'string' || !SOURCE_NAME.test(name))
    throw invalid(
      'name',
      `Source name "${name}" is not usable: 1 to 64 letters, digits, ".", "_" or "-".`,
      '1 to 64 letters, digits, ".", "_" or "-"',
    );
  await repo.addSource(db, orgId, name);
  return repo.sourcesOf(db, orgId);
}

export async function sourcesFor(ctx: Context, orgId: string): Promise<string[]> {
  if (!ctx.viewer.canReadOrg(orgId)) return [];
  return repo.sourcesOf(ctx.db, orgId);
}

/** The record carrying an external id, when the caller can read it. */
export async function findByExternalId(
  ctx: Context,
  orgId: string,
  source: string,
  externalId: string,
): Promise<RecordModel | null> {
  if (!ctx.viewer.canReadOrg(orgId)) return null;
  const [t] = await repo.findByExternalIds(ctx.db, orgId, source, [externalId]);
  return (t && (await findRecord(ctx, t.kind, t.id))) ?? null;
}

const PARENT = { project_contacts: 'project', parcel_contacts: 'parcel' } as const;

/**
 * Links or unlinks up to 1,000 pairs of one portfolio, each side by id or by external id. Answers
 * each pair's outcome in input order; valid pairs are written in one transaction (none under
 * allOrNone when a pair failed). The caller has checked access (see setLinksFor).
 */
export async function setLinks(
  db: Kysely<DB>,
  who: { orgId: string; actor: Actor },
  input: BulkLinkInput,
  linked: boolean,
): Promise<BulkLinkAnswer> {
  const { orgId, actor } = who;
  const { portfolioId, type } = input;
  checkBatchSize('pairs', input.pairs.length);
  const byExternal = input.pairs.some((p) => p.from.externalId != null || p.to.externalId != null);
  const source = input.source ?? null;
  if (byExternal && source === null)
    throw invalid(
      'source',
      'source is required when a pair names a record by externalId.',
      'required with externalId',
    );
  if (source !== null) await requireSource(db, orgId, source);
  const parentKind = PARENT[type];
  const refs = (k: 'from' | 'to') => input.pairs.map((p) => p[k]);
  const ids = (rs: RecordRef[]) => rs.flatMap((r) => (r.id ? [r.id] : []));
  const exts = (rs: RecordRef[]) => rs.flatMap((r) => (r.externalId != null ? [r.externalId] : []));
  const [parents, contacts, targets] = await Promise.all([
    repo.findByIds(db, orgId, parentKind, null, ids(refs('from'))),
    repo.findByIds(db, orgId, 'contact', null, ids(refs('to'))),
    source === null
      ? []
      : repo.findByExternalIds(db, orgId, source, [...exts(refs('from')), ...exts(refs('to'))]),
  ]);
  const byId = new Map<RecordKind, Map<string, { id: string; portfolioId: string }>>([
    [parentKind, new Map(parents.map((r) => [r.id, r]))],
    ['contact', new Map(contacts.map((r) => [r.id, r]))],
  ]);
  const byExt = new Map(targets.map((t) => [t.externalId, t]));
  const resolve = (ref: RecordRef, kind: RecordKind): string | string[] => {
    if (ref.id) {
      const r = byId.get(kind)?.get(ref.id);
      return r && r.portfolioId === portfolioId ? r.id : [`no ${kind} with id "${ref.id}" in this portfolio`];
    }
    const t = ref.externalId != null ? byExt.get(ref.externalId) : undefined;
    if (!t || t.kind !== kind || t.portfolioId !== portfolioId)
      return [`no ${kind} with external id "${ref.externalId}" of ${source} in this portfolio`];
    return t.id;
  };
  const label = (i: number) => `Pair ${i}`;
  const results: BulkLinkItemResult[] = input.pairs.map((p, index) => {
    const from = resolve(p.from, parentKind);
    const to = resolve(p.to, 'contact');
    const userErrors: BulkUserError[] = [];
    for (const [side, v] of [
      ['from', from],
      ['to', to],
    ] as const)
      if (Array.isArray(v))
        userErrors.push({
          code: 'NOT_FOUND',
          message: `${label(index)}: ${side}: ${v[0]}`,
          propertyId: null,
          path: ['input', 'pairs', String(index), side],
        });
    return {
      index,
      fromId: typeof from === 'string' ? from : null,
      toId: typeof to === 'string' ? to : null,
      outcome: userErrors.length ? 'FAILED' : 'UNCHANGED',
      userErrors,
    };
  });
  const seen = new Map<string, number>();
  for (const r of results)
    if (r.fromId && r.toId) seen.set(`${r.fromId}|${r.toId}`, (seen.get(`${r.fromId}|${r.toId}`) ?? 0) + 1);
  for (const r of results) {
    const n = r.fromId && r.toId ? seen.get(`${r.fromId}|${r.toId}`)! : 0;
    if (n > 1 && r.outcome !== 'FAILED') {
      r.outcome = 'FAILED';
      r.userErrors.push({
        code: 'DUPLICATE',
        message: `${label(r.index)}: the pair ${r.fromId} – ${r.toId} appears ${n} times in this call; send each once`,
        propertyId: null,
        path: ['input', 'pairs', String(r.index)],
      });
    }
  }
  const anyFailed = results.some((r) => r.outcome === 'FAILED');
  if (anyFailed && input.allOrNone === true) {
    for (const r of results)
      if (r.outcome !== 'FAILED') {
        r.outcome = 'FAILED';
        r.userErrors.push({
          code: 'NOT_WRITTEN',
          message: `${label(r.index)}: valid, but not written: another pair failed under allOrNone`,
          propertyId: null,
          path: ['input', 'pairs', String(r.index)],
        });
      }
  } else {
    const todo = results.filter((r) => r.outcome !== 'FAILED');
    const changed = await setContactLinks(
      db,
      type,
      { orgId, portfolioId },
      todo.map((r) => [r.fromId!, r.toId!]),
      actor,
      linked,
    ).catch((err) => {
      // A record deleted while the call ran: the links' foreign keys refuse it, nothing is written.
      throw isForeignKeyViolation(err) ? notFound('Record') : err;
    });
    for (const r of todo)
      if (changed.has(`${r.fromId}|${r.toId}`)) r.outcome = linked ? 'CREATED' : 'DELETED';
    if (changed.size) ringChanges(db, orgId);
  }
  const tally = (f: (r: BulkLinkItemResult) => boolean) => results.filter(f).length;
  return {
    results,
    changed: tally((r) => r.outcome === 'CREATED' || r.outcome === 'DELETED'),
    unchanged: tally((r) => r.outcome === 'UNCHANGED'),
    failed: tally((r) => r.outcome === 'FAILED'),
  };
}

export async function setLinksFor(
  ctx: Context,
  input: BulkLinkInput,
  linked: boolean,
): Promise<BulkLinkAnswer> {
  checkBatchSize('pairs', input.pairs.length);
  await requireWritablePortfolio(
    ctx,
    input.orgId,
    input.portfolioId,
    linked ? 'link records' : 'unlink records',
  );
  return setLinks(ctx.db, { orgId: input.orgId, actor: actorOf(ctx) }, input, linked);
}
