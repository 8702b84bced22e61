import type { Context } from '../../context.js';
import type { Resolvers, Role } from '../../generated/graphql.js';
import type { Viewer } from '../auth/viewer.js';
import type { OrgModel } from './types.js';

const role = (r: string | null | undefined) => (r ? (r.toUpperCase() as Role) : null);

/** Organizations the viewer reaches, oldest first. */
async function viewerOrgs(ctx: Context, viewer: Viewer): Promise<OrgModel[]> {
  const orgs = await ctx.loaders.org.loadMany(viewer.orgIds);
  return orgs
    .filter((o): o is OrgModel => !!o && !(o instanceof Error))
    .sort((a, b) => a.createdAt!.getTime() - b.createdAt!.getTime() || a.id.localeCompare(b.id));
}

/** Membership rows reference the org, so a reachable org exists: no query until a field needs one. */
export function findOrg(ctx: Context, id: string): OrgModel | null {
  return ctx.viewer.canReadOrg(id) ? { id } : null;
}

async function loadOrg(ctx: Context, o: OrgModel) {
  const row = await ctx.loaders.org.load(o.id);
  if (!row) throw new Error(`organization ${o.id} vanished`);
  return row;
}

export async function findPortfolio(ctx: Context, orgId: string, id: string) {
  if (!ctx.viewer.canReadPortfolio(orgId, id)) return null;
  return (await ctx.loaders.portfolio.load({ orgId, id })) ?? null;
}

export const orgResolvers: Resolvers = {
  Query: {
    viewer: (_p, _a, ctx) => ctx.viewer,
    organizations: (_p, _a, ctx) => viewerOrgs(ctx, ctx.viewer),
    organization: (_p, { id }, ctx) => findOrg(ctx, id),
  },
  Viewer: {
    user: (v) => ({ id: v.userId, email: v.email, name: v.name }),
    organizations: (v, _a, ctx) => viewerOrgs(ctx, v),
  },
  Organization: {
    name: async (o, _a, ctx) => o.name ?? (await loadOrg(ctx, o)).name!,
    viewerRole: (o, _a, ctx) => role(ctx.viewer.roleIn(o.id))!,
    portfolios: async (o, _a, ctx) => {
      const scope = ctx.viewer.portfolioScope(o.id);
      const all = await ctx.loaders.orgPortfolios.load(o.id);
      return scope ? all.filter((p) => scope.has(p.id)) : all;
    },
    portfolio: (o, { id }, ctx) => findPortfolio(ctx, o.id, id),
    users: (o, _a, ctx) => ctx.loaders.orgUsers.load(o.id),
  },
  Portfolio: {
    organization: (p) => ({ id: p.orgId }),
  },
  User: {
    role: (u) => role(u.role),
  },
};
