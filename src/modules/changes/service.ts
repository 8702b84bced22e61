import type { Context } from '../../context.js';
import { AppError } from '../../errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../pagination/connection.js';
import type { PortfolioModel } from '../org/types.js';
import type { RecordModel } from '../records/types.js';
import * as repo from './repository.js';
import type { Actor, ChangeConnectionModel, ChangeModel } from './types.js';

/** Who the request acts as, for the change log. */
export const actorOf = (ctx: Context): Actor => ({
  userId: ctx.viewer.userId,
  keyId: ctx.viewer.keyId,
  source: 'api',
});

const historyScope = (recordId: string) => `history:${recordId}`;
const feedScope = (portfolioId: string) => `changes:${portfolioId}`;

function size(first: number | null | undefined): number {
  if (first == null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE)
    throw new AppError('VALIDATION_FAILED', 'Invalid paging arguments.', [
      { field: 'first', reason: `must be an integer from 0 to ${MAX_PAGE_SIZE}` },
    ]);
  return first;
}

function position(ctx: Context, scope: string, cursor: string | null | undefined) {
  if (cursor == null) return undefined;
  const [tx, seq] = ctx.cursors.decode(scope, cursor, 2) as string[];
  if (!/^\d{1,20}$/.test(String(tx)) || !/^\d{1,20}$/.test(String(seq)))
    throw new AppError('INVALID_CURSOR', 'The cursor is malformed.');
  return { tx: String(tx), seq: String(seq) };
}

function connection(
  ctx: Context,
  scope: string,
  rows: ChangeModel[],
  n: number,
  after: string | null | undefined,
): ChangeConnectionModel {
  const edges = rows.slice(0, n).map((c) => ({ cursor: ctx.cursors.encode(scope, [c.tx, c.seq]), node: c }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > n,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? after ?? null,
    },
  };
}

/** A record's history, newest first. The record itself was reached through access checks. */
export async function recordHistory(
  ctx: Context,
  r: RecordModel,
  args: { first?: number | null; after?: string | null },
): Promise<ChangeConnectionModel> {
  const n = size(args.first);
  const scope = historyScope(r.id);
  const before = position(ctx, scope, args.after);
  const rows = n ? await repo.historyPage(ctx.db, r.orgId, r.id, n + 1, before) : [];
  return connection(ctx, scope, rows, n, args.after);
}

/** A portfolio's sync feed after a cursor (see repository.feedPage for why it has no gaps). */
export async function portfolioChanges(
  ctx: Context,
  p: PortfolioModel,
  args: { first?: number | null; after?: string | null },
): Promise<ChangeConnectionModel> {
  const n = size(args.first);
  const scope = feedScope(p.id);
  const after = position(ctx, scope, args.after);
  const rows = n ? await repo.feedPage(ctx.db, p.orgId, p.id, n + 1, after) : [];
  return connection(ctx, scope, rows, n, args.after);
}

export async function changesCursor(ctx: Context, p: PortfolioModel): Promise<string> {
  const head = await repo.feedHead(ctx.db);
  return ctx.cursors.encode(feedScope(p.id), [head.tx, head.seq]);
}
