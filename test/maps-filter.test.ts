import { importParcels } from '../src/modules/imports/index.js';
import { createPortfolio } from '../src/modules/org/index.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { LAT, LON, type Ring, squareNear as square } from './helpers/geo.js';

/**
 * Spatial filters (`bbox`, `intersects`, `within`, `dWithin`) and parcel area (`acres`) on the
 * record lists, against a portfolio of its own whose parcels and project locations are placed by
 * hand. Each expectation is what the geometry says, worked out here.
 */

/** An L: the box (0,0)–(0.02,0.02) without its north-east quarter. */
const ell: Ring = [
  [LON, LAT],
  [LON + 0.02, LAT],
  [LON + 0.02, LAT + 0.01],
  [LON + 0.01, LAT + 0.01],
  [LON + 0.01, LAT + 0.02],
  [LON, LAT + 0.02],
  [LON, LAT],
];
const polygon = (ring: Ring) => ({ type: 'Polygon', coordinates: [ring] });
const feature = (name: string, ring: Ring) => ({
  type: 'Feature',
  properties: { name },
  geometry: polygon(ring),
});
const box = (x0: number, y0: number, x1: number, y1: number) => ({
  west: LON + x0,
  south: LAT + y0,
  east: LON + x1,
  north: LAT + y1,
});

interface Place {
  orgId: string;
  portfolioId: string;
  parcels: Record<string, string>;
  projects: Record<string, string>;
}

async function place(env: TestEnv): Promise<Place> {
  const orgId = env.demo.orgs.A.id;
  const { id: portfolioId } = await createPortfolio(env.database.db, orgId, 'Map test');
  const scope = { orgId, portfolioId };
  const parcels: Record<string, string> = {};
  const projects: Record<string, string> = {};
  // Parcels near (LON, LAT): a small square, the L, and one a degree east.
  const near = await importParcels(
    env.database.db,
    { type: 'FeatureCollection', features: [feature('square', square(0.05, 0, 0.01)), feature('ell', ell)] },
    scope,
  );
  [parcels.square, parcels.ell] = near.created;
  const far = await importParcels(
    env.database.db,
    { type: 'FeatureCollection', features: [feature('far', square(1, 0, 0.01))] },
    scope,
  );
  [parcels.far] = far.created;
  // Projects: one on the square (its location is the square's centre), one with no parcels.
  for (const [name, ring] of [['onSquare', square(0.05, 0, 0.01)]] as const) {
    const r = await env.as.alice.post('/projects/v1', { properties: { name: { text: name } } }, scope);
    projects[name] = r.body.id;
    await importParcels(
      env.database.db,
      { type: 'FeatureCollection', features: [feature(`${name} parcel`, ring)] },
      { ...scope, projectId: r.body.id },
    );
  }
  const r = await env.as.alice.post('/projects/v1', { properties: { name: { text: 'nowhere' } } }, scope);
  projects.nowhere = r.body.id;
  return { orgId, portfolioId, parcels, projects };
}

const LIST = `query($p: ID!, $kind: Boolean!, $f: RecordFilter, $o: [RecordOrder!]) {
  portfolio: node(id: $p) {
    ... on Portfolio {
      parcels(first: 100, filter: $f, orderBy: $o) @include(if: $kind) { edges { node { id acres } } }
      projects(first: 100, filter: $f) @skip(if: $kind) { edges { node { id } } }
    }
  }
}`;

async function list(env: TestEnv, at: Place, kind: 'parcels' | 'projects', f: unknown, o?: unknown) {
  const r = await env.as.alice.gql(LIST, { p: at.portfolioId, kind: kind === 'parcels', f, o });
  return r;
}
const ids = (
  r: { body: { data: { portfolio: Record<string, { edges: { node: { id: string } }[] }> } } },
  kind: string,
) => r.body.data.portfolio[kind].edges.map((e) => e.node.id).sort();

describe('spatial filters', () => {
  let at: Place;
  test('set up', async ({ env }) => {
    at = await place(env);
  });

  test('bbox: parcels whose boundary meets the box, not just their bounding box', async ({ env }) => {
    // The box sits in the L's missing quarter: it meets the L's bounding box, not the L.
    const notch = await list(env, at, 'parcels', { bbox: box(0.012, 0.012, 0.018, 0.018) });
    expect(notch.body.errors).toBeUndefined();
    expect(ids(notch, 'parcels')).toEqual([]);
    const west = await list(env, at, 'parcels', { bbox: box(-0.01, -0.01, 0.005, 0.005) });
    expect(ids(west, 'parcels')).toEqual([at.parcels.ell]);
    const all = await list(env, at, 'parcels', { bbox: box(-1, -1, 2, 1) });
    expect(ids(all, 'parcels')).toHaveLength(4);
  });

  test('intersects and within a polygon; not within', async ({ env }) => {
    const around = polygon([
      [LON + 0.04, LAT - 0.01],
      [LON + 0.07, LAT - 0.01],
      [LON + 0.07, LAT + 0.02],
      [LON + 0.04, LAT + 0.02],
      [LON + 0.04, LAT - 0.01],
    ]);
    const meets = await list(env, at, 'parcels', { intersects: around });
    expect(meets.body.errors).toBeUndefined();
    // The square and the project's parcel (the same square) lie inside; the L and the far one do not.
    expect(ids(meets, 'parcels')).toHaveLength(2);
    expect(ids(meets, 'parcels')).toContain(at.parcels.square);
    const inside = await list(env, at, 'parcels', { within: around });
    expect(ids(inside, 'parcels')).toEqual(ids(meets, 'parcels'));
    // A polygon that covers half the square meets it but does not hold it.
    const half = polygon(square(0.055, -0.01, 0.03));
    expect(ids(await list(env, at, 'parcels', { intersects: half }), 'parcels')).toHaveLength(2);
    expect(ids(await list(env, at, 'parcels', { within: half }), 'parcels')).toEqual([]);
    const outside = await list(env, at, 'parcels', { not: { within: around } });
    expect(ids(outside, 'parcels').sort()).toEqual([at.parcels.ell, at.parcels.far].sort());
  });

  test('dWithin: metres from a point, on parcels and on project locations', async ({ env }) => {
    // The square's west edge is 0.05° of longitude east of LON: at 33.5° that is about 4,636 m.
    const point = { longitude: LON, latitude: LAT + 0.005 };
    const short = await list(env, at, 'parcels', { dWithin: { ...point, meters: 4500 } });
    expect(short.body.errors).toBeUndefined();
    expect(ids(short, 'parcels')).toEqual([at.parcels.ell]);
    expect(
      ids(await list(env, at, 'parcels', { dWithin: { ...point, meters: 4800 } }), 'parcels'),
    ).toHaveLength(3);
    // The project's location is the square's centre, 0.055° east: about 5,100 m.
    expect(ids(await list(env, at, 'projects', { dWithin: { ...point, meters: 5000 } }), 'projects')).toEqual(
      [],
    );
    expect(ids(await list(env, at, 'projects', { dWithin: { ...point, meters: 5200 } }), 'projects')).toEqual(
      [at.projects.onSquare],
    );
  });

  test('a project without location matches no spatial condition, and so matches its not', async ({ env }) => {
    const inBox = await list(env, at, 'projects', { bbox: box(-1, -1, 2, 1) });
    expect(ids(inBox, 'projects')).toEqual([at.projects.onSquare]);
    const not = await list(env, at, 'projects', { not: { bbox: box(-1, -1, 2, 1) } });
    expect(ids(not, 'projects')).toEqual([at.projects.nowhere]);
  });

  test('spatial conditions combine with and/or like any other', async ({ env }) => {
    const either = await list(env, at, 'parcels', {
      or: [{ bbox: box(0.9, -0.1, 1.1, 0.1) }, { bbox: box(-0.01, -0.01, 0.005, 0.005) }],
    });
    expect(ids(either, 'parcels').sort()).toEqual([at.parcels.ell, at.parcels.far].sort());
    const both = await list(env, at, 'parcels', {
      and: [{ bbox: box(-1, -1, 2, 1) }, { acres: { gt: 400 } }],
    });
    expect(ids(both, 'parcels')).toEqual([at.parcels.ell]);
  });
  test('the exact test reads outer rings: a filter inside a parcel hole still meets the parcel (documented)', async ({
    env,
  }) => {
    const outer = square(5, 0, 0.02);
    const hole = square(5.005, 0.005, 0.01).reverse();
    const { created } = await importParcels(
      env.database.db,
      {
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [outer, hole] } },
        ],
      },
      { orgId: at.orgId, portfolioId: at.portfolioId },
    );
    const inHole = await list(env, at, 'parcels', { bbox: box(5.008, 0.008, 5.012, 0.012) });
    expect(ids(inHole, 'parcels')).toEqual(created);
  });
});

describe('parcel acres', () => {
  let at: Place;
  test('set up', async ({ env }) => {
    at = await place(env);
  });

  test('are computed on write, geodesic, and filter and sort', async ({ env }) => {
    const r = await list(env, at, 'parcels', null, [{ field: 'ACRES', direction: 'DESC' }]);
    expect(r.body.errors).toBeUndefined();
    const nodes = r.body.data.portfolio.parcels.edges.map(
      (e: { node: { id: string; acres: number } }) => e.node,
    );
    // The L is three 0.01° squares; a 0.01° square at 33.5° is about 0.01° × 1113 m × cos(33.5°)
    // × 1109 m: about 254 acres. Sorted descending, the L comes first.
    expect(nodes[0].id).toBe(at.parcels.ell);
    expect(nodes[0].acres).toBeCloseTo(3 * nodes[1].acres, -1);
    expect(nodes[1].acres).toBeGreaterThan(250);
    expect(nodes[1].acres).toBeLessThan(260);
    const small = await list(env, at, 'parcels', { acres: { lt: 300 } });
    expect(ids(small, 'parcels')).toHaveLength(3);
  });
});

describe('bad spatial input gets VALIDATION_FAILED, naming the problem (a 400 where REST or tiles ask)', () => {
  let at: Place;
  test('set up', async ({ env }) => {
    at = await place(env);
  });

  const cases: [string, 'parcels' | 'projects' | 'contacts', unknown, RegExp][] = [
    [
      'west beyond east',
      'parcels',
      { bbox: { west: 1, south: 0, east: 0, north: 1 } },
      /west must not exceed east/,
    ],
    ['latitude out of range', 'parcels', { bbox: { west: 0, south: -91, east: 1, north: 1 } }, /latitudes/],
    [
      'not GeoJSON',
      'parcels',
      { intersects: { type: 'Point', coordinates: [0, 0] } },
      /Polygon or MultiPolygon/,
    ],
    [
      'a bow-tie',
      'parcels',
      {
        within: polygon([
          [0, 0],
          [1, 1],
          [1, 0],
          [0, 1],
          [0, 0],
        ] as Ring),
      },
      /cross/,
    ],
    ['no metres', 'projects', { dWithin: { longitude: 0, latitude: 0, meters: 0 } }, /meters/],
    ['acres on projects', 'projects', { acres: { gt: 1 } }, /area of a parcel/],
  ];
  for (const [what, kind, f, reason] of cases)
    test(what, async ({ env }) => {
      const r = await env.as.alice.gql(
        `query($p: ID!, $f: RecordFilter) { node(id: $p) { ... on Portfolio { ${kind}(filter: $f) { totalCount } } } }`,
        {
          p: at.portfolioId,
          f,
        },
      );
      expect(r.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
      expect(r.body.data.node).toBeNull();
      expect(JSON.stringify(r.body.errors[0].extensions.details)).toMatch(reason);
    });

  test('contacts have no geometry: a spatial filter on them is refused, not ignored', async ({ env }) => {
    const r = await env.as.alice.gql(
      'query($p: ID!) { node(id: $p) { ... on Portfolio { contacts(filter: { bbox: { west: 0, south: 0, east: 1, north: 1 } }) { totalCount } } } }',
      {
        p: at.portfolioId,
      },
    );
    expect(r.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(r.body.errors[0].extensions.details)).toMatch(/contacts have no geometry/);
  });

  test('a parcel that crosses itself is refused on import, naming where', async ({ env }) => {
    const bow = {
      type: 'Feature',
      properties: {},
      geometry: polygon([
        [LON, LAT],
        [LON + 1, LAT + 1],
        [LON + 1, LAT],
        [LON, LAT + 1],
        [LON, LAT],
      ] as Ring),
    };
    await expect(
      importParcels(
        env.database.db,
        { type: 'FeatureCollection', features: [bow] },
        { orgId: at.orgId, portfolioId: at.portfolioId },
      ),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ reason: expect.stringMatching(/cross at/) })],
    });
  });
});
