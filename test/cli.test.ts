import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/main.js';
import type { Database } from '../src/db/database.js';
import { propertyIndexSql, propertyNamePart } from '../src/modules/records/order.js';
import { schemasByKeys } from '../src/modules/schema/repository.js';
import { openTestDatabase } from './helpers/database.js';
import { square, TRIANGLE } from './helpers/geo.js';
import { client } from './helpers/http.js';
import { sourceArgs } from './helpers/server-process.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

/** Runs sdg in-process against the test database; returns exit code and output. */
async function sdg(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, database);
  const stdout = out.join('\n');
  return {
    code,
    stdout,
    stderr: err.join('\n'),
    json: argv.includes('--json') && stdout ? JSON.parse(out.at(-1)!) : undefined,
  };
}

/** `sdg … --json`: its JSON output. */
const sdgJson = async (...argv: string[]) => (await sdg(...argv, '--json')).json;
const newOrg = (name: string) => sdgJson('org', 'create', '--name', name);
const newPortfolio = (org: string, name: string) =>
  sdgJson('portfolio', 'create', '--org', org, '--name', name);
/** `sdg schema property add` on one kind of one org; `extra` adds --option, --required, --json. */
const addProperty = (org: string, kind: string, id: string, name: string, type: string, ...extra: string[]) =>
  sdg(
    'schema',
    'property',
    'add',
    '--org',
    org,
    '--kind',
    kind,
    '--id',
    id,
    '--name',
    name,
    '--type',
    type,
    ...extra,
  );

/** A GeoJSON file of these features, in a fresh temporary folder. */
function geojsonFile(name: string, fs: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sdg-')), name);
  writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: fs }));
  return file;
}

describe('sdg', () => {
  test('--help lists every command', async () => {
    const r = await sdg('--help');
    expect(r.code).toBe(0);
    for (const c of [
      'migrate',
      'seed --demo',
      'org create',
      'portfolio create',
      'user create',
      'member add',
      'guest grant',
      'key create',
      'key revoke',
      'schema property add',
      'parcels import',
    ]) {
      expect(r.stdout).toContain(c);
    }
  });

  test('migrate --json reports an up-to-date database', async () => {
    const r = await sdg('migrate', '--json');
    expect(r.code).toBe(0);
    expect(r.json.applied).toEqual([]);
  });

  test('seed --demo --json prints exactly the documented shape, and refuses to run twice', async () => {
    const r = await sdg('seed', '--demo', '--json');
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['orgs', 'users']);
    expect(Object.keys(r.json.users).sort()).toEqual(['alice', 'bob', 'gina', 'nora', 'vera']);
    for (const u of Object.values<{ uid: string; apiKey: string }>(r.json.users)) {
      expect(Object.keys(u).sort()).toEqual(['apiKey', 'uid']);
      expect(u.apiKey).toMatch(/^sdg_/);
    }
    expect(Object.keys(r.json.orgs.A.portfolios).sort()).toEqual(['A1', 'A2']);
    expect(Object.keys(r.json.orgs.B.portfolios)).toEqual(['B1']);
    const again = await sdg('seed', '--demo', '--json');
    expect(again.code).toBe(2);
    expect(again.json.error.message).toMatch(/already/);
  });

  test('org, portfolio, user, member, key: a new tenant works end to end over REST', async () => {
    const org = await newOrg('Mesa Power');
    const pf = await newPortfolio(org.id, 'Arizona');
    const user = await sdgJson('user', 'create', '--email', 'max@mesa.example', '--name', 'Max Mesa');
    const member = await sdg(
      'member',
      'add',
      '--org',
      org.id,
      '--user',
      'max@mesa.example',
      '--role',
      'member',
    );
    expect(member.code).toBe(0);
    const key = await sdgJson('key', 'create', '--user', user.id);
    expect(key.apiKey).toMatch(/^sdg_/);

    const app = await buildApp({ database });
    try {
      const api = client(app, key.apiKey);
      expect((await api.get('/organizations/v1')).body).toEqual([{ id: org.id, name: 'Mesa Power' }]);
      expect(
        (await api.get('/portfolios/v1', { orgId: org.id })).body.map((p: { id: string }) => p.id),
      ).toEqual([pf.id]);
      // New orgs get the spec's default properties.
      const schema = await api.get('/projects/v1/schema', { orgId: org.id });
      expect(schema.body.properties.map((p: { id: string }) => p.id)).toEqual(['name']);

      expect(await sdgJson('key', 'revoke', '--key', key.id)).toEqual({ revoked: true });
      expect((await api.get('/organizations/v1')).status).toBe(401);
      expect((await sdg('key', 'revoke', '--key', key.id)).code).toBe(2);
    } finally {
      await app.close();
    }
  });

  test('guest grant gives access to one portfolio only', async () => {
    const org = await newOrg('Guest Org');
    const p1 = await newPortfolio(org.id, 'One');
    await newPortfolio(org.id, 'Two');
    await sdgJson('user', 'create', '--email', 'g@guest.example', '--name', 'Guest');
    expect((await sdg('guest', 'grant', '--portfolio', p1.id, '--user', 'g@guest.example')).code).toBe(0);
    const key = await sdgJson('key', 'create', '--user', 'g@guest.example');
    const app = await buildApp({ database });
    try {
      const r = await client(app, key.apiKey).get('/portfolios/v1', { orgId: org.id });
      expect(r.body.map((p: { id: string }) => p.id)).toEqual([p1.id]);
      const users = await client(app, key.apiKey).get('/users/v1', { orgId: org.id });
      expect(users.body).toEqual([expect.objectContaining({ email: 'g@guest.example', role: 'guest' })]);
    } finally {
      await app.close();
    }
  });

  test('schema property add: select with options, stored in the schema', async () => {
    const org = await newOrg('Schema Org');
    const r = await addProperty(
      org.id,
      'parcel',
      'zoning',
      'Zoning',
      'select',
      '--option',
      'ag:Agricultural:#22c55e',
      '--option',
      'ind:Industrial:#64748b',
    );
    expect(r.code).toBe(0);
    const defs = await database.db
      .selectFrom('property_defs')
      .selectAll()
      .where('org_id', '=', org.id)
      .where('id', '=', 'zoning')
      .execute();
    expect(defs[0]).toMatchObject({
      kind: 'parcel',
      property_type: 'select',
      options: [
        { id: 'ag', name: 'Agricultural', color: '#22c55e' },
        { id: 'ind', name: 'Industrial', color: '#64748b' },
      ],
    });
  });

  /** [what, kind, id, type, what stderr says]: each refused with exit code 2. */
  const REFUSED: [string, string, string, string, RegExp][] = [
    [
      'a select without options',
      'parcel',
      'z2',
      'select',
      /options: a select property needs at least one option/,
    ],
    ['an unknown type', 'parcel', 'z3', 'colour', /type: must be one of text, url/],
    ['location on projects', 'project', 'location', 'text', /computed/],
    ['an id that is not a name', 'parcel', '9lives', 'text', /id: must start with a letter/],
  ];
  test.for(REFUSED)('schema property add refuses %s and says why', async ([, kind, id, type, says]) => {
    const org = await newOrg(`Refused ${id}`);
    const r = await addProperty(org.id, kind, id, 'Z', type);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(says);
    const json = await addProperty(org.id, kind, id, 'Z', type, '--json');
    expect(json.json.error.code).toBe('VALIDATION_FAILED');
  });

  test('parcels import: GeoJSON features become parcels, mapped by id, name and --map, linked to a project', async () => {
    const org = await newOrg('Import Org');
    const pf = await newPortfolio(org.id, 'Imports');
    await addProperty(org.id, 'parcel', 'acreage', 'Acreage', 'number');
    const [project] = await database.db
      .insertInto('projects')
      .values({
        org_id: org.id,
        portfolio_id: pf.id,
        id: 'prj_importtarget000000000000',
        properties: JSON.stringify({ name: { text: 'Target' } }),
      })
      .returning('id')
      .execute();
    const file = geojsonFile('parcels.geojson', [
      {
        type: 'Feature',
        geometry: square(0, 0, 1),
        properties: { name: 'North 40', 'Parcel status': 'Negotiating', ACRES: '40.5', ignored: 1 },
      },
      {
        type: 'Feature',
        geometry: square(2, 0, 1),
        properties: { name: 'South 40', 'parcel-status': 'prospect', ACRES: 41 },
      },
    ]);
    const r = await sdg(
      'parcels',
      'import',
      file,
      '--portfolio',
      pf.id,
      '--project',
      project.id,
      '--map',
      'ACRES=acreage',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(r.json.created).toHaveLength(2);
    expect(r.json.skippedKeys).toEqual(['ignored']);
    const parcels = await database.db
      .selectFrom('parcels')
      .select(['id', 'properties'])
      .where('org_id', '=', org.id)
      .execute();
    const byName = Object.fromEntries(
      parcels.map((p) => [(p.properties.name as { text: string }).text, p.properties]),
    );
    expect(byName['North 40']).toEqual({
      name: { text: 'North 40' },
      'parcel-status': { select: ['negotiating'] },
      acreage: { number: 40.5 },
    });
    expect(byName['South 40']['parcel-status']).toEqual({ select: ['prospect'] });
    const links = await database.db
      .selectFrom('project_parcels')
      .selectAll()
      .where('project_id', '=', project.id)
      .execute();
    expect(links).toHaveLength(2);
    const loc = await database.db
      .selectFrom('projects')
      .select('location')
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    expect(loc.location).toEqual({ type: 'Point', coordinates: [1.5, 0.5] });
  });

  test('parcels import is all or nothing: one bad feature imports nothing and says which', async () => {
    const org = await newOrg('Bad Import Org');
    const pf = await newPortfolio(org.id, 'Imports');
    const file = geojsonFile('bad.geojson', [
      { type: 'Feature', geometry: TRIANGLE, properties: { name: 'ok' } },
      { type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] }, properties: {} },
      { type: 'Feature', geometry: TRIANGLE, properties: { 'parcel-status': 'sold' } },
    ]);
    const r = await sdg('parcels', 'import', file, '--portfolio', pf.id, '--json');
    expect(r.code).toBe(2);
    expect(r.json.error.details.map((d: { field: string }) => d.field)).toEqual([
      'features[1]',
      'features[2].parcel-status',
    ]);
    const count = await database.db
      .selectFrom('parcels')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  test('unknown ids and commands get exit code 2 and a hint', async () => {
    const r = await sdg('portfolio', 'create', '--org', 'org_nope', '--name', 'X');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/sdg org create/);
    const u = await sdg('frobnicate');
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/--help/);
  });

  test('the real bin runs: sdg --help exits 0 as a process', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...sourceArgs('src/cli/cli.ts'),
      '--help',
    ]);
    expect(stdout).toContain('sdg <command>');
  });
});

describe('sdg: schema and import guards', () => {
  test('a property cannot change type once defined', async () => {
    const org = await newOrg('Type Org');
    expect((await addProperty(org.id, 'contact', 'acres', 'Acres', 'number')).code).toBe(0);
    // Renaming keeps the type: fine.
    expect((await addProperty(org.id, 'contact', 'acres', 'Acres owned', 'number')).code).toBe(0);
    const r = await addProperty(org.id, 'contact', 'acres', 'Acres', 'text', '--json');
    expect(r.code).toBe(2);
    expect(r.json.error.details[0].reason).toMatch(/add a new property/);
  });

  test('parcels import refuses people values that name users outside the organization', async () => {
    const org = await newOrg('People Import Org');
    const pf = await newPortfolio(org.id, 'P');
    await addProperty(org.id, 'parcel', 'agent', 'Agent', 'people');
    const outsider = await sdgJson(
      'user',
      'create',
      '--email',
      'outsider@else.example',
      '--name',
      'Out Sider',
    );
    const file = geojsonFile('people.geojson', [
      { type: 'Feature', geometry: TRIANGLE, properties: { agent: outsider.id } },
    ]);
    const r = await sdg('parcels', 'import', file, '--portfolio', pf.id, '--json');
    expect(r.code).toBe(2);
    expect(r.json.error.details).toEqual([expect.objectContaining({ field: 'features[0].agent' })]);
  });
});

describe('sdg schema index', () => {
  /** The tags of the sort indexes on parcels whose definition names `id`, by their names. */
  async function sortIndexesOf(id: string): Promise<string[]> {
    const { rows } = await sql<{ name: string }>`
      select indexname as name from pg_indexes where tablename = 'parcels' and indexname like 'parcels_sort_%'
        and strpos(indexdef, ${`'${id}'::text`}) > 0`.execute(database.db);
    const prefix = `parcels_sort_${propertyNamePart(id)}_`;
    return rows
      .map((r) => (r.name.startsWith(prefix) ? r.name.slice(prefix.length, -'_idx'.length) : r.name))
      .sort();
  }

  test('creates the four indexes of a number property, once; statistics for a select; refuses the rest', async () => {
    const org = await newOrg('Index Org');
    await addProperty(org.id, 'parcel', 'acres_idx', 'Acres', 'number');
    const index = (id: string, ...extra: string[]) =>
      sdg('schema', 'index', '--org', org.id, '--kind', 'parcel', '--id', id, ...extra);
    const r = await index('acres_idx', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ indexes: 4, statistics: 0 });
    expect(await sortIndexesOf('acres_idx')).toEqual(['hi', 'ids', 'lo', 'page']);
    expect((await index('acres_idx', '--json')).code).toBe(0);
    await addProperty(org.id, 'parcel', 'tags_idx', 'Tags', 'multi_select', '--option', 'a:A:#000000');
    const bad = await index('tags_idx');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /cannot be sorted, and a record can be in several of its groups\. Nothing to create/,
    );

    // A select sorts by option position, which no index follows; grouping by it gets statistics.
    await addProperty(org.id, 'parcel', 'stage_stat', 'Stage', 'select', '--option', 'a:A:#000000');
    const stage = await index('stage_stat');
    expect(stage.code).toBe(0);
    expect(stage.stdout).toMatch(/statistics for parcels\.stage_stat in place: grouped aggregates/);
    const { rows: stats } = await sql<{ expr: string }>`
      select pg_get_statisticsobjdef_expressions(oid)::text as expr from pg_statistic_ext
      where stxname like 'parcels_group_stage_stat_%'`.execute(database.db);
    expect(stats).toHaveLength(1);
    expect(stats[0].expr).toContain(`properties -> 'stage_stat'::text`);
    expect((await index('stage_stat', '--json')).json).toMatchObject({ indexes: 0, statistics: 1 });
    // A checkbox sorts and groups: its sort pair and its statistics. People only group.
    await addProperty(org.id, 'parcel', 'tick_stat', 'Tick', 'checkbox');
    expect((await index('tick_stat', '--json')).json).toMatchObject({ indexes: 2, statistics: 1 });
    await addProperty(org.id, 'parcel', 'agent_stat', 'Agent', 'people');
    expect((await index('agent_stat', '--json')).json).toMatchObject({ indexes: 0, statistics: 1 });
    const { rows: made } = await sql<{ stxname: string }>`select stxname from pg_statistic_ext
      where stxname ~ '^parcels_group_(stage|tick|agent)_stat_'`.execute(database.db);
    expect(made).toHaveLength(3);
    for (const { stxname } of made) await sql`drop statistics ${sql.id(stxname)}`.execute(database.db);
  });
  test('ids that read alike as identifiers get indexes of their own; one under its earlier name is renamed, not built again', async () => {
    const org = await newOrg('Alike Org');
    await addProperty(org.id, 'parcel', 'lot-size', 'Lot size', 'number');
    await addProperty(org.id, 'parcel', 'lot_size', 'Lot size (2)', 'number');
    // What an earlier build made for lot-size: its hi index, named without the hash.
    const [schema] = await schemasByKeys(database.db, [{ orgId: org.id, kind: 'parcel' }]);
    const [hi] = propertyIndexSql('parcels', schema, 'lot-size');
    const earlier = hi.create.compile(database.db).sql.replace(hi.name, hi.legacyName);
    await sql.raw(earlier).execute(database.db);
    const oid = async (name: string) =>
      (await sql<{ oid: number }>`select to_regclass(${name})::oid::int as oid`.execute(database.db)).rows[0]
        .oid;
    const before = await oid(hi.legacyName);
    expect(before).toBeGreaterThan(0);

    const index = (id: string) =>
      sdg('schema', 'index', '--org', org.id, '--kind', 'parcel', '--id', id, '--json');
    expect((await index('lot-size')).json).toMatchObject({ indexes: 4, renamed: 1 });
    expect(await oid(hi.name)).toBe(before);
    expect(await oid(hi.legacyName)).toBeNull();
    expect(await sortIndexesOf('lot-size')).toEqual(['hi', 'ids', 'lo', 'page']);
    // The other id, whose earlier names were the same: its own four, none taken from lot-size.
    expect((await index('lot_size')).json).toMatchObject({ indexes: 4, renamed: 0 });
    expect(await sortIndexesOf('lot_size')).toEqual(['hi', 'ids', 'lo', 'page']);
    expect(await sortIndexesOf('lot-size')).toEqual(['hi', 'ids', 'lo', 'page']);
  });
});
