/** Readable GeoJSON for tests: rings written as "x y, x y, …", as in WKT. */

const ringOf = (s: string) => s.split(',').map((p) => p.trim().split(/\s+/).map(Number));

export const polygon = (...rings: string[]) => ({ type: 'Polygon', coordinates: rings.map(ringOf) });

/** An axis-aligned square with its corner at (x, y), closed, counter-clockwise. */
export const square = (x: number, y: number, s: number) =>
  polygon(`${x} ${y}, ${x + s} ${y}, ${x + s} ${y + s}, ${x} ${y + s}, ${x} ${y}`);

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
