import type { Context } from '../../context.js';
import type { Viewer } from '../auth/index.js';
import * as repo from './repository.js';
import type { OrgModel, PortfolioModel, UserModel } from './types.js';

/**
 * Access to organizations, portfolios and users. Every rule is the viewer's (decided in memory,
 * src/modules/auth/viewer.ts); out-of-reach answers exactly like absent (null).
 */

/** Organizations the viewer reaches, oldest first. */
export async function viewerOrganizations(ctx: Context, viewer: Viewer = ctx.viewer): Promise<OrgModel[]> {
  const orgs = await ctx.loaders.org.loadMany(viewer.orgIds);
  return orgs
    .filter((o): o is OrgModel => !!o && !(o instanceof Error))
    .sort((a, b) => a.createdAt!.getTime() - b.createdAt!.getTime() || a.id.localeCompare(b.id));
}

/** Membership rows reference the org, so a reachable org exists: no query until a field needs one. */
export function findOrganization(ctx: Context, id: string): OrgModel | null {
  return ctx.viewer.canReadOrg(id) ? { id } : null;
}

/** The org's row behind a stub from findOrganization (its name, when a field asks for it). */
export async function loadOrganization(ctx: Context, o: OrgModel): Promise<OrgModel> {
  const row = await ctx.loaders.org.load(o.id);
  if (!row) throw new Error(`organization ${o.id} vanished`);
  return row;
}

/** The portfolios of an org the viewer reaches: all of them for members, the granted ones for guests. */
export async function readablePortfolios(ctx: Context, orgId: string): Promise<PortfolioModel[]> {
  const scope = ctx.viewer.portfolioScope(orgId);
  const all = await ctx.loaders.orgPortfolios.load(orgId);
  return scope ? all.filter((p) => scope.has(p.id)) : all;
}

/** One portfolio of an org, or null when absent or out of reach. */
export async function readablePortfolio(ctx: Context, orgId: string, id: string) {
  if (!ctx.viewer.canReadPortfolio(orgId, id)) return null;
  return (await ctx.loaders.portfolio.load({ orgId, id })) ?? null;
}

/** A portfolio by id alone (`node(id)`), among the viewer's organizations. */
export async function portfolioById(ctx: Context, id: string): Promise<PortfolioModel | null> {
  const p = await repo.portfolioInOrgs(ctx.db, id, ctx.viewer.orgIds);
  return p && ctx.viewer.canReadPortfolio(p.orgId, p.id) ? p : null;
}

/**
 * The users of an org the viewer may see (README, Decisions: "Who sees whom"). Members see every
 * member and guest. A guest sees the members, themselves, and the guests who share one of their
 * portfolios; a guest who reaches only other portfolios stays out of sight, e-mail and all.
 */
export async function visibleOrgUsers(ctx: Context, orgId: string): Promise<UserModel[]> {
  const all = await ctx.loaders.orgUsers.load(orgId);
  const scope = ctx.viewer.portfolioScope(orgId);
  if (!scope) return all;
  return all.filter((u) => !u.guestOf || u.id === ctx.viewer.userId || u.guestOf.some((p) => scope.has(p)));
}

/** A user by id alone (`node(id)`): the viewer, or a user they may see in one of their organizations. */
export async function userById(ctx: Context, id: string): Promise<UserModel | null> {
  if (id === ctx.viewer.userId) return { id, email: ctx.viewer.email, name: ctx.viewer.name };
  for (const orgId of ctx.viewer.orgIds)
    for (const u of await visibleOrgUsers(ctx, orgId)) if (u.id === id) return { ...u, role: null };
  return null;
}
