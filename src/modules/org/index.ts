/**
 * The org module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Organizations, portfolios, users, members and guests.
 */
export {
  type By,
  createUserKey,
  grantGuestAccess,
  inviteUser,
  removeMember,
  requireManager,
  revokeGuestAccess,
  revokeUserKey,
  setMemberRole,
} from './admin.js';
export { createOrgLoaders } from './loaders.js';
export {
  addMember,
  createOrg,
  createPortfolio,
  createUser,
  findPortfolio,
  findUser,
  grantGuest,
  listOrgUsers,
  listPortfolios,
  orgsByIds,
  orgUsersByIds,
} from './repository.js';
export { findOrganization, portfolioById, readablePortfolio, userById, visibleOrgUsers } from './service.js';
export type { PortfolioModel, UserModel } from './types.js';
