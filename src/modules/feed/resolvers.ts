import type { Resolvers } from '../../generated/graphql.js';
import type { ChangeModel, PropertyChangeModel } from '../changes/index.js';
import type { StoredValue } from '../properties/index.js';
import {
  findRecord,
  type RecordModel,
  schemaOf,
  typedValueOf,
  userMap,
  type ValueModel,
} from '../records/index.js';
import * as service from './service.js';

const history = (
  r: RecordModel,
  args: { first?: number | null; after?: string | null },
  ctx: Parameters<typeof service.recordHistory>[0],
) => service.recordHistory(ctx, r, args);

/** A stored value as a typed value, when its property still exists with a type it fits. */
async function typed(
  ctx: Parameters<typeof schemaOf>[0],
  c: PropertyChangeModel,
  v: unknown,
): Promise<ValueModel | null> {
  if (v == null) return null;
  const def = (await schemaOf(ctx, c.orgId, c.kind)).byId.get(c.propertyId);
  return def ? typedValueOf(ctx, c.orgId, def, v as StoredValue) : null;
}

export const feedResolvers: Resolvers = {
  Project: { history },
  Parcel: { history },
  Contact: { history },
  Portfolio: {
    changes: (p, args, ctx) => service.portfolioChanges(ctx, p, args),
    changesCursor: (p, _a, ctx) => service.changesCursor(ctx, p),
  },
  Subscription: {
    recordChanged: {
      subscribe: (_p, { portfolioId, kinds }, ctx) => service.subscribePortfolio(ctx, portfolioId, kinds),
      resolve: (c: ChangeModel) => c,
    },
    recordUpdated: {
      subscribe: (_p, { id }, ctx) => service.subscribeRecord(ctx, id),
      resolve: (c: ChangeModel) => c,
    },
  },
  ChangeConnection: {
    nodes: (c) => c.edges.map((e) => e.node),
  },
  Change: {
    id: (c) => `chg_${c.seq}`,
    operation: (c) => c.op,
    record: async (c, _a, ctx) =>
      c.op === 'schema' ? null : ((await findRecord(ctx, c.recordKind, c.recordId)) ?? null),
    user: async (c, _a, ctx) => (c.userId ? ((await userMap(ctx, c.orgId)).get(c.userId) ?? null) : null),
    apiKeyId: (c) => c.keyId,
    properties: (c) =>
      c.op === 'create' || c.op === 'update' || c.op === 'delete'
        ? Object.entries(c.changes).map(([propertyId, v]) => {
            const { before = null, after = null } = (v ?? {}) as { before?: unknown; after?: unknown };
            return { orgId: c.orgId, kind: c.recordKind, propertyId, before, after };
          })
        : [],
    schema: (c) => (c.op === 'schema' ? c.changes : null),
  },
  PropertyChange: {
    property: async (c, _a, ctx) => (await schemaOf(ctx, c.orgId, c.kind)).byId.get(c.propertyId) ?? null,
    before: (c, _a, ctx) => typed(ctx, c, c.before),
    after: (c, _a, ctx) => typed(ctx, c, c.after),
    stored: (c) => ({ before: c.before, after: c.after }),
  },
};
