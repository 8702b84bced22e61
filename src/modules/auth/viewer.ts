import type { OrgRole } from '../../db/types.js';

export type AccessRole = OrgRole | 'guest';

/**
 * The authenticated caller and everything they can reach, loaded with the key in one statement.
 * Every access decision is made here, in memory, so no resolver issues a query just to check access.
 */
export class Viewer {
  constructor(
    readonly userId: string,
    readonly email: string,
    readonly name: string,
    /** org id → role, for organization members. */
    readonly orgRoles: ReadonlyMap<string, OrgRole>,
    /** org id → portfolio ids, for guests. */
    readonly guestPortfolios: ReadonlyMap<string, ReadonlySet<string>>,
    /** org id → its version (bumped on any schema, membership, portfolio or user-name change). */
    readonly orgVersions: ReadonlyMap<string, number> = new Map(),
    /** The API key that authenticated this caller (recorded in the change log). */
    readonly keyId: string | null = null,
  ) {}

  /** Organizations the caller reaches, as a member or as a guest. */
  get orgIds(): string[] {
    return [...new Set([...this.orgRoles.keys(), ...this.guestPortfolios.keys()])];
  }

  roleIn(orgId: string): AccessRole | undefined {
    return this.orgRoles.get(orgId) ?? (this.guestPortfolios.has(orgId) ? 'guest' : undefined);
  }

  canReadOrg(orgId: string): boolean {
    return this.roleIn(orgId) !== undefined;
  }

  /** Portfolio ids a guest reaches in `orgId`; `undefined` means every portfolio (members). */
  portfolioScope(orgId: string): ReadonlySet<string> | undefined {
    if (this.orgRoles.has(orgId)) return undefined;
    return this.guestPortfolios.get(orgId) ?? new Set();
  }

  canReadPortfolio(orgId: string, portfolioId: string): boolean {
    if (this.orgRoles.has(orgId)) return true;
    return this.guestPortfolios.get(orgId)?.has(portfolioId) ?? false;
  }

  /** Read-only roles may see a portfolio but not change it; callers check canReadPortfolio first. */
  canWriteIn(orgId: string): boolean {
    const role = this.roleIn(orgId);
    return role !== undefined && role !== 'viewer';
  }
}
