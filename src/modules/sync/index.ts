/**
 * The sync module's public door: what other modules, the GraphQL layer and the CLI may use.
 * Everything else in this folder is private to it.
 *
 * Sync for integrators: external ids (declared sources, one id per source on a record), bulk
 * upserts keyed by external id with idempotency keys, and bulk links. `upsertRecords` and
 * `setLinks` take a database handle and an actor, so the CLI runs the same code as the API.
 */
export { checkBatchSize } from './checks.js';
export { setLinks } from './links.js';
export { itemName, type SyncReads } from './plan.js';
export { pruneIdempotencyKeys, sourcesOf } from './repository.js';
export { declareSource } from './sources.js';
export {
  type BulkLinkAnswer,
  type BulkLinkInput,
  type BulkOutcome,
  MAX_BULK_ITEMS,
  type UpsertAnswer,
  type UpsertInput,
  type UpsertItem,
  type UpsertItemResult,
} from './types.js';
export { checkUpserts, upsertRecords } from './upsert.js';
