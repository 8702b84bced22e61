import type { ChangeModel, ChangeOp } from '../changes/index.js';

/** Endpoints an org may register (WEBHOOK_MAX_ENDPOINTS_PER_ORG); each one costs every write a delivery. */
export const DEFAULT_MAX_ENDPOINTS_PER_ORG = 25;

/** One registered endpoint (never its secret). */
export interface WebhookEndpointModel {
  orgId: string;
  id: string;
  url: string;
  events: string[];
  /** Only changes in these portfolios; null for every portfolio (and schema changes). */
  portfolioIds: string[] | null;
  enabled: boolean;
  consecutiveFailures: number;
  disabledReason: string | null;
  createdAt: Date;
}

export interface WebhookDeliveryModel {
  orgId: string;
  id: string;
  endpointId: string;
  event: string;
  status: 'pending' | 'delivered';
  attempts: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  body: string;
}

export interface WebhookDeliveryEdgeModel {
  cursor: string;
  node: WebhookDeliveryModel;
}

export interface CreateWebhookEndpointPayloadModel {
  endpoint: WebhookEndpointModel;
  secret: string;
}

export interface WebhookEndpointPayloadModel {
  endpoint: WebhookEndpointModel;
}

export interface WebhookDeliveryConnectionModel {
  edges: WebhookDeliveryEdgeModel[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

const PAST: Record<Exclude<ChangeOp, 'schema'>, string> = {
  create: 'created',
  update: 'updated',
  delete: 'deleted',
  link: 'linked',
  unlink: 'unlinked',
};

/** Every event an endpoint can ask for: `<kind>.<past tense of the operation>`, and `schema.changed`. */
export const WEBHOOK_EVENTS: readonly string[] = [
  ...['project', 'parcel', 'contact'].flatMap((k) => Object.values(PAST).map((p) => `${k}.${p}`)),
  'schema.changed',
];

export const eventOf = (c: ChangeModel): string =>
  c.op === 'schema' ? 'schema.changed' : `${c.recordKind}.${PAST[c.op]}`;

/** Whether an endpoint wants a change: its event, and (for record changes) its portfolio. */
export function wants(e: { events: string[]; portfolioIds: string[] | null }, c: ChangeModel): boolean {
  if (!e.events.includes(eventOf(c))) return false;
  if (!e.portfolioIds || c.portfolioId === null) return true;
  return e.portfolioIds.includes(c.portfolioId);
}

/** The JSON body of a delivery; its `id` is the idempotency id, also sent as `Sdg-Delivery-Id`. */
export function deliveryBody(id: string, c: ChangeModel): string {
  return JSON.stringify({
    id,
    type: eventOf(c),
    organizationId: c.orgId,
    data: {
      position: `${c.tx}.${c.seq}`,
      portfolioId: c.portfolioId,
      recordKind: c.recordKind,
      recordId: c.recordId,
      operation: c.op,
      relatedId: c.relatedId,
      userId: c.userId,
      apiKeyId: c.keyId,
      source: c.source,
      at: c.at.toISOString(),
      changes: c.changes,
    },
  });
}
