import type { Context } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import { AppError, forbidden, notFound } from '../../errors.js';
import { actorOf } from '../changes/index.js';
import { findRecord, type RecordModel } from '../records/index.js';
import { checkBatchSize } from './checks.js';
import { setLinks } from './links.js';
import type { SyncReads } from './plan.js';
import * as repo from './repository.js';
import { declareSource } from './sources.js';
import type { BulkLinkAnswer, BulkLinkInput, UpsertAnswer, UpsertInput } from './types.js';
import { upsertRecords } from './upsert.js';

/**
 * Sync for a request: the `…For(ctx, …)` functions the resolvers call. `upsertRecords` and
 * `setLinks` (upsert.ts, links.ts) are the one code path of the API and the CLI: they take a
 * database handle and an actor, not a request; the functions here add the request's access rules.
 */

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
