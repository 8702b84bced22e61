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
  externalId: string;
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
  source: string;
  items: readonly UpsertItem[];
  allOrNone?: boolean | null;
  idempotencyKey?: string | null;
}

export interface UpsertItemResult {
  index: number;
  externalId: string;
  id: string | null;
  outcome: BulkOutcome;
  userErrors: BulkUserError[];
}

/** A bulk upsert's answer (GraphQL `UpsertRecordsPayload`): what is stored for idempotent replays. */
export interface UpsertAnswer {
  results: UpsertItemResult[];
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
