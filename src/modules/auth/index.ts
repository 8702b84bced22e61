/**
 * The auth module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Who is calling: API keys, their hashes and lookup, and the viewer a request acts as.
 */
export { hashApiKey } from './keys.js';
export {
  type CreatedKey,
  createApiKey,
  findApiKey,
  findViewerByHash,
  findViewerByKey,
  revokeApiKey,
} from './repository.js';
export type { AccessRole, Viewer } from './viewer.js';
