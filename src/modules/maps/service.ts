import type { Feature, Geometry } from 'geojson';
import type { Context } from '../../context.js';
import type { ConnectionArgs } from '../../pagination/connection.js';
import { namesUsers } from '../properties/index.js';
import { compileListQuery, LIST_FIELDS, listPage, type QueryArgs, recordReads } from '../records/index.js';
import { flatProperties, keptFields, layerFields } from './properties.js';
import { layerBounds, type MappedKind, parcelShapes, tileRecords } from './repository.js';
import {
  boxThreshold,
  checkTile,
  encodeTile,
  MAX_TILE_FEATURES,
  type TileAddress,
  tileBox,
} from './tiles.js';
import type { FeatureCollectionModel, MapLayerName, VectorTileModel } from './types.js';

/**
 * Maps of a portfolio's records: GeoJSON pages and vector tiles. Every read takes the same filter
 * and search as the record lists, compiled by the records module, so a map and the list beside it
 * show the same records. The portfolio has already been access-checked by the caller (it is the
 * parent of the GraphQL field).
 */

/** The record kind of each layer. */
export const LAYER_KIND: Record<MapLayerName, MappedKind> = { PARCELS: 'parcel', PROJECTS: 'project' };
/** The layer's name inside a tile, and in the tile URLs. */
export const LAYER_ID: Record<MapLayerName, string> = { PARCELS: 'parcels', PROJECTS: 'projects' };

interface PortfolioRef {
  orgId: string;
  id: string;
}

/**
 * A page of the portfolio's parcels or projects as a FeatureCollection. The page comes from the
 * records module's list (listPage): the same order, cursors and filter as `Portfolio.parcels` or
 * `projects`, so a cursor of one pages the other. Parcels' boundaries come in one more statement.
 */
export async function featurePage(
  ctx: Context,
  layer: MapLayerName,
  p: PortfolioRef,
  args: ConnectionArgs & QueryArgs,
): Promise<FeatureCollectionModel> {
  const kind = LAYER_KIND[layer];
  const page = await listPage(ctx, LIST_FIELDS.Portfolio[LAYER_ID[layer]], p.orgId, p.id, args);
  const records = page.edges.map((e) => e.node);
  const [reads, shapes] = await Promise.all([
    recordReads(
      ctx,
      p.orgId,
      kind,
      records.some((r) => namesUsers(r.properties)),
    ),
    kind === 'parcel'
      ? parcelShapes(
          ctx.db,
          p.orgId,
          records.map((r) => r.id),
        )
      : undefined,
  ]);
  return {
    type: 'FeatureCollection',
    features: records.map((r) => {
      const s = shapes?.get(r.id);
      return {
        type: 'Feature',
        id: r.id,
        geometry: ((shapes ? s?.geometry : r.location) ?? null) as Geometry | null,
        properties: flatProperties(r, reads, shapes ? { _acres: s?.acres } : undefined),
      };
    }),
    pageInfo: page.pageInfo,
    totalCount: () => page.totalCount(),
    totalCountIsEstimate: async () => (await page.totalCountIsEstimate?.()) ?? false,
  };
}

/**
 * One vector tile of the layer: the records matching the filter whose stored box meets the tile
 * (and its buffer), clipped and simplified for the tile's zoom. At most MAX_TILE_FEATURES records
 * are drawn, the largest first.
 */
export async function vectorTile(
  ctx: Context,
  layer: MapLayerName,
  p: PortfolioRef,
  args: TileAddress & QueryArgs & { fields?: readonly string[] | null },
): Promise<VectorTileModel> {
  const t = { z: args.z, x: args.x, y: args.y };
  checkTile(t);
  const kind = LAYER_KIND[layer];
  const query = await compileListQuery(ctx, kind, p.orgId, { filter: args.filter, search: args.search });
  const keep = args.fields
    ? keptFields(
        layerFields((await recordReads(ctx, p.orgId, kind, false)).schema.properties, kind === 'parcel'),
        args.fields,
      )
    : undefined;
  const rows = await tileRecords(
    ctx.db,
    kind,
    p.orgId,
    p.id,
    query.where,
    tileBox(t),
    boxThreshold(t),
    MAX_TILE_FEATURES + 1,
  );
  const thinned = rows.length > MAX_TILE_FEATURES;
  if (thinned) rows.length = MAX_TILE_FEATURES;
  const reads = await recordReads(
    ctx,
    p.orgId,
    kind,
    rows.some((r) => namesUsers(r.record.properties)),
  );
  const features = rows.map(
    (r): Feature => ({
      type: 'Feature',
      geometry: (r.shape ?? boxPolygon(r.box)) as Geometry,
      properties: flatProperties(r.record, reads, kind === 'parcel' ? { _acres: r.acres } : undefined, keep),
    }),
  );
  const tile = encodeTile(LAYER_ID[layer], features, t);
  return {
    data: Buffer.from(tile.bytes.buffer, tile.bytes.byteOffset, tile.bytes.byteLength).toString('base64'),
    features: tile.features,
    bytes: tile.bytes.byteLength,
    thinned,
  };
}

/** A parcel too small to see at this zoom, drawn as its box. */
const boxPolygon = ([w, s, e, n]: [number, number, number, number]): Geometry => ({
  type: 'Polygon',
  coordinates: [
    [
      [w, s],
      [e, s],
      [e, n],
      [w, n],
      [w, s],
    ],
  ],
});

/** [west, south, east, north] around the layer's records that match; null when none has geometry. */
export async function mapBounds(
  ctx: Context,
  layer: MapLayerName,
  p: PortfolioRef,
  args: QueryArgs,
): Promise<number[] | null> {
  const kind = LAYER_KIND[layer];
  const query = await compileListQuery(ctx, kind, p.orgId, { filter: args.filter, search: args.search });
  return layerBounds(ctx.db, kind, p.orgId, p.id, query.where);
}
