import type { Resolvers } from '../../generated/graphql.js';
import * as service from './service.js';

export const orgResolvers: Resolvers = {
  Query: {
    viewer: (_p, _a, ctx) => ctx.viewer,
    organizations: (_p, _a, ctx) => service.viewerOrganizations(ctx),
    organization: (_p, { id }, ctx) => service.findOrganization(ctx, id),
  },
  Viewer: {
    user: (v) => ({ id: v.userId, email: v.email, name: v.name }),
    organizations: (v, _a, ctx) => service.viewerOrganizations(ctx, v),
  },
  Organization: {
    name: async (o, _a, ctx) => o.name ?? (await service.loadOrganization(ctx, o)).name!,
    viewerRole: (o, _a, ctx) => ctx.viewer.roleIn(o.id)!,
    portfolios: (o, _a, ctx) => service.readablePortfolios(ctx, o.id),
    portfolio: (o, { id }, ctx) => service.readablePortfolio(ctx, o.id, id),
    users: (o, _a, ctx) => service.visibleOrgUsers(ctx, o.id),
  },
  Portfolio: {
    organization: (p) => ({ id: p.orgId }),
  },
  User: {
    role: (u) => u.role ?? null,
  },
};
