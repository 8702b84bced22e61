import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as formatsModule from 'ajv-formats';
import { runCli } from '../src/cli/main.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { square } from './helpers/geo.js';
import { details, freshOrg } from './records-helpers.js';

/** The checkbox property type end to end: REST, GraphQL values, filters, sorting, OpenAPI and the import. */

// ajv-formats is CommonJS; under NodeNext its default export arrives as `.default`.
const addFormats = ((formatsModule as any).default?.default ??
  (formatsModule as any).default) as typeof import('ajv-formats').default;

const PROJECT_PROPS = { project: [{ id: 'grid_ok', name: 'Grid approved', type: 'checkbox' as const }] };

async function setup(env: TestEnv) {
  const org = await freshOrg(env, {
    ...PROJECT_PROPS,
    parcel: [{ id: 'irrigated', name: 'Irrigated', type: 'checkbox' }],
  });
  const scope = { orgId: org.orgId, portfolioId: org.portfolioId };
  const create = (name: string, extra: Record<string, unknown> = {}) =>
    org.owner.post('/projects/v1', { properties: { name: { text: name }, ...extra } }, scope);
  return { org, scope, create };
}

const LIST = `query($pf: ID!, $filter: RecordFilter, $orderBy: [RecordOrder!]) { node(id: $pf) { ... on Portfolio {
  projects(first: 50, filter: $filter, orderBy: $orderBy) { totalCount edges { node { id
    value(propertyId: "grid_ok") { __typename ... on CheckboxValue { checked property { type } } } } } }
} } }`;

describe('checkbox', () => {
  test('REST writes true and false, reads them back, clears with null, and refuses anything else', async ({
    env,
  }) => {
    const { org, scope, create } = await setup(env);
    const yes = await create('Yes', { grid_ok: { checkbox: true } });
    expect(yes.status).toBe(200);
    expect(yes.body.properties.grid_ok).toEqual({ checkbox: true });
    const id = yes.body.id;
    const off = await org.owner.put(
      `/projects/v1/${id}`,
      { properties: { grid_ok: { checkbox: false } } },
      scope,
    );
    expect(off.body.properties.grid_ok).toEqual({ checkbox: false });
    const cleared = await org.owner.put(
      `/projects/v1/${id}`,
      { properties: { grid_ok: { checkbox: null } } },
      scope,
    );
    expect(cleared.body.properties).toEqual({ name: { text: 'Yes' } });
    for (const bad of ['yes', 1, 'true', [true], { value: true }]) {
      const r = await create('Bad', { grid_ok: { checkbox: bad } });
      expect(details(r), JSON.stringify(bad)).toEqual([
        {
          field: 'grid_ok',
          reason:
            'checkbox must be true or false (a JSON boolean, not a string): expected { "checkbox": true } (or { "checkbox": null } to clear)',
        },
      ]);
    }
    expect(details(await create('Bad', { grid_ok: { text: 'x' } }))[0].reason).toMatch(
      /must have exactly one member "checkbox"/,
    );
    const schema = await org.owner.get('/projects/v1/schema', { orgId: scope.orgId });
    expect(schema.body.properties).toContainEqual({
      id: 'grid_ok',
      name: 'Grid approved',
      property_type: 'checkbox',
    });
  });

  test('GraphQL: a CheckboxValue, the eq and isEmpty filters, and false < true sorting', async ({ env }) => {
    const { org, scope, create } = await setup(env);
    const ids = {
      on: (await create('On', { grid_ok: { checkbox: true } })).body.id,
      off: (await create('Off', { grid_ok: { checkbox: false } })).body.id,
      unset: (await create('Unset')).body.id,
      on2: (await create('On again', { grid_ok: { checkbox: true } })).body.id,
    };
    const list = async (vars: Record<string, unknown>) => {
      const r = await org.owner.gql(LIST, { pf: scope.portfolioId, ...vars });
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data.node.projects;
    };
    const all = await list({});
    expect(all.edges.map((e: any) => e.node.value)).toEqual([
      { __typename: 'CheckboxValue', checked: true, property: { type: 'CHECKBOX' } },
      { __typename: 'CheckboxValue', checked: false, property: { type: 'CHECKBOX' } },
      null,
      { __typename: 'CheckboxValue', checked: true, property: { type: 'CHECKBOX' } },
    ]);
    const where = async (checkbox: Record<string, boolean>) =>
      (await list({ filter: { property: { id: 'grid_ok', checkbox } } })).edges.map((e: any) => e.node.id);
    expect(await where({ eq: true })).toEqual([ids.on, ids.on2]);
    expect(await where({ eq: false })).toEqual([ids.off]);
    expect(await where({ isEmpty: true })).toEqual([ids.unset]);
    expect(await where({ isEmpty: false })).toEqual([ids.on, ids.off, ids.on2]);
    const sorted = async (direction: string, nulls?: string) =>
      (await list({ orderBy: [{ property: 'grid_ok', direction, nulls }] })).edges.map((e: any) => e.node.id);
    expect(await sorted('ASC')).toEqual([ids.off, ids.on, ids.on2, ids.unset]);
    expect(await sorted('DESC')).toEqual([ids.on2, ids.on, ids.off, ids.unset]);
    expect(await sorted('ASC', 'FIRST')).toEqual([ids.unset, ids.off, ids.on, ids.on2]);
    // A wrong operator group names the one that fits.
    const wrong = await org.owner.gql(LIST, {
      pf: scope.portfolioId,
      filter: { property: { id: 'grid_ok', text: { eq: 'x' } } },
    });
    expect(wrong.body.errors[0].extensions.details[0]).toMatchObject({
      operatorGroup: 'checkbox',
      allowedOperators: ['eq', 'isEmpty'],
    });
  });

  test('OpenAPI describes checkbox values, and real bodies match it', async ({ env }) => {
    const { create } = await setup(env);
    const doc = (await env.as.anon.get('/openapi.json')).body;
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const check = (name: string, v: unknown) => ajv.getSchema(`openapi.json#/components/schemas/${name}`)!(v);
    expect(doc.components.schemas.SchemaProperty.properties.property_type.enum).toContain('checkbox');
    const made = await create('Doc', { grid_ok: { checkbox: true } });
    expect(check('Project', made.body)).toBe(true);
    expect(check('PropertiesInput', { grid_ok: { checkbox: null } })).toBe(true);
    expect(check('PropertiesInput', { grid_ok: { checkbox: 'yes' } })).toBe(false);
    expect(check('CheckboxValue', { checkbox: 'yes' })).toBe(false);
  });

  test('sdg parcels import reads true/false, yes/no, y/n, 1/0 and on/off, and refuses other words', async ({
    env,
  }) => {
    const { org } = await setup(env);
    const values = [true, 'FALSE', 'Yes', 'no', 'y', 'N', 1, '0', 'on', ' Off ', ''];
    const file = join(mkdtempSync(join(tmpdir(), 'sdg-')), 'flags.geojson');
    const features = values.map((v, i) => ({
      type: 'Feature',
      geometry: square(i * 2, 0, 1),
      properties: { name: `p${i}`, Irrigated: v },
    }));
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features }));
    const sdg = async (...argv: string[]) => {
      const out: string[] = [];
      const code = await runCli(argv, { out: (s) => out.push(s), err: () => {} }, env.database);
      return { code, json: JSON.parse(out.at(-1)!) };
    };
    const r = await sdg('parcels', 'import', file, '--portfolio', org.portfolioId, '--json');
    expect(r.code).toBe(0);
    const rows = await env.database.db
      .selectFrom('parcels')
      .select('properties')
      .where('org_id', '=', org.orgId)
      .execute();
    const byName = Object.fromEntries(rows.map((p: any) => [p.properties.name.text, p.properties.irrigated]));
    expect(values.map((_, i) => byName[`p${i}`])).toEqual([
      { checkbox: true },
      { checkbox: false },
      { checkbox: true },
      { checkbox: false },
      { checkbox: true },
      { checkbox: false },
      { checkbox: true },
      { checkbox: false },
      { checkbox: true },
      { checkbox: false },
      undefined,
    ]);
    writeFileSync(
      file,
      JSON.stringify({
        type: 'FeatureCollection',
        features: [{ ...features[0], properties: { Irrigated: 'maybe' } }],
      }),
    );
    const bad = await sdg('parcels', 'import', file, '--portfolio', org.portfolioId, '--json');
    expect(bad.code).toBe(2);
    expect(bad.json.error.details).toEqual([
      expect.objectContaining({
        field: 'features[0].irrigated',
        reason: expect.stringMatching(/true or false/),
      }),
    ]);
  });
});
