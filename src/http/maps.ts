import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, parse, validate } from 'graphql';
import { notFound } from '../errors.js';
import { fromEnum } from '../graphql/enums.js';
import type { RunOptions } from '../graphql/executor.js';
import type { Operation } from '../graphql/operation.js';
import type { Seam } from '../graphql/seam.js';
import {
  keptFields,
  LAYER_ID,
  layerFields,
  MAX_TILE_ZOOM,
  type MapLayerName,
  MIN_TILE_ZOOM,
} from '../modules/maps/index.js';
import { ParamChecker } from '../rest/params.js';
import { HEAVY_GRAPHQL_COST, HEAVY_PAGE, LARGE_GRAPHQL_COST } from './admission.js';
import { appErrorOf } from './error-response.js';
import { jsonBytes } from './json-bytes.js';

/**
 * Maps over HTTP (docs/maps.md), additive to REST v1, whose paths stay as the specification has
 * them: vector tiles and their TileJSON for MapLibre, and GeoJSON pages. Like REST v1, each route
 * runs a GraphQL operation through the seam, so the key, rate limit, cost, admission, metrics and
 * access log are the ones every operation gets; a route only reads its parameters and writes the
 * answer in its own media type.
 */

const LAYERS: Record<string, MapLayerName> = { parcels: 'PARCELS', projects: 'PROJECTS' };
const KIND_ENUM: Record<MapLayerName, string> = { PARCELS: 'PARCEL', PROJECTS: 'PROJECT' };

const TILE = `query ($portfolioId: ID!, $layer: MapLayer!, $z: Int!, $x: Int!, $y: Int!, $filter: RecordFilter, $search: String, $fields: [String!]) {
  node(id: $portfolioId) { ... on Portfolio { tile(layer: $layer, z: $z, x: $x, y: $y, filter: $filter, search: $search, fields: $fields) { data features bytes thinned } } }
}`;
const TILEJSON = `query ($portfolioId: ID!, $layer: MapLayer!, $kind: RecordKind!, $filter: RecordFilter, $search: String) {
  node(id: $portfolioId) { ... on Portfolio { id name mapBounds(layer: $layer, filter: $filter, search: $search)
    organization { propertySchema(kind: $kind) { properties { id name type } } } } }
}`;
const features = (
  field: string,
) => `query ($orgId: ID!, $portfolioId: ID!, $first: Int, $after: String, $filter: RecordFilter, $search: String) {
  organization(id: $orgId) { portfolio(id: $portfolioId) {
    page: ${field}(first: $first, after: $after, filter: $filter, search: $search) { features { type id geometry properties } pageInfo { hasNextPage endCursor } }
  } }
}`;

export const MVT_TYPE = 'application/vnd.mapbox-vector-tile';
export const GEOJSON_TYPE = 'application/geo+json; charset=utf-8';
/** Tiles are per key (private) and change with every write, so a cache asks each time (no-cache) and keeps the body for a 304. */
const TILE_CACHE = 'private, no-cache';

/** A tile coordinate from the path: an integer, or a problem named for its parameter. */
function coordinate(check: ParamChecker, name: string, v: string): number {
  if (/^-?\d{1,8}$/.test(v)) return Number(v);
  check.details.push({ field: name, reason: `${name} must be an integer` });
  return 0;
}

/** The layer named in the path, or a problem. */
function layerOf(check: ParamChecker, v: string): MapLayerName {
  const layer = LAYERS[v];
  if (!layer)
    check.details.push({
      field: 'layer',
      reason: `unknown layer "${v}"; the layers are parcels and projects`,
    });
  return layer ?? 'PARCELS';
}

/**
 * `filter` (a RecordFilter as URL-encoded JSON) and `search`, the query of every map route. A filter
 * that is JSON but not a RecordFilter is refused by GraphQL's own coercion, naming the field; one
 * that is a RecordFilter but wrong for the schema, by the filter compiler's details.
 */
function listQuery(check: ParamChecker): { filter: unknown; search: string | null; given: URLSearchParams } {
  const given = new URLSearchParams();
  const text = check.optional('filter');
  const search = check.optional('search') ?? null;
  let filter: unknown = null;
  if (text !== undefined) {
    try {
      filter = JSON.parse(text);
    } catch {
      check.details.push({ field: 'filter', reason: 'filter must be a RecordFilter as URL-encoded JSON' });
    }
    if (filter !== null && (typeof filter !== 'object' || Array.isArray(filter)))
      check.details.push({ field: 'filter', reason: 'filter must be a JSON object (a RecordFilter)' });
    given.set('filter', text);
  }
  if (search !== null) given.set('search', search);
  return { filter, search, given };
}

/**
 * `fields`, the feature properties a tile keeps, comma-separated (property ids hold no comma); null
 * when not given. Which keys exist is the layer's to say (maps keptFields).
 */
function fieldsOf(check: ParamChecker, given: URLSearchParams): string[] | null {
  const text = check.optional('fields');
  if (text === undefined) return null;
  given.set('fields', text);
  return text
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
}

/**
 * A strong ETag of the tile's bytes: it changes exactly when the tile does. The gzip-coded
 * representation is another one, so it has its own tag (RFC 9110 §8.8.3).
 */
const etagOf = (bytes: Buffer, gzip: boolean) =>
  `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}${gzip ? '-gz' : ''}"`;

/**
 * Whether the client takes a gzip-coded tile. MVT is not among the types the server compresses on
 * its own (its media type is not marked compressible), yet its strings (every feature's property
 * values) shrink several times, and browsers decode gzip for MapLibre without being asked.
 */
function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}
const gzipAsync = promisify(gzipCallback);
/** Tiles smaller than this go as they are: gzip's header and a round trip through zlib gain nothing. */
const GZIP_MIN_BYTES = 1024;

/** Whether If-None-Match names this tag (weak comparison, as RFC 9110 has it for GET). */
function notModified(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * A tile waits for a slot as a /graphql operation of its cost would (its cost is the most records it
 * draws); a GeoJSON page as a REST page of its size would. Their inputs (a filter) are checked by
 * the executor's input limits, as /graphql's are.
 */
const AS_GRAPHQL: RunOptions = { heavyCost: HEAVY_GRAPHQL_COST, largeCost: LARGE_GRAPHQL_COST };
const AS_REST: RunOptions = { heavyCost: HEAVY_PAGE };

/** The URL this server was reached at, for absolute tile URLs. */
const origin = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

export function registerMaps(app: FastifyInstance, seam: Seam): void {
  // Parsed and validated once, at start-up. Not compiled: a `$filter: RecordFilter` variable is of
  // a recursive input type, which graphql-jit takes seconds to compile, so graphql-js runs these
  // (graphql/jit.ts recursiveInputTypes).
  const prepare = (source: string, what: string): Operation => {
    const document = parse(source);
    const errors = validate(seam.schema, document);
    const operation = getOperationAST(document);
    if (errors.length || !operation)
      throw new Error(`${what}: ${errors.map((e) => e.message).join('; ') || 'not one operation'}`);
    return { document, operation, compiled: null };
  };
  const run = async (req: FastifyRequest, op: Operation, vars: Record<string, unknown>, opts: RunOptions) => {
    const result = await seam.run(req.ctx, op, vars, opts);
    if (result.errors?.length) throw appErrorOf(result.errors[0], req.log);
    return result.data as Record<string, any>;
  };

  const tile = prepare(TILE, 'GET /tiles/v1/…/{z}/{x}/{y}.mvt');
  app.get(
    '/tiles/v1/portfolios/:portfolioId/:layer/:z/:x/:y.mvt',
    { config: { operation: 'getMapTile' } },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const p = req.params as Record<string, string>;
      const check = new ParamChecker(req.query as Record<string, unknown>);
      const layer = layerOf(check, p.layer);
      const [z, x, y] = (['z', 'x', 'y'] as const).map((k) => coordinate(check, k, p[k]));
      const { filter, search, given } = listQuery(check);
      const fields = fieldsOf(check, given);
      check.done();
      const data = await run(
        req,
        tile,
        { portfolioId: p.portfolioId, layer, z, x, y, filter, search, fields },
        AS_GRAPHQL,
      );
      const t = data.node?.tile as { data: string } | undefined;
      if (!t) throw notFound('Portfolio');
      const bytes = Buffer.from(t.data, 'base64');
      const gzip = bytes.length >= GZIP_MIN_BYTES && acceptsGzip(req.headers['accept-encoding']);
      const etag = etagOf(bytes, gzip);
      // Added to what CORS may have put there (Origin), not in its place.
      const vary = reply.getHeader('vary');
      reply
        .header('ETag', etag)
        .header('Cache-Control', TILE_CACHE)
        .header('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
      if (notModified(req.headers['if-none-match'], etag)) return reply.status(304).send();
      reply.status(200).type(MVT_TYPE);
      if (!gzip) return bytes;
      // The cheapest level, off the event loop: tiles are made per request, and a county's tile is
      // megabytes before coding.
      reply.header('Content-Encoding', 'gzip');
      return gzipAsync(bytes, { level: 1 });
    },
  );

  const tileJson = prepare(TILEJSON, 'GET /tiles/v1/…/{layer}.json');
  app.get(
    '/tiles/v1/portfolios/:portfolioId/:layer.json',
    { config: { operation: 'getMapTileJson' } },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const p = req.params as Record<string, string>;
      const check = new ParamChecker(req.query as Record<string, unknown>);
      const layer = layerOf(check, p.layer);
      const { filter, search, given } = listQuery(check);
      const fields = fieldsOf(check, given);
      check.done();
      const vars = { portfolioId: p.portfolioId, layer, kind: KIND_ENUM[layer], filter, search };
      const pf = (await run(req, tileJson, vars, AS_GRAPHQL)).node;
      if (!pf?.id) throw notFound('Portfolio');
      const props = (
        pf.organization.propertySchema.properties as { id: string; name: string; type: string }[]
      ).map((d) => ({ ...d, type: fromEnum('PropertyType', d.type) }));
      const id = LAYER_ID[layer];
      const all = layerFields(props, layer === 'PARCELS');
      const kept = fields && keptFields(all, fields);
      const query = given.size ? `?${given}` : '';
      const base = `${origin(req)}/tiles/v1/portfolios/${encodeURIComponent(pf.id)}/${id}`;
      reply.header('Cache-Control', TILE_CACHE).type('application/json; charset=utf-8');
      return {
        tilejson: '3.0.0',
        name: `${pf.name}: ${id}`,
        scheme: 'xyz',
        tiles: [`${base}/{z}/{x}/{y}.mvt${query}`],
        minzoom: MIN_TILE_ZOOM,
        maxzoom: MAX_TILE_ZOOM,
        // No record with geometry yet: the whole Web Mercator world.
        bounds: pf.mapBounds ?? [-180, -85.0511, 180, 85.0511],
        vector_layers: [
          {
            id,
            description: `The portfolio's ${id}; feature properties as in docs/maps.md`,
            minzoom: MIN_TILE_ZOOM,
            maxzoom: MAX_TILE_ZOOM,
            fields: kept ? Object.fromEntries(Object.entries(all).filter(([k]) => kept.has(k))) : all,
          },
        ],
      };
    },
  );

  for (const [path, field, operation] of [
    ['/geojson/v1/parcels', 'parcelFeatures', 'listParcelFeatures'],
    ['/geojson/v1/projects', 'projectFeatures', 'listProjectFeatures'],
  ] as const) {
    const op = prepare(features(field), `GET ${path}`);
    app.get(path, { config: { operation } }, async (req: FastifyRequest, reply: FastifyReply) => {
      const check = new ParamChecker(req.query as Record<string, unknown>);
      const orgId = check.required('orgId');
      const portfolioId = check.required('portfolioId');
      const first = check.limit();
      const after = check.startKey() ?? null;
      const { filter, search } = listQuery(check);
      check.only(['orgId', 'portfolioId', 'limit', 'startKey', 'filter', 'search']);
      check.done();
      const data = await run(req, op, { orgId, portfolioId, first, after, filter, search }, AS_REST);
      const page = data.organization?.portfolio?.page;
      if (!page) throw notFound('Portfolio');
      reply.status(200).type(GEOJSON_TYPE);
      // nextKey is a foreign member (RFC 7946 §6.1): v1's paging word, null on the last page.
      return jsonBytes({
        type: 'FeatureCollection',
        features: page.features,
        nextKey: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null,
      });
    });
  }
}
