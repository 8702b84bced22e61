import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../../db/types.js';
import { type RecordModel, toRecord } from '../records/index.js';
import type { LonLatBox } from './tiles.js';

/** What a map draws of each record kind: its table and the column holding its geometry. */
const LAYER_SQL = {
  parcel: { table: 'parcels', shape: sql`c.geometry`, acres: sql`c.acres` },
  project: { table: 'projects', shape: sql`c.location`, acres: sql`null::float8` },
} as const;
export type MappedKind = keyof typeof LAYER_SQL;

/** A record as a tile draws it. */
export interface TileRecord {
  record: RecordModel;
  acres: number | null;
  /** The stored box, [west, south, east, north]. */
  box: [number, number, number, number];
  /** The GeoJSON geometry (a parcel's boundary, a project's Point), or null: drawn from `box`. */
  shape: unknown;
}

interface TileRow {
  org_id: string;
  portfolio_id: string;
  id: string;
  properties: RecordModel['properties'];
  created_at: Date;
  updated_at: Date;
  acres: number | null;
  bounds: string;
  shape: unknown;
}

const boxSql = (b: LonLatBox) => sql`box(point(${b.east}, ${b.north}), point(${b.west}, ${b.south}))`;
const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

/** `(e,n),(w,s)`, Postgres's text of a box, as [w, s, e, n]. */
function boxOf(text: string): [number, number, number, number] {
  const [e, n, w, s] = text.replace(/[()]/g, '').split(',').map(Number);
  return [w, s, e, n];
}

/**
 * The records of a portfolio that meet `box` and match `where` (the list filter, over alias `c`),
 * at most `limit`, largest box first (so a thinned tile keeps what is most visible), then the
 * greatest id, so the same data always gives the same tile.
 *
 * A record whose box is under `small` (degrees of longitude and latitude: about a pixel of the
 * tile) comes without its geometry, to be drawn from its box, and of several such records in one
 * pixel only the largest comes (the last id among equals): a pixel shows one of them either way,
 * and a county's parcels at a low zoom are then as many features as the tile has pixels they
 * cover, not one each.
 *
 * The choosing is one pass over the portfolio-led spatial index (migrations/0012), which holds each
 * candidate's id and box, so an unfiltered tile reads no table row until the chosen ones: a big
 * record is a group of its own (`own`), small ones group by the cell their centre is in, and each
 * group keeps its greatest `rank`, one text that compares as (area, id) do: the area's float8 bytes
 * in hex, which sort as the numbers do since an area is never negative, then the id. A group's
 * winner is then its max(), a hash aggregate of one row per group, where keeping each candidate to
 * compare it again spilled to disk at a county's zoom.
 */
export async function tileRecords(
  db: Kysely<DB>,
  kind: MappedKind,
  orgId: string,
  portfolioId: string,
  where: RawBuilder<unknown> | undefined,
  box: LonLatBox,
  small: { lon: number; lat: number },
  limit: number,
): Promise<TileRecord[]> {
  const l = LAYER_SQL[kind];
  const big = sql`(width(c.bounds) >= ${small.lon} or height(c.bounds) >= ${small.lat})`;
  const shape = kind === 'parcel' ? sql`case when top.big then ${l.shape} end` : l.shape;
  const { rows } = await sql<TileRow>`
    with top as (
      select substr(max(k.rank), 17) collate "default" as id, max(k.rank) as rank, k.own is not null as big
      from (
        select (encode(float8send(area(c.bounds)), 'hex') || c.id) collate "C" as rank,
          case when ${big} then c.id end as own,
          floor((center(c.bounds))[0] / ${small.lon}) as gx, floor((center(c.bounds))[1] / ${small.lat}) as gy
        from ${sql.table(l.table)} c
        where c.org_id = ${orgId} and c.portfolio_id = ${portfolioId} and c.bounds && ${boxSql(box)}
          ${where ? sql`and ${where}` : sql``}
      ) k
      group by k.own, k.gx, k.gy
      order by 2 desc limit ${limit}
    )
    select c.org_id, c.portfolio_id, c.id, c.properties, c.created_at, c.updated_at,
      ${l.acres} as acres, c.bounds::text as bounds, ${shape} as shape
    from top join ${sql.table(l.table)} c on c.org_id = ${orgId} and c.id = top.id
    order by top.rank desc`.execute(db);
  return rows.map((r) => ({
    record: toRecord(kind, r),
    acres: r.acres,
    box: boxOf(r.bounds),
    shape: json(r.shape),
  }));
}

/** The box around every record of a portfolio matching `where` that has geometry; null if none has. */
export async function layerBounds(
  db: Kysely<DB>,
  kind: MappedKind,
  orgId: string,
  portfolioId: string,
  where: RawBuilder<unknown> | undefined,
): Promise<[number, number, number, number] | null> {
  const { rows } = await sql<{ w: number | null; s: number; e: number; n: number }>`
    select min((c.bounds[1])[0]) as w, min((c.bounds[1])[1]) as s,
      max((c.bounds[0])[0]) as e, max((c.bounds[0])[1]) as n
    from ${sql.table(LAYER_SQL[kind].table)} c
    where c.org_id = ${orgId} and c.portfolio_id = ${portfolioId} and c.bounds is not null
      ${where ? sql`and ${where}` : sql``}`.execute(db);
  const b = rows[0];
  return b && b.w !== null ? [b.w, b.s, b.e, b.n] : null;
}

/** Parcels' boundaries and areas by id, in one statement, for a page of features. */
export async function parcelShapes(
  db: Kysely<DB>,
  orgId: string,
  ids: readonly string[],
): Promise<Map<string, { geometry: unknown; acres: number | null }>> {
  if (!ids.length) return new Map();
  const rows = await db
    .selectFrom('parcels')
    .select(['id', 'geometry', 'acres'])
    .where('org_id', '=', orgId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, { geometry: json(r.geometry), acres: r.acres }]));
}
