import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { runCli } from '../src/cli/main.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { freshPortfolio, type Scope } from './records-helpers.js';
import { box, declare, logOf, upsert } from './sync-helpers.js';

/**
 * Issue 40, "one code path": `sdg parcels import` writes through the sync module's upsertRecords,
 * the service of the API's upsertParcels. With --source and --id-property a re-import of a roll
 * updates what changed, leaves the rest untouched and creates what is new; it refuses what the API
 * refuses, with the API's messages.
 */

async function sdg(env: TestEnv, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, env.database);
  const stdout = out.join('\n');
  return {
    code,
    stdout,
    stderr: err.join('\n'),
    json: argv.includes('--json') && stdout ? JSON.parse(out.at(-1)!) : undefined,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'sdg-imports-sync-'));
let files = 0;
/** Features as newline-delimited GeoJSON, in a new file. */
function roll(features: { apn?: unknown; name?: string; status?: string; x?: number }[]): string {
  const f = join(dir, `roll-${files++}.ndjson`);
  writeFileSync(
    f,
    features
      .map((p, i) =>
        JSON.stringify({
          type: 'Feature',
          properties: { APN: p.apn, name: p.name, 'Parcel status': p.status },
          geometry: box(-101.9 + (p.x ?? i) * 0.01, 33.5),
        }),
      )
      .join('\n'),
  );
  return f;
}

/** Each test its own source: sources are the organization's, shared by the tests' portfolios. */
const byApn = (source: string) => ['--source', source, '--id-property', 'APN'];

async function parcelsOf(env: TestEnv, s: Scope, source: string) {
  const { rows } = await sql<{ id: string; external_id: string; updated_at: Date; properties: any }>`
    select p.id, e.external_id, p.updated_at, p.properties from parcels p
    left join external_ids e on e.org_id = p.org_id and e.parcel_id = p.id and e.source = ${source}
    where p.org_id = ${s.orgId} and p.portfolio_id = ${s.portfolioId} order by e.external_id`.execute(
    env.database.db,
  );
  return rows;
}

describe('sdg parcels import by external id', () => {
  test('a re-import creates what is new, updates what changed and leaves the rest untouched', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    const first = await sdg(env, [
      'parcels',
      'import',
      roll([
        { apn: 'A-1', name: 'North' },
        { apn: 'A-2', name: 'South' },
        { apn: 3, name: 'East' },
      ]),
      '--portfolio',
      s.portfolioId,
      ...byApn('roll1'),
      '--declare-source',
    ]);
    expect(first.stderr).toMatch(/imported 3 parcels from 3 features/);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `Parcels of ${s.portfolioId} by APN in roll1: 3 created, 0 updated, 0 unchanged.`,
    );
    const before = await parcelsOf(env, s, 'roll1');
    expect(before.map((r) => [r.external_id, r.properties.name.text])).toEqual([
      ['3', 'East'],
      ['A-1', 'North'],
      ['A-2', 'South'],
    ]);
    // The id property matches no parcel property, and is not reported as skipped.
    expect(first.stdout).not.toMatch(/Skipped/);
    const logged = (await logOf(env, s.orgId)).length;

    const again = await sdg(env, [
      'parcels',
      'import',
      roll([
        { apn: 'A-1', name: 'North' },
        { apn: 'A-2', name: 'South, renamed' },
        { apn: 3, name: 'East' },
        { apn: 'A-4', name: 'West', x: 3 },
      ]),
      '--portfolio',
      s.portfolioId,
      ...byApn('roll1'),
      '--json',
    ]);
    expect(again.code, again.stdout).toBe(0);
    expect(again.json).toMatchObject({ count: 1, updated: 1, unchanged: 2 });
    const after = await parcelsOf(env, s, 'roll1');
    expect(after.map((r) => [r.external_id, r.properties.name.text])).toEqual([
      ['3', 'East'],
      ['A-1', 'North'],
      ['A-2', 'South, renamed'],
      ['A-4', 'West'],
    ]);
    expect(again.json.created).toEqual([after[3].id]);
    // Unchanged parcels: no write at all; one update entry and one create entry, nothing else.
    expect(after[0].updated_at).toEqual(before[0].updated_at);
    expect(after[1].updated_at).toEqual(before[1].updated_at);
    expect(after[2].updated_at.getTime()).toBeGreaterThan(before[2].updated_at.getTime());
    const entries = (await logOf(env, s.orgId)).slice(logged);
    expect(entries.map((e) => [e.record_id, e.op]).sort()).toEqual(
      [
        [after[2].id, 'update'],
        [after[3].id, 'create'],
      ].sort(),
    );

    const summary = await sdg(env, [
      'parcels',
      'import',
      roll([{ apn: 'A-1', name: 'North' }]),
      '--portfolio',
      s.portfolioId,
      ...byApn('roll1'),
    ]);
    expect(summary.stderr).toMatch(
      /imported 1 features in [\d.]+ s \([\d,]+\/s\): 0 created, 0 updated, 1 unchanged$/,
    );
  });

  test('an undeclared source is refused with the flag that declares it; the flags go together', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    const f = roll([{ apn: 'A-1', name: 'North' }]);
    const r = await sdg(env, ['parcels', 'import', f, '--portfolio', s.portfolioId, ...byApn('roll2')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /Unknown source "roll2" \((none is declared yet|declared: [^)]*)\): check its spelling, or add --declare-source/,
    );
    expect(await parcelsOf(env, s, 'roll2')).toEqual([]);
    const half = await sdg(env, ['parcels', 'import', f, '--portfolio', s.portfolioId, '--source', 'roll2']);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/--source and --id-property go together/);
    const lone = await sdg(env, ['parcels', 'import', f, '--portfolio', s.portfolioId, '--declare-source']);
    expect(lone.stderr).toMatch(/--declare-source declares the --source of the import; give --source too/);
  });

  test('a missing or repeated id is named by its feature, across batches too, and nothing is written', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    await declare(env.as.alice, s, 'roll3');
    const features = Array.from({ length: 1200 }, (_, i) => ({ apn: `P-${i}`, x: i % 40 }));
    features[3] = { apn: '', x: 3 };
    features[1100] = { apn: 'P-7', x: 0 };
    const r = await sdg(env, [
      'parcels',
      'import',
      roll(features),
      '--portfolio',
      s.portfolioId,
      ...byApn('roll3'),
      '--json',
    ]);
    expect(r.code).toBe(2);
    expect(r.json.error.details).toEqual([
      { field: 'line 4.APN', reason: "has no value: --id-property APN must name each parcel's id in roll3" },
      {
        field: 'line 1101.APN',
        reason: '"P-7" is given to an earlier feature too; each parcel of roll3 may appear once',
      },
    ]);
    expect(await parcelsOf(env, s, 'roll3')).toEqual([]);
  });

  test('the import refuses what upsertParcels refuses, with its messages', async ({ env }) => {
    const s: Scope = await freshPortfolio(env);
    await declare(env.as.alice, s, 'roll4');
    await declare(env.as.alice, s, 'crm');
    const bow = {
      type: 'Polygon',
      coordinates: [
        [
          [-101.9, 33.5],
          [-101.89, 33.51],
          [-101.89, 33.5],
          [-101.9, 33.51],
          [-101.9, 33.5],
        ],
      ],
    };
    const api = await upsert(env.as.alice, 'parcel', s, [
      { externalId: 'x', properties: { 'parcel-status': { select: ['Bogus'] } } },
      { externalId: 'y', geometry: bow },
    ]);
    const apiReasons = api.p.results.flatMap((x: any) =>
      x.userErrors.map((e: any) => e.message.replace(/^Item \d+ \(external id "\w+"\): /, '')),
    );
    expect(apiReasons).toHaveLength(2);
    const f = join(dir, 'refused.ndjson');
    writeFileSync(
      f,
      [
        { type: 'Feature', properties: { APN: 'x', 'Parcel status': 'Bogus' }, geometry: box(-101.9, 33.5) },
        { type: 'Feature', properties: { APN: 'y' }, geometry: bow },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    const cli = await sdg(env, [
      'parcels',
      'import',
      f,
      '--portfolio',
      s.portfolioId,
      ...byApn('roll4'),
      '--json',
    ]);
    expect(cli.code).toBe(2);
    expect(cli.json.error.details).toEqual([
      { field: 'line 1.parcel-status', reason: apiReasons[0] },
      { field: 'line 2.geometry', reason: apiReasons[1] },
    ]);
    expect(await parcelsOf(env, s, 'roll4')).toEqual([]);
  });

  test('--project links every parcel of the roll; a link already there is not logged again', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    const [project] = await env.database.db
      .insertInto('projects')
      .values({
        org_id: s.orgId,
        portfolio_id: s.portfolioId,
        id: 'prj_importsynctarget000000',
        properties: '{}',
      })
      .returning('id')
      .execute();
    const args = [
      '--portfolio',
      s.portfolioId,
      ...byApn('roll5'),
      '--declare-source',
      '--project',
      project.id,
    ];
    const first = await sdg(env, ['parcels', 'import', roll([{ apn: 'A-1' }, { apn: 'A-2' }]), ...args]);
    expect(first.code, first.stderr).toBe(0);
    const logged = (await logOf(env, s.orgId)).length;
    const again = await sdg(env, [
      'parcels',
      'import',
      roll([{ apn: 'A-1' }, { apn: 'A-2' }, { apn: 'A-3' }]),
      ...args,
    ]);
    expect(again.stdout).toMatch(
      /1 created, 0 updated, 2 unchanged, linked to prj_importsynctarget000000\.$/,
    );
    const linked = await env.database.db
      .selectFrom('project_parcels')
      .select('parcel_id')
      .where('org_id', '=', s.orgId)
      .where('project_id', '=', project.id)
      .execute();
    expect(linked).toHaveLength(3);
    const entries = (await logOf(env, s.orgId)).slice(logged);
    // The new parcel's create, and its link on each side: nothing for the two already linked.
    expect(entries.map((e) => e.op).sort()).toEqual(['create', 'link', 'link']);
    const { location } = await env.database.db
      .selectFrom('projects')
      .select('location')
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    expect(location).not.toBeNull();
  });
});
