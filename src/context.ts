import type { Kysely } from 'kysely';
import type { DB } from './db/types.js';
import type { AdmissionTier } from './http/admission.js';
import type { Viewer } from './modules/auth/index.js';
import type { ChangeHub, Connection } from './modules/changes/index.js';
import type { RequestObservation } from './observability/http.js';
import type { CursorCodec } from './pagination/cursor.js';

/**
 * The request's DataLoaders, by name. Each module adds its own to this interface from its
 * loaders.ts (declaration merging), so this file, which every module reads, imports none of them:
 * src/request-context.ts builds them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, see above.
export interface Loaders {}

/** What every resolver gets; built once per request, for GraphQL and REST alike. */
export interface Context {
  /** Where this request's statements go: the primary, or the read pool for a read-only request. */
  db: Kysely<DB>;
  viewer: Viewer;
  cursors: CursorCodec;
  requestId: string;
  loaders: Loaders;
  /** New loaders over `db` for this request's viewer; `primary` fills the process caches. */
  newLoaders(db: Kysely<DB>, primary?: Kysely<DB>): Loaders;
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

/**
 * Sends a request that only reads to the read pool. Called once the operation is known to be a
 * query (REST GET, GraphQL query) and before anything has loaded; writes never call it, so every
 * read inside a request that writes stays on the primary.
 */
export function routeToReadPool(ctx: Context): void {
  if (!ctx.readDb || ctx.db === ctx.readDb) return;
  const primary = ctx.db;
  ctx.db = ctx.readDb;
  ctx.loaders = ctx.newLoaders(ctx.readDb, primary);
}

/**
 * Lets a long-lived context (a subscription's, which serves every event) forget what it has read,
 * so the next event's resolvers read the records as they are now, not as the first event saw them.
 */
export function forgetReads(ctx: Context): void {
  ctx.loaders = ctx.newLoaders(ctx.db);
  ctx.memo = undefined;
}
