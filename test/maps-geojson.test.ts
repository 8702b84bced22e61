import { importParcels } from '../src/modules/imports/index.js';
import { createPortfolio } from '../src/modules/org/index.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';

/**
 * GeoJSON of a portfolio's records: GET /geojson/v1/parcels and /projects, and
 * Portfolio.parcelFeatures / projectFeatures in GraphQL, paged like the record lists.
 */

const LON = -101.9;
const LAT = 33.5;
const square = (x: number, y: number, d: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [LON + x, LAT + y],
      [LON + x + d, LAT + y],
      [LON + x + d, LAT + y + d],
      [LON + x, LAT + y + d],
      [LON + x, LAT + y],
    ],
  ],
});

interface Place {
  orgId: string;
  portfolioId: string;
  project: string;
  /** Parcel ids in list order. */
  parcels: string[];
  wetland: string;
}

let placed: Promise<Place> | undefined;
function place(env: TestEnv): Promise<Place> {
  placed ??= (async () => {
    const orgId = env.demo.orgs.A.id;
    const { id: portfolioId } = await createPortfolio(env.database.db, orgId, 'GeoJSON test');
    const project = await env.as.alice.post(
      '/projects/v1',
      { properties: { name: { text: 'Mapped' }, stage: { select: ['permitting'] } } },
      { orgId, portfolioId },
    );
    const features = Array.from({ length: 5 }, (_, i) => ({
      type: 'Feature',
      properties: { apn: `P-${i}`, constraints: i === 2 ? 'wetland' : 'airport' },
      geometry: square(i * 0.01, 0, 0.005),
    }));
    await importParcels(
      env.database.db,
      { type: 'FeatureCollection', features },
      { orgId, portfolioId, projectId: project.body.id },
    );
    const list = await env.as.bob.gql(
      'query($id: ID!) { node(id: $id) { ... on Portfolio { parcels(first: 100) { nodes { id properties } } } } }',
      { id: portfolioId },
    );
    const nodes = list.body.data.node.parcels.nodes as { id: string; properties: any }[];
    return {
      orgId,
      portfolioId,
      project: project.body.id,
      parcels: nodes.map((n) => n.id),
      wetland: nodes.find((n) => n.properties.apn.text === 'P-2')!.id,
    };
  })();
  return placed;
}

describe('GeoJSON', () => {
  test('REST: a FeatureCollection of records, paged by limit and startKey over the same items as the list', async ({
    env,
  }) => {
    const p = await place(env);
    const seen: string[] = [];
    let startKey: string | undefined;
    for (let i = 0; i < 5; i++) {
      const r = await env.as.bob.get('/geojson/v1/parcels', {
        orgId: p.orgId,
        portfolioId: p.portfolioId,
        limit: 2,
        startKey,
      });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/geo+json; charset=utf-8');
      expect(r.body.type).toBe('FeatureCollection');
      for (const f of r.body.features) {
        expect(f.type).toBe('Feature');
        expect(f.geometry.type).toBe('Polygon');
        expect(f.properties._id).toBe(f.id);
        expect(f.properties._acres).toBeGreaterThan(0);
        expect(f.properties.apn).toMatch(/^P-\d$/);
        seen.push(f.id);
      }
      startKey = r.body.nextKey ?? undefined;
      if (!startKey) break;
    }
    expect(startKey).toBeUndefined();
    expect(seen).toEqual(p.parcels);

    const projects = await env.as.bob.get('/geojson/v1/projects', {
      orgId: p.orgId,
      portfolioId: p.portfolioId,
    });
    const [project] = projects.body.features;
    expect(project).toMatchObject({
      id: p.project,
      geometry: { type: 'Point' },
      properties: { _id: p.project, name: 'Mapped', stage: 'permitting', 'stage.label': 'Permitting' },
    });
  });

  test('the filter and search are the lists’', async ({ env }) => {
    const p = await place(env);
    const filter = JSON.stringify({
      property: { id: 'constraints', multiSelect: { containsAny: ['wetland'] } },
    });
    const r = await env.as.bob.get('/geojson/v1/parcels', {
      orgId: p.orgId,
      portfolioId: p.portfolioId,
      filter,
    });
    expect(r.body.features.map((f: { id: string }) => f.id)).toEqual([p.wetland]);
    expect(r.body.features[0].properties).toMatchObject({
      constraints: 'wetland',
      'constraints.label': 'Wetland',
    });
    const s = await env.as.bob.get('/geojson/v1/parcels', {
      orgId: p.orgId,
      portfolioId: p.portfolioId,
      search: 'P-2',
    });
    expect(s.body.features.map((f: { id: string }) => f.id)).toEqual([p.wetland]);
  });

  test('GraphQL: parcelFeatures pages like parcels, and their cursors are interchangeable', async ({
    env,
  }) => {
    const p = await place(env);
    const q = `query($id: ID!, $after: String) { node(id: $id) { ... on Portfolio {
      parcels(first: 2, after: $after) { nodes { id } pageInfo { endCursor } }
      parcelFeatures(first: 2, after: $after) { type totalCount features { type id geometry properties } pageInfo { hasNextPage endCursor } }
    } } }`;
    const first = await env.as.bob.gql(q, { id: p.portfolioId });
    expect(first.body.errors).toBeUndefined();
    const { parcels, parcelFeatures } = first.body.data.node;
    expect(parcelFeatures.type).toBe('FeatureCollection');
    expect(parcelFeatures.totalCount).toBe(5);
    expect(parcelFeatures.features.map((f: { id: string }) => f.id)).toEqual(
      parcels.nodes.map((n: { id: string }) => n.id),
    );
    expect(parcelFeatures.pageInfo.endCursor).toBe(parcels.pageInfo.endCursor);
    const second = await env.as.bob.gql(q, { id: p.portfolioId, after: parcels.pageInfo.endCursor });
    expect(second.body.data.node.parcelFeatures.features.map((f: { id: string }) => f.id)).toEqual(
      p.parcels.slice(2, 4),
    );
  });

  test('out of reach answers 404; bad parameters 400', async ({ env }) => {
    const p = await place(env);
    const scope = { orgId: p.orgId, portfolioId: p.portfolioId };
    for (const who of ['nora', 'gina'] as const) {
      const r = await env.as[who].get('/geojson/v1/parcels', scope);
      expect(r.status, who).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
    expect(
      (
        await env.as.gina.get('/geojson/v1/parcels', {
          orgId: p.orgId,
          portfolioId: env.demo.orgs.A.portfolios.A1,
        })
      ).status,
    ).toBe(200);
    const bad = async (query: Record<string, string | number>, field: string) => {
      const r = await env.as.bob.get('/geojson/v1/parcels', { ...scope, ...query });
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_FAILED');
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    };
    await bad({ limit: 0 }, 'limit');
    await bad({ offset: 10 }, 'offset');
    await bad({ filter: 'nope' }, 'filter');
    await bad({ filter: JSON.stringify({ property: { id: 'apn', number: { eq: 1 } } }) }, 'apn');
    const noOrg = await env.as.bob.get('/geojson/v1/parcels', { portfolioId: p.portfolioId });
    expect(noOrg.status).toBe(400);
    expect(noOrg.body.error.details[0].field).toBe('orgId');
  });
});
