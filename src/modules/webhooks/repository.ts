import { type Kysely, sql } from 'kysely';
import { CROSS_TENANT } from '../../db/tenant-guard.js';
import type { DB } from '../../db/types.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { endedBefore, feedStart, orgFeedPage, parseSnapshot } from '../changes/index.js';
import {
  DEFAULT_MAX_ENDPOINTS_PER_ORG,
  deliveryBody,
  eventOf,
  type WebhookDeliveryModel,
  type WebhookEndpointModel,
  wants,
} from './types.js';

type EndpointRow = DB['webhook_endpoints'];

const toEndpoint = (r: {
  org_id: string;
  id: string;
  url: string;
  events: string[];
  portfolio_ids: string[] | null;
  enabled: boolean;
  consecutive_failures: number;
  disabled_reason: string | null;
  created_at: Date;
}): WebhookEndpointModel => ({
  orgId: r.org_id,
  id: r.id,
  url: r.url,
  events: r.events,
  portfolioIds: r.portfolio_ids,
  enabled: r.enabled,
  consecutiveFailures: r.consecutive_failures,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at,
});

const ENDPOINT_COLS = [
  'org_id',
  'id',
  'url',
  'events',
  'portfolio_ids',
  'enabled',
  'consecutive_failures',
  'disabled_reason',
  'created_at',
] as const;

/**
 * A new endpoint; it receives the changes committed from now on: its position is the log's head,
 * and the snapshot that head was read from marks what had already committed behind it.
 * An org has at most `maxPerOrg` endpoints (disabled ones count: enabling one needs no room).
 * The count and the insert share a per-org advisory lock, so two registrations at once cannot
 * both take the last place. Every way of registering one (GraphQL, `sdg webhook add`) comes here.
 */
export async function insertEndpoint(
  db: Kysely<DB>,
  e: {
    orgId: string;
    url: string;
    events: string[];
    portfolioIds: string[] | null;
    secret: string;
    createdBy: string | null;
  },
  maxPerOrg: number = DEFAULT_MAX_ENDPOINTS_PER_ORG,
): Promise<WebhookEndpointModel> {
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${e.orgId}::text || ':webhook-endpoints', 0))`.execute(
      tx,
    );
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from webhook_endpoints
      where org_id = ${e.orgId}`.execute(tx);
    if (rows[0].n >= maxPerOrg) throw tooManyEndpoints(maxPerOrg);
    const start = await feedStart(tx);
    const row = await tx
      .insertInto('webhook_endpoints')
      .values({
        org_id: e.orgId,
        id: newId('WebhookEndpoint'),
        url: e.url,
        events: e.events,
        portfolio_ids: e.portfolioIds,
        secret: e.secret,
        created_by: e.createdBy,
        cursor_tx: start.position.tx,
        start_snapshot: start.snapshot,
      } as EndpointRow as never)
      .returning(ENDPOINT_COLS)
      .executeTakeFirstOrThrow();
    return toEndpoint(row as never);
  });
}

const tooManyEndpoints = (max: number) =>
  new AppError(
    'VALIDATION_FAILED',
    `The organization already has ${max} webhook endpoints, the most it may have. Remove one first (deleteWebhookEndpoint, or sdg webhook remove --id …); the limit is WEBHOOK_MAX_ENDPOINTS_PER_ORG.`,
    [{ field: 'organizationId', reason: `at most ${max} webhook endpoints per organization` }],
  );

export async function listEndpoints(db: Kysely<DB>, orgId: string): Promise<WebhookEndpointModel[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLS)
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => toEndpoint(r as never));
}

/** The endpoint with this id in any of the given organizations. */
export async function findEndpoint(
  db: Kysely<DB>,
  orgIds: string[],
  id: string,
): Promise<WebhookEndpointModel | undefined> {
  if (!orgIds.length) return undefined;
  const r = await db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLS)
    .where('org_id', 'in', orgIds)
    .where('id', '=', id)
    .executeTakeFirst();
  return r && toEndpoint(r as never);
}

/** The endpoint with this id in whichever organization (the command line, which acts for the operator). */
export async function findEndpointAnywhere(
  db: Kysely<DB>,
  id: string,
): Promise<WebhookEndpointModel | undefined> {
  const { rows } = await sql<{ org_id: string }>`${sql.raw(CROSS_TENANT)}
    select org_id from webhook_endpoints where id = ${id}`.execute(db);
  return rows[0] && findEndpoint(db, [rows[0].org_id], id);
}

/** Removes an endpoint and its delivery log (pending deliveries are dropped with it). */
export async function deleteEndpoint(db: Kysely<DB>, orgId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('webhook_endpoints')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Turns an endpoint back on after it was disabled for failing, with its failure count reset. */
export async function enableEndpoint(db: Kysely<DB>, orgId: string, id: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ enabled: true, consecutive_failures: 0, disabled_reason: null })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .execute();
}

const toDelivery = (r: Record<string, any>): WebhookDeliveryModel => ({
  orgId: r.org_id,
  id: r.id,
  endpointId: r.endpoint_id,
  event: r.event,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastStatus: r.last_status,
  lastError: r.last_error,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
  body: r.body,
});

/** An endpoint's deliveries, newest first, strictly before `before` (created_at, id). */
export async function deliveriesPage(
  db: Kysely<DB>,
  orgId: string,
  endpointId: string,
  limit: number,
  before?: { createdAt: string; id: string },
): Promise<WebhookDeliveryModel[]> {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('endpoint_id', '=', endpointId);
  if (before)
    q = q.where(sql<boolean>`(created_at, id) < (${before.createdAt}::timestamptz, ${before.id}::text)`);
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toDelivery);
}

/** Organizations with an enabled endpoint: the dispatcher's round, one org at a time after this. */
export async function orgsWithEndpoints(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ org_id: string }>`${sql.raw(CROSS_TENANT)}
    select distinct org_id from webhook_endpoints where enabled`.execute(db);
  return rows.map((r) => r.org_id);
}

/**
 * Turns an org's new change-log entries into deliveries, one transaction: the org's enabled
 * endpoints are locked (SKIP LOCKED: another process doing the same org now skips them), the log
 * is read after the oldest of their positions, each endpoint gets a delivery per entry it wants,
 * and each position moves past what was read. Commit makes deliveries and positions durable
 * together, so an entry becomes exactly one delivery per endpoint, even across crashes.
 * Returns the entries read (`limit` means there may be more).
 */
export async function fanOut(db: Kysely<DB>, orgId: string, limit: number): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const { rows: eps } = await sql<{
      id: string;
      events: string[];
      portfolio_ids: string[] | null;
      cursor_tx: string;
      cursor_seq: string;
      start_snapshot: string;
    }>`select id, events, portfolio_ids, cursor_tx::text as cursor_tx, cursor_seq::text as cursor_seq, start_snapshot
      from webhook_endpoints where org_id = ${orgId} and enabled
      order by id for update skip locked`.execute(tx);
    if (!eps.length) return 0;
    const pos = (e: { cursor_tx: string; cursor_seq: string }) =>
      [BigInt(e.cursor_tx), BigInt(e.cursor_seq)] as const;
    const before = (a: readonly [bigint, bigint], b: readonly [bigint, bigint]) =>
      a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
    const oldest = eps.map(pos).reduce((m, p) => (before(p, m) ? p : m));
    const entries = await orgFeedPage(tx, orgId, limit, { tx: String(oldest[0]), seq: String(oldest[1]) });
    if (!entries.length) return 0;
    const rows: DB['webhook_deliveries'][] = [];
    for (const e of eps) {
      const at = pos(e);
      const started = parseSnapshot(e.start_snapshot);
      for (const c of entries) {
        if (!before(at, [BigInt(c.tx), BigInt(c.seq)])) continue;
        if (endedBefore(started, c.tx)) continue;
        if (!wants({ events: e.events, portfolioIds: e.portfolio_ids }, c)) continue;
        const id = newId('WebhookDelivery');
        rows.push({
          org_id: orgId,
          id,
          endpoint_id: e.id,
          event: eventOf(c),
          change_tx: c.tx,
          change_seq: c.seq,
          body: deliveryBody(id, c),
        } as never);
      }
    }
    for (let i = 0; i < rows.length; i += 500)
      await tx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500) as never)
        .execute();
    const last = entries.at(-1)!;
    const lastPos = [BigInt(last.tx), BigInt(last.seq)] as const;
    const moved = eps.filter((e) => before(pos(e), lastPos)).map((e) => e.id);
    if (moved.length)
      await sql`update webhook_endpoints set cursor_tx = ${last.tx}::xid8, cursor_seq = ${last.seq}::bigint
        where org_id = ${orgId} and id in (${sql.join(moved)})`.execute(tx);
    return entries.length;
  });
}

export interface Claimed {
  id: string;
  endpointId: string;
  event: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
}

/**
 * Claims up to `limit` due deliveries of an org's enabled endpoints: FOR UPDATE SKIP LOCKED picks
 * rows no other process is claiming, and the same statement moves their next attempt `leaseMs`
 * ahead, so once it commits no other process sees them as due until the lease has passed. A
 * process that dies mid-send leaves them pending; they go out again after the lease.
 * Each endpoint gives at most `perEndpoint` less what this process already sends to it (`busy`,
 * by endpoint id), so one slow endpoint cannot take the org's whole share.
 */
export async function claimDue(
  db: Kysely<DB>,
  orgId: string,
  limit: number,
  leaseMs: number,
  perEndpoint: number,
  busy: ReadonlyMap<string, number> = new Map(),
): Promise<Claimed[]> {
  // A materialized CTE: evaluated exactly once. As `id in (subquery … limit)` the planner may run the
  // subquery again per outer row, and SKIP LOCKED then claimed more rows than the limit (a test saw 4 of 3).
  // The lateral subquery takes each endpoint's oldest due rows up to its room; the rows it locks
  // beyond the outer limit stay pending and are released when the statement ends.
  const { rows } = await sql<Claimed>`
    with picked as materialized (
      select x.id from webhook_endpoints y
      cross join lateral (
        select z.id, z.next_attempt_at from webhook_deliveries z
        where z.org_id = ${orgId} and z.endpoint_id = y.id and z.status = 'pending' and z.next_attempt_at <= now()
        order by z.next_attempt_at
        limit greatest(0, ${perEndpoint}::int - coalesce((${JSON.stringify(Object.fromEntries(busy))}::jsonb ->> y.id)::int, 0))
        for update of z skip locked) x
      where y.org_id = ${orgId} and y.enabled
      order by x.next_attempt_at limit ${limit})
    update webhook_deliveries d
    set next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000}::float8), attempts = d.attempts + 1
    from picked, webhook_endpoints e
    where d.org_id = ${orgId} and d.id = picked.id and e.org_id = ${orgId} and e.id = d.endpoint_id
    returning d.id, d.endpoint_id as "endpointId", d.event, d.body, d.attempts, e.url, e.secret`.execute(db);
  return rows;
}

export async function markDelivered(
  db: Kysely<DB>,
  orgId: string,
  d: { id: string; endpointId: string },
  status: number,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await sql`update webhook_deliveries set status = 'delivered', delivered_at = now(), last_status = ${status}, last_error = null
      where org_id = ${orgId} and id = ${d.id}`.execute(tx);
    await sql`update webhook_endpoints set consecutive_failures = 0
      where org_id = ${orgId} and id = ${d.endpointId} and consecutive_failures <> 0`.execute(tx);
  });
}

/** A failed attempt: the next one at `retryAt`; the endpoint off once `maxFailures` fail in a row. Returns whether it is still on. */
export async function markFailed(
  db: Kysely<DB>,
  orgId: string,
  d: { id: string; endpointId: string },
  failure: { status?: number; error: string },
  retryAt: Date,
  maxFailures: number,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    await sql`update webhook_deliveries set next_attempt_at = ${retryAt}, last_status = ${failure.status ?? null}, last_error = ${failure.error.slice(0, 500)}
      where org_id = ${orgId} and id = ${d.id} and status = 'pending'`.execute(tx);
    const { rows } = await sql<{ enabled: boolean }>`
      update webhook_endpoints set consecutive_failures = consecutive_failures + 1,
        enabled = enabled and consecutive_failures + 1 < ${maxFailures},
        disabled_reason = case when consecutive_failures + 1 >= ${maxFailures}
          then ${`disabled after ${maxFailures} consecutive failed deliveries; last: ${failure.error.slice(0, 200)}`} else disabled_reason end
      where org_id = ${orgId} and id = ${d.endpointId}
      returning enabled`.execute(tx);
    return rows[0]?.enabled ?? false;
  });
}

/** Pending deliveries of an org (tests, the bench). */
export async function pendingCount(db: Kysely<DB>, orgId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from webhook_deliveries
    where org_id = ${orgId} and status = 'pending'`.execute(db);
  return Number(rows[0].n);
}

/** Drops acknowledged deliveries older than `days`, per organization; pending ones stay whatever their age. */
export async function pruneDelivered(db: Kysely<DB>, days: number): Promise<number> {
  let n = 0;
  for (const orgId of await orgsWithAnyEndpoint(db)) {
    const r = await sql`delete from webhook_deliveries where org_id = ${orgId} and status = 'delivered'
      and created_at < now() - make_interval(days => ${days}::int)`.execute(db);
    n += Number(r.numAffectedRows ?? 0);
  }
  return n;
}

async function orgsWithAnyEndpoint(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ org_id: string }>`${sql.raw(CROSS_TENANT)}
    select distinct org_id from webhook_endpoints`.execute(db);
  return rows.map((r) => r.org_id);
}
