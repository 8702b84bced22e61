import type { Context } from '../../context.js';
import { AppError, notFound } from '../../errors.js';
import { forwardConnection, forwardSize } from '../../pagination/connection.js';
import * as repo from './repository.js';
import { newSecret } from './signing.js';
import { checkUrlShape, resolveTarget, TargetRefused } from './targets.js';
import {
  type CreateWebhookEndpointPayloadModel,
  WEBHOOK_EVENTS,
  type WebhookDeliveryConnectionModel,
  type WebhookEndpointModel,
} from './types.js';

const ownersOnly = () =>
  new AppError('FORBIDDEN', 'Only owners of the organization can see and manage its webhook endpoints.');

/** Owners of `orgId` pass; members and guests get FORBIDDEN; anyone else NOT_FOUND. */
function requireOwner(ctx: Context, orgId: string): void {
  const role = ctx.viewer.roleIn(orgId);
  if (role === undefined) throw notFound('Organization');
  if (role !== 'owner') throw ownersOnly();
}

/** The endpoint, when the caller owns its organization; NOT_FOUND outside the caller's orgs. */
async function ownedEndpoint(ctx: Context, id: string): Promise<WebhookEndpointModel> {
  const e = await repo.findEndpoint(ctx.db, ctx.viewer.orgIds, id);
  if (!e) throw notFound('Webhook endpoint');
  requireOwner(ctx, e.orgId);
  return e;
}

const invalid = (field: string, reason: string) =>
  new AppError('VALIDATION_FAILED', 'The webhook endpoint is not valid.', [{ field, reason }]);

/** Checks an endpoint's URL, events and portfolios; shared by GraphQL and `sdg webhook add`. */
export async function validateEndpoint(
  input: { url: string; events: readonly string[]; portfolioIds?: readonly string[] | null },
  allowPrivate: boolean,
  portfolioExists: (id: string) => Promise<boolean>,
): Promise<void> {
  try {
    await resolveTarget(checkUrlShape(input.url), allowPrivate);
  } catch (err) {
    if (err instanceof TargetRefused) throw invalid('url', err.message);
    throw err;
  }
  if (!input.events.length) throw invalid('events', `name at least one of: ${WEBHOOK_EVENTS.join(', ')}`);
  const unknown = input.events.filter((e) => !WEBHOOK_EVENTS.includes(e));
  if (unknown.length)
    throw invalid('events', `unknown ${unknown.join(', ')}; the events are ${WEBHOOK_EVENTS.join(', ')}`);
  for (const id of input.portfolioIds ?? [])
    if (!(await portfolioExists(id)))
      throw invalid('portfolioIds', `no portfolio ${id} in this organization`);
}

export async function createEndpoint(
  ctx: Context,
  input: {
    organizationId: string;
    url: string;
    events: readonly string[];
    portfolioIds?: readonly string[] | null;
  },
): Promise<CreateWebhookEndpointPayloadModel> {
  requireOwner(ctx, input.organizationId);
  const settings = ctx.webhooks;
  await validateEndpoint(input, settings?.allowPrivateTargets ?? false, async (id) =>
    Boolean(await ctx.loaders.portfolio.load({ orgId: input.organizationId, id })),
  );
  const secret = newSecret();
  const endpoint = await repo.insertEndpoint(
    ctx.db,
    {
      orgId: input.organizationId,
      url: input.url,
      events: [...new Set(input.events)],
      portfolioIds: input.portfolioIds?.length ? [...new Set(input.portfolioIds)] : null,
      secret,
      createdBy: ctx.viewer.userId,
    },
    settings?.maxEndpointsPerOrg,
  );
  return { endpoint, secret };
}

export async function deleteEndpoint(ctx: Context, id: string): Promise<{ deletedId: string }> {
  const e = await ownedEndpoint(ctx, id);
  await repo.deleteEndpoint(ctx.db, e.orgId, e.id);
  return { deletedId: e.id };
}

export async function enableEndpoint(ctx: Context, id: string): Promise<{ endpoint: WebhookEndpointModel }> {
  const e = await ownedEndpoint(ctx, id);
  await repo.enableEndpoint(ctx.db, e.orgId, e.id);
  return { endpoint: { ...e, enabled: true, consecutiveFailures: 0, disabledReason: null } };
}

/** `Query.webhookEndpoint`: null outside the caller's organizations, like every other lookup. */
export async function findEndpoint(ctx: Context, id: string): Promise<WebhookEndpointModel | null> {
  const e = await repo.findEndpoint(ctx.db, ctx.viewer.orgIds, id);
  if (!e) return null;
  requireOwner(ctx, e.orgId);
  return e;
}

export async function orgEndpoints(ctx: Context, orgId: string): Promise<WebhookEndpointModel[]> {
  requireOwner(ctx, orgId);
  return repo.listEndpoints(ctx.db, orgId);
}

const scope = (endpointId: string) => `webhook-deliveries:${endpointId}`;

/** The delivery log, newest first. The endpoint was reached through the owner check. */
export async function deliveries(
  ctx: Context,
  e: WebhookEndpointModel,
  args: { first?: number | null; after?: string | null },
): Promise<WebhookDeliveryConnectionModel> {
  const n = forwardSize(args.first);
  let before: { createdAt: string; id: string } | undefined;
  if (args.after != null) {
    const [createdAt, id] = ctx.cursors.decode(scope(e.id), args.after, 2) as string[];
    if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)) || typeof id !== 'string')
      throw new AppError('INVALID_CURSOR', 'The cursor is malformed.');
    before = { createdAt, id };
  }
  const rows = n ? await repo.deliveriesPage(ctx.db, e.orgId, e.id, n + 1, before) : [];
  return forwardConnection(rows, n, args.after, (d) =>
    ctx.cursors.encode(scope(e.id), [d.createdAt.toISOString(), d.id]),
  );
}
