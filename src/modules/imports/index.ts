/**
 * The imports module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Bulk imports from files (the CLI): parcels from GeoJSON, linked to a project.
 */
export { importParcels } from './parcels.js';
