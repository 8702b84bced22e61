import type { Feature } from 'geojson';
import GeoJSONVT from 'geojson-vt';
import vtpbf from 'vt-pbf';
import { AppError, type ErrorDetail } from '../../errors.js';

/** Zooms the tile grid serves: MapLibre's own range. */
export const MIN_TILE_ZOOM = 0;
export const MAX_TILE_ZOOM = 22;
/**
 * Most records one tile draws. Past it the tile is thinned: the records with the largest boxes are
 * drawn, the rest left out (VectorTile.thinned says so). The GraphQL cost of a tile is this bound.
 */
export const MAX_TILE_FEATURES = 20_000;
/** The tile's coordinate space (MVT's usual 4096) and the margin drawn around it, so strokes join. */
export const TILE_EXTENT = 4096;
export const TILE_BUFFER = 64;
/**
 * Below this size, in pixels of a 256-pixel tile, a record is drawn from its stored box instead of
 * its boundary, and of several in one such cell only the largest is drawn (maps/repository.ts
 * tileRecords): at that size they are specks either way, their boundaries are never read, and a
 * tile over a whole county holds at most a feature per cell, not one per parcel.
 */
const BOX_PIXELS = 2;

export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

/** Longitude and latitude bounds (WGS 84). */
export interface LonLatBox {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** Why z/x/y is not a tile of the grid, each problem a detail; throws VALIDATION_FAILED. */
export function checkTile({ z, x, y }: TileAddress): void {
  const details: ErrorDetail[] = [];
  if (!Number.isInteger(z) || z < MIN_TILE_ZOOM || z > MAX_TILE_ZOOM)
    details.push({ field: 'z', reason: `z must be an integer from ${MIN_TILE_ZOOM} to ${MAX_TILE_ZOOM}` });
  else {
    const n = 2 ** z;
    for (const [field, v] of [
      ['x', x],
      ['y', y],
    ] as const)
      if (!Number.isInteger(v) || v < 0 || v >= n)
        details.push({ field, reason: `${field} must be an integer from 0 to ${n - 1} at zoom ${z}` });
  }
  if (details.length)
    throw new AppError(
      'VALIDATION_FAILED',
      'The tile address is outside the tile grid; see details.',
      details,
    );
}

const lonOf = (x: number, n: number) => (x / n) * 360 - 180;
const latOf = (y: number, n: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The tile's box in longitude and latitude, grown by the buffer the tile draws beyond its edge. */
export function tileBox({ z, x, y }: TileAddress): LonLatBox {
  const n = 2 ** z;
  const b = TILE_BUFFER / TILE_EXTENT;
  return {
    west: clamp(lonOf(x - b, n), -180, 180),
    east: clamp(lonOf(x + 1 + b, n), -180, 180),
    north: clamp(latOf(y - b, n), -90, 90),
    south: clamp(latOf(y + 1 + b, n), -90, 90),
  };
}

/**
 * The smallest box, in degrees of longitude and latitude, whose records are drawn from their
 * boundary at this tile; smaller ones are drawn from their box (see BOX_PIXELS).
 */
export function boxThreshold({ z, y }: TileAddress): { lon: number; lat: number } {
  const n = 2 ** z;
  const lon = (360 / n / 256) * BOX_PIXELS;
  // A Mercator pixel spans fewer degrees of latitude than of longitude, by cos(latitude).
  const lat = lon * Math.cos((latOf(y + 0.5, n) * Math.PI) / 180);
  return { lon, lat };
}

/**
 * The features cut to one tile, clipped to its extent and buffer and simplified for its zoom by
 * geojson-vt, then encoded as MVT by vt-pbf, in one layer; with the number of features drawn
 * (geojson-vt leaves out a ring that simplifies to nothing at this zoom).
 */
export function encodeTile(
  layer: string,
  features: Feature[],
  t: TileAddress,
): { bytes: Uint8Array; features: number } {
  const index = new GeoJSONVT(
    { type: 'FeatureCollection', features },
    {
      // Simplified at every zoom up to the deepest the grid serves (geojson-vt leaves maxZoom's
      // tiles unsimplified); one tile is asked for, so no index of other tiles is built ahead.
      maxZoom: MAX_TILE_ZOOM,
      indexMaxZoom: 0,
      extent: TILE_EXTENT,
      buffer: TILE_BUFFER,
    },
  );
  // No tile: nothing reaches it (or what does is too small to draw); the layer is sent empty.
  const tile = index.getTile(t.z, t.x, t.y) ?? { features: [] };
  const bytes = vtpbf.fromGeojsonVt({ [layer]: tile }, { version: 2, extent: TILE_EXTENT });
  return { bytes, features: tile.features.length };
}
