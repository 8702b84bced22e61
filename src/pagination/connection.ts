import { AppError } from '../errors.js';

/** Page size when a client gives none (REST `limit`, GraphQL `first`/`last`). */
export const DEFAULT_PAGE_SIZE = 100;
/** Largest page, as the spec sets for REST `limit`; GraphQL uses the same. */
export const MAX_PAGE_SIZE = 5000;

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface PageWindow {
  size: number;
  direction: 'forward' | 'backward';
  cursor?: string;
}

/** Checks Relay arguments: one direction at a time (first/after or last/before), sizes from 0 to MAX_PAGE_SIZE. */
export function pageWindow(args: ConnectionArgs): PageWindow {
  const details = [];
  if (args.first != null && args.last != null)
    details.push({ field: 'first', reason: 'give first/after or last/before, not both' });
  if (args.after != null && args.before != null)
    details.push({ field: 'after', reason: 'give after or before, not both' });
  // first counts from the start and last from the end: mixed with the other end's cursor, one of
  // them would be silently ignored.
  if (args.first != null && args.before != null)
    details.push({ field: 'before', reason: 'page backward with last/before; first goes with after' });
  if (args.last != null && args.after != null)
    details.push({ field: 'after', reason: 'page forward with first/after; last goes with before' });
  for (const f of ['first', 'last'] as const) {
    const v = args[f];
    if (v != null && (!Number.isInteger(v) || v < 0 || v > MAX_PAGE_SIZE))
      details.push({ field: f, reason: `must be an integer from 0 to ${MAX_PAGE_SIZE}` });
  }
  if (details.length) throw new AppError('VALIDATION_FAILED', 'Invalid paging arguments.', details);
  const backward = args.last != null || (args.before != null && args.first == null);
  return backward
    ? { size: args.last ?? DEFAULT_PAGE_SIZE, direction: 'backward', cursor: args.before ?? undefined }
    : { size: args.first ?? DEFAULT_PAGE_SIZE, direction: 'forward', cursor: args.after ?? undefined };
}

/** The page size of a forward-only list (first/after): checked like pageWindow's `first`. */
export function forwardSize(first: number | null | undefined): number {
  return pageWindow({ first }).size;
}

/**
 * A forward-only page of rows read one past its size (n + 1): the edges, and a pageInfo that keeps
 * the caller's cursor when the page is empty, so a sync can poll from where it stopped.
 */
export function forwardConnection<T>(
  rows: T[],
  n: number,
  after: string | null | undefined,
  cursorOf: (row: T) => string,
) {
  const edges = rows.slice(0, n).map((node) => ({ cursor: cursorOf(node), node }));
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
