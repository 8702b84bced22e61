/** Readable GeoJSON for tests: rings written as "x y, x y, …", as in WKT. */

const ringOf = (s: string) => s.split(',').map((p) => p.trim().split(/\s+/).map(Number));

export const polygon = (...rings: string[]) => ({ type: 'Polygon', coordinates: rings.map(ringOf) });

// The benches lay parcels with it too: it lives in bench/ so that the bench build takes in no test helper.
export { square } from '../../bench/geo.js';

/** The smallest valid parcel: a closed triangle. */
export const TRIANGLE = polygon('0 0, 1 0, 1 1, 0 0');

/** A FeatureCollection of these geometries, each with its properties (none by default). */
export const features = (...fs: { geometry: unknown; properties?: Record<string, unknown> }[]) => ({
  type: 'FeatureCollection',
  features: fs.map((f) => ({ type: 'Feature', properties: {}, ...f })),
});

/** A place in Lubbock County, Texas, that tests lay parcels around by hand. */
export const LON = -101.9;
export const LAT = 33.5;

export type Ring = [number, number][];

/** An axis-aligned square ring, closed, with its south-west corner at (LON + x, LAT + y), side `d` degrees. */
export const squareNear = (x: number, y: number, d: number): Ring => [
  [LON + x, LAT + y],
  [LON + x + d, LAT + y],
  [LON + x + d, LAT + y + d],
  [LON + x, LAT + y + d],
  [LON + x, LAT + y],
];
