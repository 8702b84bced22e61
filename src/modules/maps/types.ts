import type { Geometry } from 'geojson';
import type { ConnectionModel } from '../records/index.js';

/** The map layers: a portfolio's parcels (boundaries) or projects (locations). */
export type MapLayerName = 'PARCELS' | 'PROJECTS';

/** One record as a GeoJSON Feature: its id, its geometry, and its values flattened for map styles. */
export interface FeatureModel {
  type: 'Feature';
  id: string;
  geometry: Geometry | null;
  properties: Record<string, string | number | boolean>;
}

/** A page of a portfolio's records as a GeoJSON FeatureCollection, with the list's paging. */
export interface FeatureCollectionModel {
  type: 'FeatureCollection';
  features: FeatureModel[];
  pageInfo: ConnectionModel['pageInfo'];
  /** Computed only when a client asks for it. */
  totalCount: () => Promise<number>;
  /** Whether totalCount is an estimate (the records module's rule). */
  totalCountIsEstimate: () => Promise<boolean>;
}

/** One Mapbox Vector Tile of a layer. */
export interface VectorTileModel {
  /** The encoded tile (MVT 2.1, protobuf), base64. */
  data: string;
  features: number;
  bytes: number;
  /** More records than MAX_TILE_FEATURES matched: the largest were drawn, the rest left out. */
  thinned: boolean;
}
