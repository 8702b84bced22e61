import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/transaction.js';
import type { DB } from '../../db/types.js';
import { AppError, isForeignKeyViolation, isUniqueViolation, notFound } from '../../errors.js';
import { type Actor, ringChanges } from '../changes/index.js';
import { checkBatchSize, invalid } from './checks.js';
import { dbReads, itemError, type Plan, planUpsert, type SyncReads } from './plan.js';
import * as repo from './repository.js';
import { requireSource } from './sources.js';
import type { UpsertAnswer, UpsertInput, UpsertItemResult } from './types.js';

/**
 * Bulk upserts keyed by external id: writing a plan (plan.ts) in one transaction, and the call's
 * idempotency key (its request hash, the replay of a stored answer, the claim of a key in use).
 */

const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

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
