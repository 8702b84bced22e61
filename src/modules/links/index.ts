/**
 * The links module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Links between records (project–parcel, project–contact, parcel–contact) and the project location they imply.
 */
export {
  bulkLink,
  type ContactLinkTable,
  linkParcelsToProject,
  recomputeProjectLocation,
  setContactLinks,
} from './repository.js';
