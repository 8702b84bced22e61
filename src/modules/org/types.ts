import type { AccessRole, Viewer } from '../auth/index.js';

/** Domain types of the org module; resolvers and REST see these, never row types. */
export interface OrgModel {
  id: string;
  /** Absent on a stub: the org is known to exist (the caller belongs to it) and is loaded only if a field needs it. */
  name?: string;
  createdAt?: Date;
}

export interface PortfolioModel {
  orgId: string;
  id: string;
  name: string;
  createdAt: Date;
}

export interface UserModel {
  id: string;
  email: string;
  name: string;
  /** Role in the organization this user was listed for. */
  role?: AccessRole | null;
  /** For a guest of that organization: the portfolios they were granted. */
  guestOf?: readonly string[];
}

export type ViewerModel = Viewer;
