import type { RecordKind } from '../../db/types.js';
import type { UserErrorModel, ValueEntry } from '../records/index.js';

/** Sync's domain types: bulk writes keyed by external id, and their per-item answers. */

/** A bulk item's user error: a write's codes, and those only bulk calls have. */
export interface BulkUserError extends Omit<UserErrorModel, 'code'> {
  code: UserErrorModel['code'] | 'DUPLICATE' | 'EXTERNAL_ID_TAKEN' | 'NOT_FOUND' | 'NOT_WRITTEN';
}

/** Most items (records or pairs) one bulk call may carry. */
export const MAX_BULK_ITEMS = 1000;

/** What a bulk write did with one item (GraphQL `BulkOutcome`). */
export type BulkOutcome = 'CREATED' | 'UPDATED' | 'UNCHANGED' | 'DELETED' | 'FAILED';

/** One record of a bulk upsert (GraphQL `UpsertRecordItem`). */
export interface UpsertItem {
  /** Its id in the call's source; absent (and refused) when the call has no source. */
  externalId?: string | null;
  /** An existing record to attach the external id to. */
  id?: string | null;
  properties?: unknown;
  values?: ValueEntry[] | null;
  /** Parcels: undefined leaves the geometry as it is, null clears it. */
  geometry?: unknown;
}

export interface UpsertInput {
  kind: RecordKind;
  orgId: string;
  portfolioId: string;
  /**
   * The source the external ids belong to. Without one (the CLI's import without --source; the
   * API always names one), every item creates a record and carries no external id.
   */
  source?: string | null;
  items: readonly UpsertItem[];
  allOrNone?: boolean | null;
  idempotencyKey?: string | null;
  /**
   * Off (the CLI's import, never the API): updates take no record locks, only row locks. A record
   * lock keeps a record's log entries in commit order only when taken before the transaction has
   * an id, which a transaction of many batches has had since its first write; each lock holds a
   * slot of Postgres's lock table until commit, and an import updating a large roll in one
   * transaction ran out of them ("out of shared memory").
   */
  recordLocks?: boolean;
}

/** `E`: the external id's type; a call with a source answers each item's (string). */
export interface UpsertItemResult<E extends string | null = string | null> {
  index: number;
  externalId: E;
  id: string | null;
  outcome: BulkOutcome;
  userErrors: BulkUserError[];
}

/** A bulk upsert's answer (GraphQL `UpsertRecordsPayload`): what is stored for idempotent replays. */
export interface UpsertAnswer<E extends string | null = string | null> {
  results: UpsertItemResult<E>[];
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  replayed: boolean;
}

export type LinkType = 'project_contacts' | 'parcel_contacts';

/** One side of a pair: exactly one of id and externalId (GraphQL `RecordRef`, @oneOf). */
export interface RecordRef {
  id?: string | null;
  externalId?: string | null;
}

export interface BulkLinkInput {
  orgId: string;
  portfolioId: string;
  type: LinkType;
  source?: string | null;
  pairs: readonly { from: RecordRef; to: RecordRef }[];
  allOrNone?: boolean | null;
}

export interface BulkLinkItemResult {
  index: number;
  fromId: string | null;
  toId: string | null;
  outcome: BulkOutcome;
  userErrors: BulkUserError[];
}

export interface BulkLinkAnswer {
  results: BulkLinkItemResult[];
  changed: number;
  unchanged: number;
  failed: number;
}

/** An external id as the `ExternalId` type reads it. */
export interface ExternalIdModel {
  source: string;
  id: string;
}
