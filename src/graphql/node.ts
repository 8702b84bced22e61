import type { Resolvers } from '../generated/graphql.js';
import { typeOfId } from '../ids.js';
import { findPortfolioAnywhere } from '../modules/org/repository.js';
import { findOrg } from '../modules/org/resolvers.js';
import { findRecord } from '../modules/records/service.js';

/** `node(id)`: the id's prefix names its type; out-of-reach objects resolve to null like absent ones. */
export const nodeResolvers: Resolvers = {
  Query: {
    node: async (_p, { id }, ctx) => {
      switch (typeOfId(id)) {
        case 'Organization':
          return findOrg(ctx, id);
        case 'Portfolio': {
          const p = await findPortfolioAnywhere(ctx.db, id, ctx.viewer.orgIds);
          return p && ctx.viewer.canReadPortfolio(p.orgId, p.id) ? p : null;
        }
        case 'User': {
          if (id === ctx.viewer.userId) return { id, email: ctx.viewer.email, name: ctx.viewer.name };
          const lists = await ctx.loaders.orgUsers.loadMany(ctx.viewer.orgIds);
          for (const l of lists)
            if (Array.isArray(l)) for (const u of l) if (u.id === id) return { ...u, role: null };
          return null;
        }
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
      return t === 'ApiKey' || !t ? null : t;
    },
  },
};
