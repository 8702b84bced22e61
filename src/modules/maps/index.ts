/**
 * The maps module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Maps of a portfolio's records: GeoJSON FeatureCollections and Mapbox Vector Tiles, filtered like
 * the record lists.
 */
export { keptFields, layerFields, MAX_TILE_FIELDS } from './properties.js';
export { LAYER_ID, LAYER_KIND } from './service.js';
export {
  MAX_TILE_FEATURES,
  MAX_TILE_ZOOM,
  MIN_TILE_ZOOM,
  TILE_BUFFER,
  TILE_EXTENT,
} from './tiles.js';
export type { FeatureCollectionModel, FeatureModel, MapLayerName, VectorTileModel } from './types.js';
