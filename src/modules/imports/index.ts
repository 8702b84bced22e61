/**
 * The imports module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Bulk imports from files (the CLI): parcels from GeoJSON, newline-delimited GeoJSON or CSV, read
 * as streams and written in batches through the sync module's bulk upsert (the API's service),
 * optionally matched by external id and linked to a project.
 */
export {
  IMPORT_BATCH,
  type ImportOptions,
  type ImportProgress,
  type ImportResult,
  importParcels,
} from './parcels.js';
export { describeProgress, describeSummary, type ProgressView } from './progress.js';
export {
  type FeatureSource,
  formatOf,
  GEOMETRY_COLUMNS,
  IMPORT_FORMATS,
  type ImportFormat,
  KNOWN_EXTENSIONS,
  openFeatureSource,
} from './readers.js';
