import type { Resolvers } from '../generated/graphql.js';
import { typeOfId } from '../ids.js';
import { findOrganization, portfolioById, userById } from '../modules/org/index.js';
import { findRecord } from '../modules/records/index.js';

/** `node(id)`: the id's prefix names its type; out-of-reach objects resolve to null like absent ones. */
export const nodeResolvers: Resolvers = {
  Query: {
    node: async (_p, { id }, ctx) => {
      switch (typeOfId(id)) {
        case 'Organization':
          return findOrganization(ctx, id);
        case 'Portfolio':
          return portfolioById(ctx, id);
        case 'User':
          return userById(ctx, id);
        case 'Project':
          return (await findRecord(ctx, 'project', id)) ?? null;
        case 'Parcel':
          return (await findRecord(ctx, 'parcel', id)) ?? null;
        case 'Contact':
          return (await findRecord(ctx, 'contact', id)) ?? null;
        default:
          return null;
      }
    },
  },
  Node: {
    __resolveType: (obj) => {
      const t = typeOfId((obj as { id: string }).id);
      return t === 'ApiKey' || t === 'WebhookEndpoint' || t === 'WebhookDelivery' || !t ? null : t;
    },
  },
};
