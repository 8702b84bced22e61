import { area } from '@turf/area';
import { kinks } from '@turf/kinks';
import type { Polygon } from 'geojson';
import type { GeoPointModel } from './types.js';

type Ring = [number, number][];

/**
 * Signed area and centroid of one ring (shoelace), in planar lon/lat relative to `origin`. Working
 * relative to a nearby origin keeps the products small: with raw coordinates (lon ≈ −100) the
 * cross products are ~10⁴ while a parcel's area is ~10⁻⁵ deg², and cancellation costs ~10⁻⁷ degrees.
 */
function ringStats(ring: Ring, origin: [number, number]): { area: number; cx: number; cy: number } {
  const [ox, oy] = origin;
  let a = 0;
  let cx = 0;
  let cy = 0;
  for (let i = 0, n = ring.length; i < n; i++) {
    const x0 = ring[i][0] - ox;
    const y0 = ring[i][1] - oy;
    const x1 = ring[(i + 1) % n][0] - ox;
    const y1 = ring[(i + 1) % n][1] - oy;
    const f = x0 * y1 - x1 * y0;
    a += f;
    cx += (x0 + x1) * f;
    cy += (y0 + y1) * f;
  }
  a /= 2;
  return a === 0 ? { area: 0, cx: 0, cy: 0 } : { area: a, cx: cx / (6 * a), cy: cy / (6 * a) };
}

const isPosition = (p: unknown): boolean =>
  Array.isArray(p) &&
  p.length >= 2 &&
  p.every((v) => typeof v === 'number' && Number.isFinite(v)) &&
  Math.abs(p[0]) <= 180 &&
  Math.abs(p[1]) <= 90;

function ringProblem(ring: unknown): string | undefined {
  if (!Array.isArray(ring)) return 'must be an array of positions';
  if (ring.length < 4) return 'must have at least 4 positions (a closed triangle)';
  const bad = ring.findIndex((p) => !isPosition(p));
  if (bad >= 0) return `position ${bad} must be [longitude (-180..180), latitude (-90..90)] in numbers`;
  const [a, z] = [ring[0], ring[ring.length - 1]];
  if (a[0] !== z[0] || a[1] !== z[1]) return 'must be closed: the last position repeats the first';
  return undefined;
}

/** Most positions in one geometry: a county parcel has tens, a traced one a few thousand. */
export const MAX_GEOMETRY_POSITIONS = 50_000;

/** The ring without positions that repeat the one before (legal in GeoJSON, but not a crossing). */
const withoutRepeats = (ring: Ring): Ring =>
  ring.filter((p, i) => i === 0 || p[0] !== ring[i - 1][0] || p[1] !== ring[i - 1][1]);

function polygonProblem(rings: unknown): string | undefined {
  if (!Array.isArray(rings) || rings.length === 0) return 'must be a non-empty array of linear rings';
  for (let i = 0; i < rings.length; i++) {
    const p = ringProblem(rings[i]);
    if (p) return `ring ${i} ${p}`;
  }
  // A ring that crosses itself or another ring of its polygon ("bow-tie") has no well-defined
  // inside: its area, and whether a point is in it, depend on who computes them. Rings that only
  // touch at a vertex or run along a shared edge (a hole drawn against the boundary) keep one
  // inside, as they always have here: a point where two edges cross counts only off the vertices.
  const simple: Polygon = { type: 'Polygon', coordinates: (rings as Ring[]).map(withoutRepeats) };
  const vertices = new Set(simple.coordinates.flat().map(([x, y]) => `${x},${y}`));
  const crossing = kinks(simple)
    .features.map((f) => f.geometry.coordinates)
    .find(([x, y]) => !vertices.has(`${x},${y}`));
  if (crossing)
    return `has edges that cross at [${crossing.map((v) => Math.round(v * 1e7) / 1e7).join(', ')}]; a boundary must not cross itself (draw a "bow-tie" as two polygons of a MultiPolygon)`;
  return undefined;
}

const positionsIn = (g: { coordinates?: unknown }): number => (g.coordinates as unknown[]).flat(2).length;

/**
 * Why a GeoJSON Polygon or MultiPolygon is unusable (RFC 7946 §3.1.6–3.1.7: closed rings of at least
 * four WGS 84 positions), or undefined when it is fine.
 */
export function geometryProblem(geometry: unknown): string | undefined {
  const g = geometry as { type?: unknown; coordinates?: unknown } | null;
  const many = Array.isArray(g?.coordinates) && positionsIn(g) > MAX_GEOMETRY_POSITIONS;
  if (many) return `has more than ${MAX_GEOMETRY_POSITIONS} positions; simplify it first`;
  if (g?.type === 'Polygon') return polygonProblem(g.coordinates);
  if (g?.type === 'MultiPolygon') {
    if (!Array.isArray(g.coordinates) || g.coordinates.length === 0)
      return 'MultiPolygon coordinates must be a non-empty array of polygons';
    for (let i = 0; i < g.coordinates.length; i++) {
      const p = polygonProblem(g.coordinates[i]);
      if (p) return `polygon ${i}: ${p}`;
    }
    return undefined;
  }
  return 'must be a Polygon or MultiPolygon';
}

function polygons(geometry: unknown): Ring[][] {
  const g = geometry as { type?: string; coordinates?: unknown } | null;
  if (g?.type === 'Polygon') return [g.coordinates as Ring[]];
  if (g?.type === 'MultiPolygon') return g.coordinates as Ring[][];
  return [];
}

/**
 * The area-weighted centroid of all polygons, holes subtracted. Planar in degrees: at parcel scale
 * (a few km) the error against a geodesic centroid is far below a metre's worth of a degree.
 */
export function areaWeightedCentroid(geometries: unknown[]): GeoPointModel | null {
  let total = 0;
  let sx = 0;
  let sy = 0;
  let origin: [number, number] | undefined;
  for (const g of geometries) {
    for (const poly of polygons(g)) {
      poly.forEach((ring, i) => {
        if (!ring.length) return;
        origin ??= [ring[0][0], ring[0][1]];
        const s = ringStats(ring, origin);
        const area = Math.abs(s.area) * (i === 0 ? 1 : -1);
        total += area;
        sx += s.cx * area;
        sy += s.cy * area;
      });
    }
  }
  if (total <= 0 || !origin) return null;
  const round = (v: number) => Math.round(v * 1e7) / 1e7;
  return { type: 'Point', coordinates: [round(origin[0] + sx / total), round(origin[1] + sy / total)] };
}

/** Square metres in an international acre. */
const M2_PER_ACRE = 4046.8564224;

/** What is stored beside a parcel's geometry, so that maps and filters need not read it. */
export interface GeometryColumns {
  /** Geodesic area in acres, holes subtracted (a sphere of WGS 84's equatorial radius). */
  acres: number;
  /** The bounding box, as Postgres's `box` text: `(east,north),(west,south)`. */
  bounds: string;
  /** Each polygon's outer ring, as Postgres's `polygon[]` text, for the exact spatial tests. */
  rings: string;
}

/**
 * The stored columns of a valid geometry (geometryProblem found nothing). Postgres's geometric
 * types are planar: in longitude and latitude, which is how every spatial filter compares them.
 */
export function geometryColumns(geometry: unknown): GeometryColumns {
  const polys = polygons(geometry);
  let [w, s, e, n] = [180, 90, -180, -90];
  const rings: string[] = [];
  for (const poly of polys) {
    const outer = poly[0];
    for (const [x, y] of outer) {
      if (x < w) w = x;
      if (x > e) e = x;
      if (y < s) s = y;
      if (y > n) n = y;
    }
    rings.push(`"(${outer.map(([x, y]) => `(${x},${y})`).join(',')})"`);
  }
  const acres = area(geometry as Polygon) / M2_PER_ACRE;
  return {
    acres: Math.round(acres * 1e4) / 1e4,
    bounds: `(${e},${n}),(${w},${s})`,
    rings: `{${rings.join(',')}}`,
  };
}
