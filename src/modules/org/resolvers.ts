import type { Resolvers } from '../../generated/graphql.js';
import * as admin from './admin.js';
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
    auditLog: (o, args, ctx) => admin.auditLog(ctx, o.id, args),
  },
  Mutation: {
    inviteUser: async (_p, { input: i }, ctx) => {
      const r = await admin.inviteUser(ctx.db, admin.byViewer(ctx, i.organizationId), i.organizationId, i);
      return {
        user: r.user,
        role: r.role,
        userCreated: r.created,
        apiKey: r.key?.apiKey ?? null,
        apiKeyId: r.key?.id ?? null,
      };
    },
    setMemberRole: (_p, { input: i }, ctx) =>
      admin.setMemberRole(ctx.db, admin.byViewer(ctx, i.organizationId), i.organizationId, i.userId, i.role),
    removeMember: async (_p, { input: i }, ctx) => ({
      userId: await admin.removeMember(
        ctx.db,
        admin.byViewer(ctx, i.organizationId),
        i.organizationId,
        i.userId,
      ),
    }),
    grantGuestAccess: (_p, { input: i }, ctx) =>
      admin.grantGuestAccess(
        ctx.db,
        admin.byViewer(ctx, i.organizationId),
        i.organizationId,
        i.portfolioId,
        i.userId,
      ),
    revokeGuestAccess: (_p, { input: i }, ctx) =>
      admin.revokeGuestAccess(
        ctx.db,
        admin.byViewer(ctx, i.organizationId),
        i.organizationId,
        i.portfolioId,
        i.userId,
      ),
    createApiKey: async (_p, { input: i }, ctx) => {
      const k = await admin.createUserKey(
        ctx.db,
        admin.byViewer(ctx, i.organizationId),
        i.organizationId,
        i.userId ?? ctx.viewer.userId,
        i,
      );
      return { apiKey: k.apiKey, id: k.id, prefix: k.prefix, userId: k.userId };
    },
    revokeApiKey: async (_p, { input: i }, ctx) => ({
      revokedId: (
        await admin.revokeUserKey(ctx.db, admin.byViewer(ctx, i.organizationId), i.organizationId, i.id)
      ).id,
    }),
  },
  Portfolio: {
    organization: (p) => ({ id: p.orgId }),
  },
  User: {
    role: (u) => u.role ?? null,
  },
};
