/**
 * The changes module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * The change log: every write is recorded through `writeLogged` (the write and its entries, atomically),
 * rung to listeners, and fanned out to live subscriptions.
 */
export { actorOf } from './actor.js';
export { CHANGES_CHANNEL, ringChanges } from './bell.js';
export { ChangeHub, CLOSE, type Connection, DEFAULT_HUB_LIMITS, type HubLimits } from './hub.js';
export {
  type AuditEntry,
  auditPage,
  feedHead,
  feedPage,
  feedStart,
  historyPage,
  type LogEntry,
  lockRecords,
  orgFeedPage,
  pruneOlderThan,
  writeLogged,
} from './repository.js';
export { endedBefore, parseSnapshot } from './snapshot.js';
export {
  type Actor,
  type ChangeConnectionModel,
  type ChangeModel,
  type ChangeOp,
  type ChangeSourceName,
  CLI_ACTOR,
  type PropertyChangeModel,
} from './types.js';
