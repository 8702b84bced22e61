import { circle } from '@turf/circle';
import { type RawBuilder, sql } from 'kysely';
import type { RecordKind } from '../../db/types.js';
import { geometryProblem } from './geo.js';

/**
 * The spatial conditions of a list filter (`bbox`, `intersects`, `within`, `dWithin`), compiled to
 * SQL over the child record alias `c` with Postgres's own geometric types (migrations/0009), so
 * they run the same on PGlite, Postgres and Citus. A parcel is tested by its boundary: the GiST
 * index on `bounds` narrows the candidates, then each polygon's outer ring (`rings`) decides. A
 * project is tested by its location (`bounds` holds it as a box of one point). Coordinates are
 * longitude and latitude, compared as planar numbers, as GeoJSON draws them.
 *
 * A record without geometry or location matches no spatial condition (and so matches its `not`).
 * Contacts have no geometry: a spatial condition on them is refused.
 */

export interface BBoxInput {
  west: number;
  south: number;
  east: number;
  north: number;
}

export interface DistanceInput {
  longitude: number;
  latitude: number;
  meters: number;
}

export interface SpatialInput {
  bbox?: BBoxInput | null;
  intersects?: unknown;
  within?: unknown;
  dWithin?: DistanceInput | null;
}

export const SPATIAL_FIELDS = ['bbox', 'intersects', 'within', 'dWithin'] as const;

/** Most positions in one filter geometry, like the other bounds of a filter. */
export const MAX_FILTER_POSITIONS = 1_000;
/** Largest `dWithin` distance: a thousand kilometres. */
export const MAX_DISTANCE_METERS = 1_000_000;
/** Sides of the polygon that stands for a `dWithin` circle: its chords fall short of the arc by 1 − cos(π/64) of the radius. */
const CIRCLE_STEPS = 64;

type Ring = [number, number][];
type Problem = (field: string, reason: string) => RawBuilder<unknown>;

const polygonText = (ring: Ring) => `(${ring.map(([x, y]) => `(${x},${y})`).join(',')})`;

function boxOf(rings: Ring[]): string {
  let [w, s, e, n] = [180, 90, -180, -90];
  for (const ring of rings)
    for (const [x, y] of ring) {
      if (x < w) w = x;
      if (x > e) e = x;
      if (y < s) s = y;
      if (y > n) n = y;
    }
  return `(${e},${n}),(${w},${s})`;
}

/** The outer rings of a filter geometry, or why it is unusable. */
function outerRings(g: unknown): Ring[] | string {
  const problem = geometryProblem(g);
  if (problem) return `the GeoJSON geometry ${problem}`;
  const geo = g as { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown };
  const polygons = (geo.type === 'Polygon' ? [geo.coordinates] : geo.coordinates) as Ring[][];
  if (polygons.flat(2).length > MAX_FILTER_POSITIONS)
    return `at most ${MAX_FILTER_POSITIONS} positions in a filter geometry; simplify it first`;
  if (polygons.some((p) => p.length > 1))
    return 'filter polygons have no holes; give the area as one outer ring per polygon';
  return polygons.map((p) => p[0]);
}

/** Records whose geometry meets any of these rings (each a polygon's outer ring). */
function meets(kind: RecordKind, rings: Ring[]): RawBuilder<unknown> {
  const box = sql`${boxOf(rings)}::box`;
  const any = (test: (poly: RawBuilder<unknown>) => RawBuilder<unknown>) =>
    sql.join(
      rings.map((r) => test(sql`${polygonText(r)}::polygon`)),
      sql` or `,
    );
  if (kind === 'project') return sql`(c.bounds && ${box} and (${any((p) => sql`center(c.bounds) <@ ${p}`)}))`;
  return sql`(c.bounds && ${box} and exists (select 1 from unnest(c.rings) r where ${any((p) => sql`r && ${p}`)}))`;
}

/** Records whose geometry lies inside the union of these rings' polygons, each part in one. */
function inside(kind: RecordKind, rings: Ring[]): RawBuilder<unknown> {
  if (kind === 'project') return meets(kind, rings);
  const box = sql`${boxOf(rings)}::box`;
  const inAny = sql.join(
    rings.map((r) => sql`r <@ ${polygonText(r)}::polygon`),
    sql` or `,
  );
  return sql`(c.bounds <@ ${box} and not exists (select 1 from unnest(c.rings) r where not (${inAny})))`;
}

const inRange = (v: number, limit: number) => Number.isFinite(v) && Math.abs(v) <= limit;

/** The SQL of one filter node's spatial conditions, all of which must hold (none: an empty list). */
export function compileSpatial(
  kind: RecordKind,
  f: SpatialInput,
  path: string,
  problem: Problem,
): RawBuilder<unknown>[] {
  const given = SPATIAL_FIELDS.filter((k) => f[k] != null);
  if (!given.length) return [];
  if (kind === 'contact')
    return given.map((k) =>
      problem(`${path}.${k}`, 'contacts have no geometry; spatial filters apply to parcels and projects'),
    );
  const parts: RawBuilder<unknown>[] = [];
  if (f.bbox) {
    const { west, south, east, north } = f.bbox;
    const at = `${path}.bbox`;
    if (![west, east].every((v) => inRange(v, 180)) || ![south, north].every((v) => inRange(v, 90)))
      parts.push(problem(at, 'longitudes lie in -180..180 and latitudes in -90..90'));
    else if (west > east || south > north)
      parts.push(
        problem(
          at,
          west > east
            ? 'west must not exceed east (a box across the antimeridian is two filters, joined by or)'
            : 'south must not exceed north',
        ),
      );
    else
      parts.push(
        meets(kind, [
          [
            [west, south],
            [east, south],
            [east, north],
            [west, north],
            [west, south],
          ],
        ]),
      );
  }
  for (const op of ['intersects', 'within'] as const) {
    if (f[op] == null) continue;
    const rings = outerRings(f[op]);
    if (typeof rings === 'string') parts.push(problem(`${path}.${op}`, rings));
    else parts.push(op === 'within' ? inside(kind, rings) : meets(kind, rings));
  }
  if (f.dWithin) {
    const { longitude, latitude, meters } = f.dWithin;
    const at = `${path}.dWithin`;
    if (!inRange(longitude, 180) || !inRange(latitude, 90))
      parts.push(problem(at, 'longitude lies in -180..180 and latitude in -90..90'));
    else if (!(meters > 0 && meters <= MAX_DISTANCE_METERS))
      parts.push(problem(at, `meters must be more than 0 and at most ${MAX_DISTANCE_METERS}`));
    else {
      const c = circle([longitude, latitude], meters / 1000, { steps: CIRCLE_STEPS, units: 'kilometers' });
      parts.push(meets(kind, [c.geometry.coordinates[0] as Ring]));
    }
  }
  return parts;
}

/** Number operators on a parcel's area (the GraphQL NumberFilter, as on number properties). */
export function compileAcres(
  kind: RecordKind,
  ops: Record<string, unknown>,
  path: string,
  problem: Problem,
): RawBuilder<unknown> {
  if (kind !== 'parcel') return problem(path, 'acres is the area of a parcel; other records have none');
  const parts: RawBuilder<unknown>[] = [];
  for (const [op, v] of Object.entries(ops)) {
    if (v == null) continue;
    const at = `${path}.${op}`;
    if (op === 'isEmpty') parts.push(v ? sql`c.acres is null` : sql`c.acres is not null`);
    else if (op === 'between') {
      const { min, max } = v as { min: number; max: number };
      parts.push(min > max ? problem(at, 'min must not exceed max') : sql`c.acres between ${min} and ${max}`);
    } else {
      const cmp = { eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' }[op];
      parts.push(cmp ? sql`c.acres ${sql.raw(cmp)} ${v as number}` : problem(at, `unknown operator "${op}"`));
    }
  }
  if (!parts.length) return problem(path, 'give at least one operator');
  return parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` and `)})`;
}
