import type { RecordKind } from '../../db/types.js';

export type ChangeOp = 'create' | 'update' | 'delete' | 'link' | 'unlink' | 'schema';

/** Who made a change: the API caller (user and key), or the command line. */
export interface Actor {
  userId: string | null;
  keyId: string | null;
  source: 'api' | 'cli';
}

export const CLI_ACTOR: Actor = { userId: null, keyId: null, source: 'cli' };

/** One change-log entry. */
export interface ChangeModel {
  orgId: string;
  /** Position in the log: the writing transaction's id, then the entry's sequence number. */
  tx: string;
  seq: string;
  portfolioId: string | null;
  recordKind: RecordKind;
  /** The record's id; for a schema change, the property's id. */
  recordId: string;
  op: ChangeOp;
  /** Link and unlink: the other record. */
  relatedId: string | null;
  userId: string | null;
  keyId: string | null;
  source: 'api' | 'cli';
  at: Date;
  /** Records: `{ propertyId: { before, after } }` (stored values); schema: `{ before, after }` definitions. */
  changes: Record<string, unknown>;
}

export type ChangeSourceName = Actor['source'];

export interface ChangeEdgeModel {
  cursor: string;
  node: ChangeModel;
}

export interface ChangeConnectionModel {
  edges: ChangeEdgeModel[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

/** One property of a CREATE, UPDATE or DELETE entry, with the org and kind to read its definition. */
export interface PropertyChangeModel {
  orgId: string;
  kind: RecordKind;
  propertyId: string;
  before: unknown;
  after: unknown;
}
