import { gunzipSync } from 'node:zlib';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { buildApp } from '../src/app.js';
import { importParcels } from '../src/modules/imports/index.js';
import { MAX_TILE_FEATURES, TILE_BUFFER, TILE_EXTENT } from '../src/modules/maps/index.js';
import { createPortfolio } from '../src/modules/org/index.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { LAT, LON, type Ring, squareNear as square } from './helpers/geo.js';

/**
 * Vector tiles and TileJSON (GET /tiles/v1/…, and Portfolio.tile in GraphQL), on a portfolio of the
 * test's own whose parcels are placed by hand, decoded with @mapbox/vector-tile as a map would.
 */

/** A circle of `n` vertices around (LON + x, LAT + y): detail for simplification to remove. */
const circle = (x: number, y: number, r: number, n: number): Ring => {
  const ring: Ring = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    ring.push([LON + x + r * Math.cos(a), LAT + y + r * Math.sin(a)]);
  }
  ring.push(ring[0]);
  return ring;
};
const feature = (ring: Ring, properties: Record<string, unknown>) => ({
  type: 'Feature',
  properties,
  geometry: { type: 'Polygon', coordinates: [ring] },
});

/** The tile of the grid holding (lon, lat) at zoom z. */
function tileAt(lon: number, lat: number, z: number): { z: number; x: number; y: number } {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return {
    z,
    x: Math.floor(((lon + 180) / 360) * n),
    y: Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n),
  };
}

interface Place {
  orgId: string;
  portfolioId: string;
  ids: Record<'a' | 'b' | 'round' | 'big' | 'far', string>;
  project: string;
}

let placed: Promise<Place> | undefined;
/** The test portfolio, made once per file: parcels A and B side by side, a round one, a big one, one far east. */
function place(env: TestEnv): Promise<Place> {
  placed ??= (async () => {
    const orgId = env.demo.orgs.A.id;
    const { id: portfolioId } = await createPortfolio(env.database.db, orgId, 'Tile test');
    const project = await env.as.alice.post(
      '/projects/v1',
      { properties: { name: { text: 'Tiled' }, stage: { select: ['permitting'] } } },
      { orgId, portfolioId },
    );
    expect(project.status).toBe(200);
    const parcels = [
      feature(square(0, 0, 0.004), { apn: 'A-1', constraints: 'wetland' }),
      feature(square(0.005, 0, 0.004), { apn: 'B-2', constraints: 'floodplain; pipeline' }),
      feature(circle(0.3, 0.3, 0.01, 400), { apn: 'ROUND' }),
      feature(square(-0.5, -0.5, 1), { apn: 'BIG' }),
      feature(square(3, 0, 0.004), { apn: 'FAR' }),
    ];
    await importParcels(
      env.database.db,
      { type: 'FeatureCollection', features: parcels },
      { orgId, portfolioId, projectId: project.body.id },
    );
    const list = await env.as.alice.gql(
      'query($id: ID!) { node(id: $id) { ... on Portfolio { parcels(first: 100) { nodes { id properties } } } } }',
      { id: portfolioId },
    );
    const byApn = Object.fromEntries(
      list.body.data.node.parcels.nodes.map((i: { id: string; properties: { apn: { text: string } } }) => [
        i.properties.apn.text,
        i.id,
      ]),
    );
    return {
      orgId,
      portfolioId,
      project: project.body.id,
      ids: { a: byApn['A-1'], b: byApn['B-2'], round: byApn.ROUND, big: byApn.BIG, far: byApn.FAR },
    };
  })();
  return placed;
}

const tileUrl = (pf: string, layer: string, t: { z: number; x: number; y: number }) =>
  `/tiles/v1/portfolios/${pf}/${layer}/${t.z}/${t.x}/${t.y}.mvt`;

/** GET a tile as raw bytes (the test client reads bodies as text). */
async function getTile(
  env: TestEnv,
  key: string,
  url: string,
  query: Record<string, string> = {},
  headers = {},
) {
  const qs = new URLSearchParams(query).toString();
  const r = await env.app.inject({
    method: 'GET',
    url: qs ? `${url}?${qs}` : url,
    headers: { 'x-api-key': key, ...headers },
  });
  return { status: r.statusCode, headers: r.headers, bytes: r.rawPayload, body: safeJson(r.body) };
}
const safeJson = (s: string) => {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
};

/** The features of the tile's one layer, each with its properties and geometry in tile units. */
function decode(bytes: Buffer, layer: string) {
  const tile = new VectorTile(new PbfReader(bytes));
  const l = tile.layers[layer];
  if (!l) return [];
  expect(l.extent).toBe(TILE_EXTENT);
  return Array.from({ length: l.length }, (_, i) => {
    const f = l.feature(i);
    return { properties: f.properties, type: f.type, rings: f.loadGeometry() };
  });
}

const key = (env: TestEnv, who: 'alice' | 'bob' | 'vera' | 'gina' | 'nora') => env.demo.users[who].apiKey;

describe('vector tiles', () => {
  test('a tile holds the records that reach it, with flat properties, and not those far away', async ({
    env,
  }) => {
    const p = await place(env);
    const t = tileAt(LON + 0.002, LAT + 0.002, 14);
    const r = await getTile(env, key(env, 'bob'), tileUrl(p.portfolioId, 'parcels', t));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
    expect(r.headers['cache-control']).toBe('private, no-cache');
    expect(r.headers.etag).toMatch(/^"[\w-]{20,}"$/);
    const fs = decode(r.bytes, 'parcels');
    const ids = fs.map((f) => f.properties._id);
    expect(ids).toEqual(expect.arrayContaining([p.ids.a, p.ids.b, p.ids.big]));
    expect(ids).not.toContain(p.ids.far);
    const b = fs.find((f) => f.properties._id === p.ids.b)!;
    expect(b.type).toBe(3);
    expect(b.properties).toMatchObject({
      apn: 'B-2',
      constraints: 'floodplain,pipeline',
      'constraints.label': 'Floodplain, Pipeline easement',
    });
    expect(b.properties._acres).toBeGreaterThan(0);

    const far = await getTile(
      env,
      key(env, 'bob'),
      tileUrl(p.portfolioId, 'parcels', tileAt(LON + 3.002, LAT + 0.002, 14)),
    );
    expect(decode(far.bytes, 'parcels').map((f) => f.properties._id)).toEqual([p.ids.far]);

    // Projects are points at their location, with a select as its id and label.
    const pr = await getTile(
      env,
      key(env, 'bob'),
      tileUrl(p.portfolioId, 'projects', tileAt(LON + 0.002, LAT + 0.002, 12)),
    );
    const [project] = decode(pr.bytes, 'projects');
    expect(project.type).toBe(1);
    expect(project.properties).toMatchObject({
      _id: p.project,
      stage: 'permitting',
      'stage.label': 'Permitting',
    });
  });

  test('the filter and search narrow a tile as they narrow the list', async ({ env }) => {
    const p = await place(env);
    const url = tileUrl(p.portfolioId, 'parcels', tileAt(LON + 0.002, LAT + 0.002, 14));
    const filter = JSON.stringify({
      property: { id: 'constraints', multiSelect: { containsAny: ['wetland'] } },
    });
    const r = await getTile(env, key(env, 'bob'), url, { filter });
    expect(decode(r.bytes, 'parcels').map((f) => f.properties._id)).toEqual([p.ids.a]);
    const s = await getTile(env, key(env, 'bob'), url, { search: 'B-2' });
    expect(decode(s.bytes, 'parcels').map((f) => f.properties._id)).toEqual([p.ids.b]);
    // Combined with a spatial filter of the lists: only what is also in the box.
    const box = JSON.stringify({
      bbox: { west: LON + 0.0045, south: LAT, east: LON + 0.01, north: LAT + 0.01 },
    });
    const inBox = await getTile(env, key(env, 'bob'), url, { filter: box });
    expect(
      decode(inBox.bytes, 'parcels')
        .map((f) => f.properties._id)
        .sort(),
    ).toEqual([p.ids.b, p.ids.big].sort());
  });

  test('geometry is clipped to the tile and its buffer, and simplified at low zoom', async ({ env }) => {
    const p = await place(env);
    const r = await getTile(
      env,
      key(env, 'bob'),
      tileUrl(p.portfolioId, 'parcels', tileAt(LON + 0.002, LAT + 0.002, 14)),
    );
    const big = decode(r.bytes, 'parcels').find((f) => f.properties._id === p.ids.big)!;
    const points = big.rings.flat();
    expect(points.length).toBeGreaterThanOrEqual(4);
    for (const pt of points) {
      expect(pt.x).toBeGreaterThanOrEqual(-TILE_BUFFER);
      expect(pt.x).toBeLessThanOrEqual(TILE_EXTENT + TILE_BUFFER);
      expect(pt.y).toBeGreaterThanOrEqual(-TILE_BUFFER);
      expect(pt.y).toBeLessThanOrEqual(TILE_EXTENT + TILE_BUFFER);
    }
    // The round parcel has 401 positions. Simplified for the zoom, it keeps the vertices that move
    // its outline by more than a fraction of a pixel: a few at zoom 6, more at 9, and far fewer
    // than its source at both.
    const vertices = async (z: number) => {
      const t = await getTile(
        env,
        key(env, 'bob'),
        tileUrl(p.portfolioId, 'parcels', tileAt(LON + 0.3, LAT + 0.3, z)),
      );
      const round = decode(t.bytes, 'parcels').find((f) => f.properties._id === p.ids.round)!;
      return round.rings.flat().length;
    };
    const [z6, z9] = [await vertices(6), await vertices(9)];
    expect(z6).toBeGreaterThanOrEqual(4);
    expect(z9).toBeGreaterThan(z6);
    expect(z9).toBeLessThan(401 / 10);
  });

  test('under two pixels a record is drawn as its box, one per two-pixel cell: the largest, then the last id', async ({
    env,
  }) => {
    const orgId = env.demo.orgs.A.id;
    const { id: portfolioId } = await createPortfolio(env.database.db, orgId, 'Tile cells');
    // At zoom 6 a two-pixel cell here is about 0.044° by 0.036°. S and L share one cell, L larger;
    // T1 and T2 share another, the same size; the round parcel (0.02° across) has its own; the big
    // one (1°) is drawn from its boundary.
    const { created } = await importParcels(
      env.database.db,
      {
        type: 'FeatureCollection',
        features: [
          feature(square(0, 0, 0.004), { apn: 'S' }),
          feature(square(0.01, 0, 0.005), { apn: 'L' }),
          feature(square(0.3, 0.3, 0.004), { apn: 'T1' }),
          feature(square(0.305, 0.3, 0.004), { apn: 'T2' }),
          feature(circle(0.6, 0.6, 0.01, 400), { apn: 'ROUND' }),
          feature(square(-0.5, -0.5, 1), { apn: 'BIG' }),
        ],
      },
      { orgId, portfolioId },
    );
    const [, l, t1, t2, round, big] = created;
    const t = tileAt(LON + 0.002, LAT + 0.002, 6);
    const r = await getTile(env, key(env, 'bob'), tileUrl(portfolioId, 'parcels', t));
    const fs = decode(r.bytes, 'parcels');
    const lastOfEquals = [t1, t2].sort()[1];
    expect(fs.map((f) => f.properties._id).sort()).toEqual([l, lastOfEquals, round, big].sort());
    // The round parcel's 401 positions are not read: it is its box. The big one keeps its corners.
    expect(fs.find((f) => f.properties._id === round)!.rings.flat().length).toBeLessThanOrEqual(5);
    // A chosen record carries its own values.
    expect(fs.find((f) => f.properties._id === l)!.properties.apn).toBe('L');
    expect(fs.find((f) => f.properties._id === lastOfEquals)!.properties.apn).toBe(
      lastOfEquals === t1 ? 'T1' : 'T2',
    );
    // Zoomed in, each is drawn from its own boundary.
    const near = await getTile(
      env,
      key(env, 'bob'),
      tileUrl(portfolioId, 'parcels', tileAt(LON + 0.002, LAT + 0.002, 14)),
    );
    expect(decode(near.bytes, 'parcels').map((f) => f.properties._id)).toEqual(
      expect.arrayContaining([created[0], l, big]),
    );
  });

  test('a tile is gzip-coded when the client takes gzip, with an ETag of its own', async ({ env }) => {
    const orgId = env.demo.orgs.A.id;
    const { id: portfolioId } = await createPortfolio(env.database.db, orgId, 'Tile gzip');
    // Twenty parcels with long values: a tile over the kilobyte gzip waits for.
    await importParcels(
      env.database.db,
      {
        type: 'FeatureCollection',
        features: Array.from({ length: 20 }, (_, i) =>
          feature(square(i * 0.0005, 0, 0.0004), { apn: `APN-${i}-${'x'.repeat(60)}` }),
        ),
      },
      { orgId, portfolioId },
    );
    const url = tileUrl(portfolioId, 'parcels', tileAt(LON + 0.002, LAT + 0.0002, 14));
    const plain = await getTile(env, key(env, 'bob'), url);
    expect(plain.bytes.length).toBeGreaterThanOrEqual(1024);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const gz = await getTile(env, key(env, 'bob'), url, {}, { 'accept-encoding': 'gzip, deflate, br' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
    expect(gz.bytes.length).toBeLessThan(plain.bytes.length);
    expect(gunzipSync(gz.bytes).equals(plain.bytes)).toBe(true);
    expect(gz.headers.etag).not.toBe(plain.headers.etag);
    const cached = await getTile(
      env,
      key(env, 'bob'),
      url,
      {},
      { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.etag as string },
    );
    expect(cached.status).toBe(304);
    // gzip refused (q=0): sent as it is. A tile under a kilobyte too.
    const refused = await getTile(env, key(env, 'bob'), url, {}, { 'accept-encoding': 'gzip;q=0, br' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.bytes.equals(plain.bytes)).toBe(true);
    const small = await getTile(
      env,
      key(env, 'bob'),
      tileUrl(portfolioId, 'parcels', tileAt(LON + 0.3, LAT + 0.3, 14)),
      {},
      { 'accept-encoding': 'gzip' },
    );
    expect(small.status).toBe(200);
    expect(small.bytes.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  test('fields keeps only the feature properties a style reads; TileJSON carries it; an unknown key is a 400', async ({
    env,
  }) => {
    const p = await place(env);
    const url = tileUrl(p.portfolioId, 'parcels', tileAt(LON + 0.002, LAT + 0.002, 14));
    const all = await getTile(env, key(env, 'bob'), url);
    const some = await getTile(env, key(env, 'bob'), url, { fields: 'constraints.label,_acres' });
    expect(some.status).toBe(200);
    expect(some.bytes.length).toBeLessThan(all.bytes.length);
    const b = decode(some.bytes, 'parcels').find((f) => f.properties._id === p.ids.b)!;
    expect(Object.keys(b.properties).sort()).toEqual(['_acres', '_id', 'constraints.label']);
    expect(b.properties['constraints.label']).toBe('Floodplain, Pipeline easement');
    // An id without its label, in GraphQL too.
    const g = await env.as.bob.gql(
      'query($id: ID!, $z: Int!, $x: Int!, $y: Int!) { node(id: $id) { ... on Portfolio { tile(layer: PARCELS, z: $z, x: $x, y: $y, fields: ["constraints"]) { data } } } }',
      { id: p.portfolioId, ...tileAt(LON + 0.002, LAT + 0.002, 14) },
    );
    const viaGraphql = decode(Buffer.from(g.body.data.node.tile.data, 'base64'), 'parcels');
    expect(viaGraphql.find((f) => f.properties._id === p.ids.b)!.properties).toEqual({
      _id: p.ids.b,
      constraints: 'floodplain,pipeline',
    });
    // TileJSON: the tile URLs carry it, and the layer lists only what its tiles hold.
    const tj = await getTile(env, key(env, 'bob'), `/tiles/v1/portfolios/${p.portfolioId}/parcels.json`, {
      fields: 'apn,_acres',
    });
    expect(tj.status).toBe(200);
    expect(new URL(tj.body.tiles[0].replace('{z}/{x}/{y}', '1/2/3')).searchParams.get('fields')).toBe(
      'apn,_acres',
    );
    expect(Object.keys(tj.body.vector_layers[0].fields).sort()).toEqual(['_acres', '_id', 'apn']);
    for (const target of [url, `/tiles/v1/portfolios/${p.portfolioId}/parcels.json`]) {
      const bad = await getTile(env, key(env, 'bob'), target, { fields: 'apn,colour' });
      expect(bad.status, target).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
      expect(bad.body.error.details).toEqual([
        expect.objectContaining({
          field: 'fields',
          reason: expect.stringMatching(/unknown feature property "colour"/),
        }),
      ]);
    }
    // A project has no _acres.
    const pr = await getTile(env, key(env, 'bob'), tileUrl(p.portfolioId, 'projects', tileAt(LON, LAT, 12)), {
      fields: '_acres',
    });
    expect(pr.status).toBe(400);
  });

  test("a tile's Vary keeps the Origin CORS puts there beside Accept-Encoding", async ({ env }) => {
    const p = await place(env);
    const origin = 'https://maps.example.com';
    const app = await buildApp({ database: env.database, corsOrigins: [origin] });
    try {
      const r = await app.inject({
        method: 'GET',
        url: tileUrl(p.portfolioId, 'parcels', tileAt(LON + 0.002, LAT + 0.002, 14)),
        headers: { origin, 'x-api-key': key(env, 'bob') },
      });
      expect(r.statusCode).toBe(200);
      expect(r.headers['access-control-allow-origin']).toBe(origin);
      expect(
        String(r.headers.vary)
          .toLowerCase()
          .split(/\s*,\s*/),
      ).toEqual(expect.arrayContaining(['origin', 'accept-encoding']));
    } finally {
      await app.close();
    }
  });

  test('the ETag follows the data: a write in the tile changes it, one elsewhere does not; 304 when unchanged', async ({
    env,
  }) => {
    const p = await place(env);
    const url = tileUrl(p.portfolioId, 'parcels', tileAt(LON + 0.002, LAT + 0.002, 14));
    const first = await getTile(env, key(env, 'bob'), url);
    const etag = first.headers.etag as string;
    const again = await getTile(env, key(env, 'bob'), url, {}, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);
    expect(again.bytes.length).toBe(0);

    const scope = { orgId: p.orgId, portfolioId: p.portfolioId };
    const far = await env.as.alice.put(
      `/parcels/v1/${p.ids.far}`,
      { properties: { apn: { text: 'FAR-2' } } },
      scope,
    );
    expect(far.status).toBe(200);
    expect((await getTile(env, key(env, 'bob'), url, {}, { 'if-none-match': etag })).status).toBe(304);

    const a = await env.as.alice.put(
      `/parcels/v1/${p.ids.a}`,
      { properties: { apn: { text: 'A-1b' } } },
      scope,
    );
    expect(a.status).toBe(200);
    const changed = await getTile(env, key(env, 'bob'), url, {}, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(decode(changed.bytes, 'parcels').find((f) => f.properties._id === p.ids.a)?.properties.apn).toBe(
      'A-1b',
    );
    await env.as.alice.put(`/parcels/v1/${p.ids.a}`, { properties: { apn: { text: 'A-1' } } }, scope);
  });

  test('a portfolio out of reach answers 404 like a missing one; a guest reaches only granted portfolios', async ({
    env,
  }) => {
    const p = await place(env);
    const t = tileAt(LON, LAT, 10);
    const missing = await getTile(env, key(env, 'bob'), tileUrl('pf_0000000000000000000000', 'parcels', t));
    expect(missing.status).toBe(404);
    for (const who of ['nora', 'gina'] as const) {
      const r = await getTile(env, key(env, who), tileUrl(p.portfolioId, 'parcels', t));
      expect(r.status, who).toBe(404);
      expect(r.body).toEqual(missing.body);
      const tj = await getTile(env, key(env, who), `/tiles/v1/portfolios/${p.portfolioId}/parcels.json`);
      expect(tj.status, who).toBe(404);
    }
    // gina is a guest of A1: its tiles answer.
    const granted = await getTile(
      env,
      key(env, 'gina'),
      tileUrl(env.demo.orgs.A.portfolios.A1, 'parcels', t),
    );
    expect(granted.status).toBe(200);
    // No key: 401, before anything is read.
    const anon = await env.app.inject({ method: 'GET', url: tileUrl(p.portfolioId, 'parcels', t) });
    expect(anon.statusCode).toBe(401);
  });

  test('every bad input is a 400 that names the problem', async ({ env }) => {
    const p = await place(env);
    const pf = p.portfolioId;
    const bad = async (url: string, query: Record<string, string>, field: string, reason: RegExp) => {
      const r = await getTile(env, key(env, 'bob'), url, query);
      expect(r.status, url).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_FAILED');
      const { message, details = [] } = r.body.error;
      const text = [message, ...details.map((d: { reason: string }) => d.reason)].join('\n');
      expect(text, url).toMatch(reason);
      if (field)
        expect(r.body.error.details?.map((d: { field: string }) => d.field) ?? [], url).toContain(field);
    };
    await bad(`/tiles/v1/portfolios/${pf}/parcels/23/0/0.mvt`, {}, 'z', /z must be an integer from 0 to 22/);
    await bad(
      `/tiles/v1/portfolios/${pf}/parcels/3/8/0.mvt`,
      {},
      'x',
      /x must be an integer from 0 to 7 at zoom 3/,
    );
    await bad(`/tiles/v1/portfolios/${pf}/parcels/3/0/-1.mvt`, {}, 'y', /y must be an integer from 0 to 7/);
    await bad(`/tiles/v1/portfolios/${pf}/parcels/a/0/0.mvt`, {}, 'z', /z must be an integer/);
    await bad(`/tiles/v1/portfolios/${pf}/roads/3/0/0.mvt`, {}, 'layer', /unknown layer "roads"/);
    await bad(`/tiles/v1/portfolios/${pf}/roads.json`, {}, 'layer', /unknown layer/);
    const tile = `/tiles/v1/portfolios/${pf}/parcels/3/1/3.mvt`;
    await bad(tile, { filter: '{not json' }, 'filter', /URL-encoded JSON/);
    await bad(tile, { filter: '[1]' }, 'filter', /JSON object/);
    await bad(tile, { filter: '{"bogus": 1}' }, '', /bogus/);
    await bad(
      tile,
      { filter: '{"property": {"id": "nope", "text": {"eq": "x"}}}' },
      'nope',
      /unknown property "nope"/,
    );
    await bad(
      tile,
      { filter: JSON.stringify({ bbox: { west: 10, south: 0, east: 5, north: 1 } }) },
      'filter',
      /west must not exceed east/,
    );
    await bad(
      tile,
      { filter: JSON.stringify({ bbox: { west: -200, south: 0, east: 5, north: 1 } }) },
      'filter',
      /-180..180/,
    );
    // GraphQL refuses the same addresses with the same details.
    const g = await env.as.bob.gql(
      'query($id: ID!) { node(id: $id) { ... on Portfolio { tile(layer: PARCELS, z: 2, x: 4, y: 0) { bytes } } } }',
      { id: pf },
    );
    expect(g.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(g.body.errors[0].extensions.details[0]).toMatchObject({ field: 'x' });
  });

  test('GraphQL serves the same tile, and a tile costs its bound on records', async ({ env }) => {
    const p = await place(env);
    const t = tileAt(LON + 0.002, LAT + 0.002, 14);
    const http = await getTile(env, key(env, 'bob'), tileUrl(p.portfolioId, 'parcels', t));
    const g = await env.as.bob.gql(
      'query($id: ID!, $z: Int!, $x: Int!, $y: Int!) { node(id: $id) { ... on Portfolio { tile(layer: PARCELS, z: $z, x: $x, y: $y) { data features bytes thinned } } } }',
      { id: p.portfolioId, ...t },
    );
    expect(g.body.errors).toBeUndefined();
    const tile = g.body.data.node.tile;
    expect(Buffer.from(tile.data, 'base64').equals(http.bytes)).toBe(true);
    expect(tile).toMatchObject({ bytes: http.bytes.length, features: 3, thinned: false });
    // Six tiles in one operation cost more than the limit (100,000 nodes).
    const six = Array.from(
      { length: 6 },
      (_, i) => `t${i}: tile(layer: PARCELS, z: 0, x: 0, y: 0) { bytes }`,
    ).join(' ');
    const over = await env.as.bob.gql(`query($id: ID!) { node(id: $id) { ... on Portfolio { ${six} } } }`, {
      id: p.portfolioId,
    });
    expect(over.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(MAX_TILE_FEATURES * 6).toBeGreaterThan(100_000);
  });

  test('TileJSON: the tile URL with the same query, zooms, bounds and the layer fields', async ({ env }) => {
    const p = await place(env);
    const filter = JSON.stringify({ property: { id: 'apn', text: { startsWith: 'A' } } });
    const r = await getTile(env, key(env, 'bob'), `/tiles/v1/portfolios/${p.portfolioId}/parcels.json`, {
      filter,
    });
    expect(r.status).toBe(200);
    const tj = r.body;
    expect(tj).toMatchObject({ tilejson: '3.0.0', scheme: 'xyz', minzoom: 0, maxzoom: 22 });
    const url = new URL(tj.tiles[0].replace('{z}/{x}/{y}', '1/2/3'));
    expect(url.origin).toMatch(/^https?:\/\//);
    expect(url.pathname).toBe(`/tiles/v1/portfolios/${p.portfolioId}/parcels/1/2/3.mvt`);
    expect(url.searchParams.get('filter')).toBe(filter);
    expect(tj.tiles[0]).toContain('/{z}/{x}/{y}.mvt?');
    // Only A-1 matches: the bounds are its square.
    expect(tj.bounds[0]).toBeCloseTo(LON, 6);
    expect(tj.bounds[1]).toBeCloseTo(LAT, 6);
    expect(tj.bounds[2]).toBeCloseTo(LON + 0.004, 6);
    expect(tj.bounds[3]).toBeCloseTo(LAT + 0.004, 6);
    expect(tj.vector_layers[0].id).toBe('parcels');
    expect(Object.keys(tj.vector_layers[0].fields)).toEqual(
      expect.arrayContaining([
        '_id',
        '_acres',
        'apn',
        'constraints',
        'constraints.label',
        'land_agent.label',
      ]),
    );
    // Unfiltered, the bounds hold every parcel with a boundary, the far one too.
    const all = await getTile(env, key(env, 'bob'), `/tiles/v1/portfolios/${p.portfolioId}/parcels.json`);
    expect(all.body.bounds[2]).toBeCloseTo(LON + 3.004, 6);
    expect(all.body.tiles[0]).toMatch(/\{y\}\.mvt$/);
  });
});
