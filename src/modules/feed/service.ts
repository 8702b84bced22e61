import { type Context, forgetReads } from '../../context.js';
import type { RecordKind } from '../../db/types.js';
import { AppError, notFound } from '../../errors.js';
import { typeOfId } from '../../ids.js';
import { forwardConnection, forwardSize } from '../../pagination/connection.js';
import { type ChangeConnectionModel, feedHead, feedPage, historyPage } from '../changes/index.js';
import type { PortfolioModel } from '../org/index.js';
import { findRecord, type RecordModel } from '../records/index.js';

const historyScope = (recordId: string) => `history:${recordId}`;
const feedScope = (portfolioId: string) => `changes:${portfolioId}`;

function position(ctx: Context, scope: string, cursor: string | null | undefined) {
  if (cursor == null) return undefined;
  const [tx, seq] = ctx.cursors.decode(scope, cursor, 2) as string[];
  if (!/^\d{1,20}$/.test(String(tx)) || !/^\d{1,20}$/.test(String(seq)))
    throw new AppError('INVALID_CURSOR', 'The cursor is malformed.');
  return { tx: String(tx), seq: String(seq) };
}

/** A record's history, newest first. The record itself was reached through access checks. */
export async function recordHistory(
  ctx: Context,
  r: RecordModel,
  args: { first?: number | null; after?: string | null },
): Promise<ChangeConnectionModel> {
  const n = forwardSize(args.first);
  const scope = historyScope(r.id);
  const before = position(ctx, scope, args.after);
  const rows = n ? await historyPage(ctx.db, r.orgId, r.id, n + 1, before) : [];
  return forwardConnection(rows, n, args.after, (c) => ctx.cursors.encode(scope, [c.tx, c.seq]));
}

/** A portfolio's sync feed after a cursor (see repository.feedPage for why it has no gaps). */
export async function portfolioChanges(
  ctx: Context,
  p: PortfolioModel,
  args: { first?: number | null; after?: string | null },
): Promise<ChangeConnectionModel> {
  const n = forwardSize(args.first);
  const scope = feedScope(p.id);
  const after = position(ctx, scope, args.after);
  const rows = n ? await feedPage(ctx.db, p.orgId, p.id, n + 1, after) : [];
  return forwardConnection(rows, n, args.after, (c) => ctx.cursors.encode(scope, [c.tx, c.seq]));
}

export async function changesCursor(ctx: Context, p: PortfolioModel): Promise<string> {
  const head = await feedHead(ctx.db);
  return ctx.cursors.encode(feedScope(p.id), [head.tx, head.seq]);
}

const SUBSCRIBE_OVER_WS = () =>
  new AppError(
    'BAD_REQUEST',
    'Subscriptions run over WebSocket (graphql-ws) on /graphql, not over HTTP POST.',
  );

/** The organization of a portfolio the caller can read, found among the caller's organizations. */
async function readablePortfolio(ctx: Context, portfolioId: string) {
  const found = await Promise.all(
    ctx.viewer.orgIds.map((orgId) => ctx.loaders.portfolio.load({ orgId, id: portfolioId })),
  );
  const p = found.find((x) => x && ctx.viewer.canReadPortfolio(x.orgId, x.id));
  if (!p) throw notFound('Portfolio');
  return p;
}

export async function subscribePortfolio(
  ctx: Context,
  portfolioId: string,
  kinds?: readonly RecordKind[] | null,
) {
  if (!ctx.changes || !ctx.connection) throw SUBSCRIBE_OVER_WS();
  const p = await readablePortfolio(ctx, portfolioId);
  const wanted = kinds?.length ? new Set(kinds) : undefined;
  const events = await ctx.changes.subscribe(
    ctx.connection,
    p.orgId,
    p.id,
    (c) => (wanted ? c.op !== 'schema' && wanted.has(c.recordKind) : true),
    ctx.operationCost,
  );
  return readFreshEach(ctx, events);
}

const KIND_OF: Partial<Record<string, RecordKind>> = {
  Project: 'project',
  Parcel: 'parcel',
  Contact: 'contact',
};

export async function subscribeRecord(ctx: Context, id: string) {
  if (!ctx.changes || !ctx.connection) throw SUBSCRIBE_OVER_WS();
  const kind = KIND_OF[typeOfId(id) ?? ''];
  const r = kind && (await findRecord(ctx, kind, id));
  if (!r) throw notFound('Record');
  const events = await ctx.changes.subscribe(
    ctx.connection,
    r.orgId,
    r.portfolioId,
    (c) => c.recordId === id,
    ctx.operationCost,
  );
  return readFreshEach(ctx, events);
}

/**
 * A subscription's events, each resolved with nothing cached from before it: graphql-js executes
 * every event with the subscription's one context, whose loaders would otherwise answer a later
 * event's `record` with the record as an earlier one read it.
 */
function readFreshEach<T>(ctx: Context, events: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  return {
    next: async () => {
      const r = await events.next();
      if (!r.done) forgetReads(ctx);
      return r;
    },
    return: () => events.return?.() ?? Promise.resolve({ value: undefined, done: true }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
