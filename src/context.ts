import type { Kysely } from 'kysely';
import { requestTraceOf } from './db/database.js';
import type { DB } from './db/types.js';
import type { AdmissionTier } from './http/admission.js';
import type { Viewer } from './modules/auth/viewer.js';
import type { ChangeHub, Connection } from './modules/changes/hub.js';
import { createOrgLoaders } from './modules/org/loaders.js';
import { createRecordLoaders } from './modules/records/loaders.js';
import { createSchemaLoaders } from './modules/schema/loaders.js';
import type { RequestObservation } from './observability/http.js';
import { withRequestTrace } from './observability/tracing.js';
import type { CursorCodec } from './pagination/cursor.js';

/** What every resolver gets; built once per request, for GraphQL and REST alike. */
export interface Context {
  /** Where this request's statements go: the primary, or the read pool for a read-only request. */
  db: Kysely<DB>;
  viewer: Viewer;
  cursors: CursorCodec;
  requestId: string;
  loaders: ReturnType<typeof createLoaders>;
  /** The read pool (DATABASE_READ_URL), when there is one. */
  readDb?: Kysely<DB>;
  /** Request-scoped memo, by organization, of what many resolvers share (records/values.ts orgMemo). */
  memo?: Map<string, unknown>;
  /** What metrics, logs and traces learn about the request (its operation, error codes). */
  obs?: RequestObservation;
  /** Live subscriptions (WebSocket contexts only): the process's hub and this socket. */
  changes?: ChangeHub;
  connection?: Connection;
  /** Webhook registration settings (whether private targets are allowed); absent means refuse them. */
  webhooks?: { allowPrivateTargets: boolean; maxEndpointsPerOrg?: number };
  /** The running operation's measured cost: a subscription's counts against its organization's fan-out bound. */
  operationCost?: number;
  /** Waits for a slot of that tier (src/http/admission.ts); absent when admission control is off. */
  admit?: (tier: AdmissionTier) => Promise<void>;
}

/** `primary` fills the process caches (never a lagging replica); `db` serves everything else. */
export function createLoaders(db: Kysely<DB>, viewer: Viewer, primary: Kysely<DB> = db) {
  // With tracing on, each batch span hangs under the request's current span (found by the handle).
  return withRequestTrace(requestTraceOf(db), () => ({
    ...createOrgLoaders(db, viewer.orgVersions, primary),
    ...createSchemaLoaders(db, viewer.orgVersions, primary),
    ...createRecordLoaders(db, viewer.orgIds),
  }));
}

export function createContext(
  db: Kysely<DB>,
  viewer: Viewer,
  cursors: CursorCodec,
  requestId: string,
  readDb?: Kysely<DB>,
): Context {
  return { db, viewer, cursors, requestId, readDb, loaders: createLoaders(db, viewer) };
}

/**
 * The context an admitted operation runs with: the same request, but new loaders and memo, made
 * after its wait for a slot.
 *
 * Why: a request that waited long enough has its context, loaders and the frames of the functions
 * that wait in V8's old generation by the time it runs. Everything it then reads (pages, rows, the
 * answer) is young, and an old object that points at it keeps it alive through every young
 * collection, even once the request is over and that object is dead, until the next full
 * collection: it is copied, then promoted. With a new context, and the answer handed back as
 * written JSON (RunOptions.writesJson), nothing old points at what the operation read, and it dies
 * young. The caller must pass this straight on, not keep it in a variable of its own, and the
 * request drops its context once answered (http/auth.ts;
 * docs/decisions.md#an-admitted-operation-runs-with-a-new-context).
 */
export function admittedContext(ctx: Context): Context {
  return { ...ctx, loaders: createLoaders(ctx.db, ctx.viewer), memo: undefined };
}

/**
 * Sends a request that only reads to the read pool. Called once the operation is known to be a
 * query (REST GET, GraphQL query) and before anything has loaded; writes never call it, so every
 * read inside a request that writes stays on the primary.
 */
export function routeToReadPool(ctx: Context): void {
  if (!ctx.readDb || ctx.db === ctx.readDb) return;
  const primary = ctx.db;
  ctx.db = ctx.readDb;
  ctx.loaders = createLoaders(ctx.readDb, ctx.viewer, primary);
}

/**
 * Lets a long-lived context (a subscription's, which serves every event) forget what it has read,
 * so the next event's resolvers read the records as they are now, not as the first event saw them.
 */
export function forgetReads(ctx: Context): void {
  ctx.loaders = createLoaders(ctx.db, ctx.viewer);
  ctx.memo = undefined;
}
