import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli/main.js';
import { importParcels } from '../src/modules/imports/index.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { LAT, LON, type Ring, squareNear as square } from './helpers/geo.js';

/**
 * `Project.location`: the area-weighted centroid of the linked parcels' polygons, checked against
 * polygons whose centroid is worked out by hand. Planar in degrees (see src/modules/records/geo.ts).
 */

const feature = (rings: Ring[], properties: Record<string, unknown> = {}) => ({
  type: 'Feature',
  properties,
  geometry: { type: 'Polygon', coordinates: rings },
});
const fc = (...features: unknown[]) => ({ type: 'FeatureCollection', features });

const scope = (env: TestEnv) => ({ orgId: env.demo.orgs.A.id, portfolioId: env.demo.orgs.A.portfolios.A1 });

async function newProject(env: TestEnv, name = 'Located'): Promise<string> {
  const r = await env.as.alice.post('/projects/v1', { properties: { name: { text: name } } }, scope(env));
  expect(r.status).toBe(200);
  return r.body.id;
}

/** The project as REST v1 lists it. */
async function restProject(env: TestEnv, id: string) {
  const r = await env.as.bob.get('/projects/v1', { ...scope(env), limit: 5000 });
  expect(r.status).toBe(200);
  const p = r.body.items.find((i: { id: string }) => i.id === id);
  expect(p, id).toBeDefined();
  return p;
}

async function gqlLocation(env: TestEnv, id: string) {
  const r = await env.as.bob.gql(
    'query($id: ID!) { project(id: $id) { location { longitude latitude geojson } properties } }',
    { id },
  );
  expect(r.body.errors).toBeUndefined();
  return r.body.data.project;
}

/** Both surfaces agree and equal [lon, lat] to 1e-7 degrees (about 1 cm). */
async function expectLocation(env: TestEnv, id: string, lon: number, lat: number) {
  const g = await gqlLocation(env, id);
  expect(g.location.longitude).toBeCloseTo(lon, 7);
  expect(g.location.latitude).toBeCloseTo(lat, 7);
  expect(g.location.geojson).toEqual({
    type: 'Point',
    coordinates: [g.location.longitude, g.location.latitude],
  });
  const rest = await restProject(env, id);
  expect(rest.properties.location).toEqual({
    location: { type: 'Point', coordinates: [g.location.longitude, g.location.latitude] },
  });
  expect(g.properties.location).toEqual(rest.properties.location);
}

describe('the computed location', () => {
  test('two squares of different sizes: the area-weighted centroid, by hand', async ({ env }) => {
    // Square A: side 0.01 at (0, 0): area 1e-4, centre (0.005, 0.005).
    // Square B: side 0.02 at (0.02, 0): area 4e-4, centre (0.03, 0.01).
    // Centroid: x = (0.005·1 + 0.03·4) / 5 = 0.025, y = (0.005·1 + 0.01·4) / 5 = 0.009.
    // (The plain mean of the two centres, (0.0175, 0.0075), would be wrong.)
    const project = await newProject(env);
    await importParcels(
      env.database.db,
      fc(feature([square(0, 0, 0.01)]), feature([square(0.02, 0, 0.02)])),
      {
        ...scope(env),
        projectId: project,
      },
    );
    await expectLocation(env, project, LON + 0.025, LAT + 0.009);
    // Projects reached through a link list carry it the same way.
    const parcel = (await env.as.bob.get(`/projects/v1/${project}/parcels`, scope(env))).body.items[0].id;
    const viaLink = await env.as.bob.get(`/parcels/v1/${parcel}/projects`, scope(env));
    expect(viaLink.body.items[0].properties.location).toEqual(
      (await restProject(env, project)).properties.location,
    );
  });

  test('holes are subtracted, and a MultiPolygon counts every part', async ({ env }) => {
    // A 0.02 square with a 0.01 hole in its south-west quarter: an L of area 3e-4. Centroid:
    // (0.01·4 − 0.005·1) / 3 = 0.035 / 3 on both axes.
    const holed = await newProject(env, 'Holed');
    const hole = square(0, 0, 0.01).reverse();
    await importParcels(env.database.db, fc(feature([square(0, 0, 0.02), hole])), {
      ...scope(env),
      projectId: holed,
    });
    await expectLocation(env, holed, LON + 0.035 / 3, LAT + 0.035 / 3);

    // The two squares of the first test as one MultiPolygon give the same point as two parcels.
    const multi = await newProject(env, 'Multi');
    await importParcels(
      env.database.db,
      fc({
        type: 'Feature',
        properties: {},
        geometry: { type: 'MultiPolygon', coordinates: [[square(0, 0, 0.01)], [square(0.02, 0, 0.02)]] },
      }),
      { ...scope(env), projectId: multi },
    );
    await expectLocation(env, multi, LON + 0.025, LAT + 0.009);
  });

  test('ring orientation does not matter (clockwise and counter-clockwise squares)', async ({ env }) => {
    const project = await newProject(env, 'Clockwise');
    await importParcels(
      env.database.db,
      fc(feature([square(0, 0, 0.01).reverse()]), feature([square(0.02, 0, 0.02)])),
      { ...scope(env), projectId: project },
    );
    await expectLocation(env, project, LON + 0.025, LAT + 0.009);
  });

  test('absent when a project has no parcels: no REST member, GraphQL null', async ({ env }) => {
    const project = await newProject(env, 'Bare');
    const rest = await restProject(env, project);
    expect(rest.properties).not.toHaveProperty('location');
    expect((await gqlLocation(env, project)).location).toBeNull();
    // The demo projects without parcels, too.
    const g = await env.as.bob.gql(
      `query($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
        projects(first: 100) { edges { node { id location { longitude } parcels(first: 0) { totalCount } } } } } } }`,
      { o: scope(env).orgId, p: scope(env).portfolioId },
    );
    const nodes = g.body.data.organization.portfolio.projects.edges.map((e: any) => e.node);
    const bare = nodes.filter((n: any) => n.parcels.totalCount === 0);
    expect(bare.length).toBeGreaterThanOrEqual(3);
    for (const n of bare) expect(n.location).toBeNull();
    for (const n of nodes.filter((x: any) => x.parcels.totalCount > 0)) expect(n.location).not.toBeNull();
  });

  test('demo locations lie inside the bounding box of their parcels', async ({ env }) => {
    const g = await env.as.bob.gql(
      `query($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
        projects(first: 100) { edges { node { id location { longitude latitude }
          parcels(first: 100) { edges { node { geometry } } } } } } } } }`,
      { o: scope(env).orgId, p: scope(env).portfolioId },
    );
    expect(g.body.errors).toBeUndefined();
    let checked = 0;
    for (const { node } of g.body.data.organization.portfolio.projects.edges) {
      const pts = node.parcels.edges.flatMap((e: any) =>
        e.node.geometry.coordinates.flat(e.node.geometry.type === 'MultiPolygon' ? 2 : 1),
      );
      if (!pts.length) continue;
      const xs = pts.map((p: number[]) => p[0]);
      const ys = pts.map((p: number[]) => p[1]);
      expect(node.location.longitude).toBeGreaterThanOrEqual(Math.min(...xs));
      expect(node.location.longitude).toBeLessThanOrEqual(Math.max(...xs));
      expect(node.location.latitude).toBeGreaterThanOrEqual(Math.min(...ys));
      expect(node.location.latitude).toBeLessThanOrEqual(Math.max(...ys));
      checked++;
    }
    // 47 demo projects have parcels, plus those the tests above created.
    expect(checked).toBeGreaterThanOrEqual(47);
  });
});

describe('recomputed when the parcels change (sdg parcels import --project)', () => {
  test('each import through the CLI moves the location to the centroid of all parcels so far', async ({
    env,
  }) => {
    const project = await newProject(env, 'Grows');
    const dir = mkdtempSync(join(tmpdir(), 'sdg-location-'));
    const run = async (name: string, collection: unknown) => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify(collection));
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        ['parcels', 'import', file, '--portfolio', scope(env).portfolioId, '--project', project, '--json'],
        { out: (s) => out.push(s), err: (s) => err.push(s) },
        env.database,
      );
      expect(code, err.join('\n') + out.join('\n')).toBe(0);
      return JSON.parse(out.join(''));
    };
    const first = await run('a.geojson', fc(feature([square(0, 0, 0.01)])));
    expect(first.linkedTo).toBe(project);
    await expectLocation(env, project, LON + 0.005, LAT + 0.005);
    await run('b.geojson', fc(feature([square(0.02, 0, 0.02)])));
    await expectLocation(env, project, LON + 0.025, LAT + 0.009);
    // A third square of side 0.03 at (0, 0.03): area 9e-4, centre (0.015, 0.045).
    // x = (0.005 + 0.12 + 0.135) / 14 = 0.26 / 14, y = (0.005 + 0.04 + 0.405) / 14 = 0.45 / 14.
    await run('c.geojson', fc(feature([square(0, 0.03, 0.03)])));
    await expectLocation(env, project, LON + 0.26 / 14, LAT + 0.45 / 14);
    // Importing without --project leaves it alone.
    const out: string[] = [];
    const file = join(dir, 'd.geojson');
    writeFileSync(file, JSON.stringify(fc(feature([square(0.5, 0.5, 0.1)]))));
    expect(
      await runCli(
        ['parcels', 'import', file, '--portfolio', scope(env).portfolioId, '--json'],
        { out: (s) => out.push(s), err: () => {} },
        env.database,
      ),
    ).toBe(0);
    await expectLocation(env, project, LON + 0.26 / 14, LAT + 0.45 / 14);
  });

  test('a failed import changes neither the parcels nor the location', async ({ env }) => {
    const project = await newProject(env, 'Atomic');
    await importParcels(env.database.db, fc(feature([square(0, 0, 0.01)])), {
      ...scope(env),
      projectId: project,
    });
    const bad = fc(feature([square(0.02, 0, 0.02)]), { type: 'Feature', properties: {}, geometry: null });
    await expect(
      importParcels(env.database.db, bad, { ...scope(env), projectId: project }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expectLocation(env, project, LON + 0.005, LAT + 0.005);
    const parcels = await env.as.bob.get(`/projects/v1/${project}/parcels`, scope(env));
    expect(parcels.body.items).toHaveLength(1);
  });

  test('a project of another portfolio is refused; nothing is imported', async ({ env }) => {
    const project = await newProject(env, 'Elsewhere');
    await expect(
      importParcels(env.database.db, fc(feature([square(0, 0, 0.01)])), {
        orgId: env.demo.orgs.A.id,
        portfolioId: env.demo.orgs.A.portfolios.A2,
        projectId: project,
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await gqlLocation(env, project)).location).toBeNull();
  });

  test('concurrent imports into one project: the location counts every parcel', async ({ env }) => {
    const project = await newProject(env, 'Busy');
    // Five squares along the x axis, side 0.01·k at x = 0.1·k: area k²·1e-4, centre x = 0.1k + 0.005k.
    const ks = [1, 2, 3, 4, 5];
    await Promise.all(
      ks.map((k) =>
        importParcels(env.database.db, fc(feature([square(0.1 * k, 0, 0.01 * k)])), {
          ...scope(env),
          projectId: project,
        }),
      ),
    );
    const area = ks.reduce((s, k) => s + k * k, 0);
    const x = ks.reduce((s, k) => s + k * k * 0.105 * k, 0) / area;
    const y = ks.reduce((s, k) => s + k * k * 0.005 * k, 0) / area;
    await expectLocation(env, project, LON + x, LAT + y);
  });
});

describe('clients can never set the location', () => {
  const point = { location: { type: 'Point', coordinates: [-100, 30] } };

  test('REST create and update with location get 400; the stored location stays', async ({ env }) => {
    const s = scope(env);
    const create = await env.as.alice.post(
      '/projects/v1',
      { properties: { name: { text: 'Sneaky' }, location: point } },
      s,
    );
    expect(create.status).toBe(400);
    expect(create.body.error.code).toBe('VALIDATION_FAILED');
    expect(create.body.error.details).toContainEqual(
      expect.objectContaining({ field: 'location', reason: expect.stringMatching(/read-only/) }),
    );

    const project = await newProject(env, 'Has a location');
    await importParcels(env.database.db, fc(feature([square(0, 0, 0.01)])), { ...s, projectId: project });
    for (const value of [
      point,
      { location: null },
      null,
      { text: 'here' },
      (await restProject(env, project)).properties.location,
    ]) {
      const r = await env.as.alice.put(`/projects/v1/${project}`, { properties: { location: value } }, s);
      expect(r.status, JSON.stringify(value)).toBe(400);
      expect(r.body.error.details).toContainEqual(expect.objectContaining({ field: 'location' }));
    }
    await expectLocation(env, project, LON + 0.005, LAT + 0.005);
    // An ordinary update keeps it and returns it.
    const ok = await env.as.alice.put(
      `/projects/v1/${project}`,
      { properties: { name: { text: 'Renamed' } } },
      s,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.properties.location.location.coordinates[0]).toBeCloseTo(LON + 0.005, 7);
    await expectLocation(env, project, LON + 0.005, LAT + 0.005);
  });

  test('GraphQL create and update with location get a READ_ONLY userError', async ({ env }) => {
    const s = scope(env);
    const project = await newProject(env, 'GraphQL');
    const c = await env.as.alice.gql(
      'mutation($i: CreateRecordInput!) { createProject(input: $i) { project { id } userErrors { code propertyId } } }',
      { i: { ...s, properties: { name: { text: 'x' }, location: point } } },
    );
    expect(c.body.data.createProject).toEqual({
      project: null,
      userErrors: [{ code: 'READ_ONLY', propertyId: 'location' }],
    });
    const u = await env.as.alice.gql(
      'mutation($i: UpdateRecordInput!) { updateProject(input: $i) { project { id } userErrors { code propertyId } } }',
      { i: { id: project, properties: { location: point } } },
    );
    expect(u.body.data.updateProject.userErrors).toEqual([{ code: 'READ_ONLY', propertyId: 'location' }]);
    expect((await gqlLocation(env, project)).location).toBeNull();
  });

  test('no schema property can take the key "location" on projects', async ({ env }) => {
    const out: string[] = [];
    const code = await runCli(
      [
        'schema',
        'property',
        'add',
        '--org',
        env.demo.orgs.A.id,
        '--kind',
        'project',
        '--id',
        'location',
        '--name',
        'Where',
        '--type',
        'text',
        '--json',
      ],
      { out: (s) => out.push(s), err: (s) => out.push(s) },
      env.database,
    );
    expect(code).not.toBe(0);
    const schema = await env.as.bob.get('/projects/v1/schema', { orgId: env.demo.orgs.A.id });
    expect(schema.body.properties.map((p: { id: string }) => p.id)).not.toContain('location');
  });
});

describe('imported geometry is checked before anything is stored', () => {
  const poly = (coordinates: unknown) => ({
    type: 'Feature',
    properties: {},
    geometry: { type: 'Polygon', coordinates },
  });
  const bad: [string, unknown][] = [
    ['coordinates not an array', poly('x')],
    ['no rings', poly([])],
    ['a ring that is not an array', poly([7])],
    [
      'a ring of three positions',
      poly([
        [
          [0, 0],
          [1, 0],
          [0, 0],
        ],
      ]),
    ],
    [
      'an open ring',
      poly([
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 1],
        ],
      ]),
    ],
    [
      'a position with a string',
      poly([
        [
          [0, 0],
          ['1', 0],
          [1, 1],
          [0, 0],
        ],
      ]),
    ],
    ['a position with one number', poly([[[0, 0], [1], [1, 1], [0, 0]]])],
    [
      'a longitude beyond 180',
      poly([
        [
          [0, 0],
          [181, 0],
          [1, 1],
          [0, 0],
        ],
      ]),
    ],
    [
      'a latitude beyond 90',
      poly([
        [
          [0, 0],
          [1, 91],
          [1, 1],
          [0, 0],
        ],
      ]),
    ],
    [
      'a MultiPolygon of non-polygons',
      { type: 'Feature', properties: {}, geometry: { type: 'MultiPolygon', coordinates: [1, 2] } },
    ],
  ];
  for (const [what, f] of bad) {
    test(`${what}: VALIDATION_FAILED naming the feature, nothing imported, location unchanged`, async ({
      env,
    }) => {
      const project = await newProject(env, what);
      await expect(
        importParcels(env.database.db, fc(feature([square(0, 0, 0.01)]), f), {
          ...scope(env),
          projectId: project,
        }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: expect.stringMatching(/^features\[1\]\.geometry/) })],
      });
      expect((await gqlLocation(env, project)).location).toBeNull();
      expect((await env.as.bob.get(`/projects/v1/${project}/parcels`, scope(env))).body.items).toEqual([]);
    });
  }

  test('a zero-area polygon is a valid parcel but does not move the location', async ({ env }) => {
    const project = await newProject(env, 'Sliver');
    const flat: Ring = [
      [LON, LAT],
      [LON + 0.5, LAT],
      [LON + 1, LAT],
      [LON, LAT],
    ];
    await importParcels(env.database.db, fc(feature([square(0, 0, 0.01)]), feature([flat])), {
      ...scope(env),
      projectId: project,
    });
    await expectLocation(env, project, LON + 0.005, LAT + 0.005);
  });
});
