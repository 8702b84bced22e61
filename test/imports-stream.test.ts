import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../src/cli/main.js';
import type { Database } from '../src/db/database.js';
import { importParcels } from '../src/modules/imports/index.js';
import { openTestDatabase, seededSnapshot } from './helpers/database.js';
import { square } from './helpers/geo.js';
import { serverStorage, sourceArgs } from './helpers/server-process.js';

/**
 * Issue 40, the import half: `sdg parcels import` reads GeoJSON FeatureCollections, newline-delimited
 * GeoJSON and CSV as streams, writes them in batches of one transaction, shows its progress on a
 * terminal, and says which feature is wrong and how to go on.
 */

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

async function sdg(argv: string[], tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s), tty }, database);
  const stdout = out.join('\n');
  return {
    code,
    stdout,
    err,
    stderr: err.join('\n'),
    json: argv.includes('--json') && stdout ? JSON.parse(out.at(-1)!) : undefined,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'sdg-imports-'));
function file(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

async function newPortfolio(name: string) {
  const org = (await sdg(['org', 'create', '--name', name, '--json'])).json;
  const pf = (await sdg(['portfolio', 'create', '--org', org.id, '--name', 'P', '--json'])).json;
  return { orgId: org.id as string, pf: pf.id as string };
}

const count = async (table: 'parcels' | 'change_log', orgId: string) =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where org_id = ${orgId}`.execute(
        database.db,
      )
    ).rows[0].n,
  );

/** The org's parcels as (name, status, geometry, acres), by name. */
async function parcelsOf(orgId: string) {
  const rows = await database.db
    .selectFrom('parcels')
    .select(['properties', 'geometry', 'acres'])
    .where('org_id', '=', orgId)
    .execute();
  return rows
    .map((r) => ({ properties: r.properties, geometry: r.geometry, acres: r.acres }))
    .sort((a, b) => JSON.stringify(a.properties).localeCompare(JSON.stringify(b.properties)));
}

const NORTH = square(-101.9, 33.5, 0.01);
const SOUTH = square(-101.9, 33.48, 0.01);
const feature = (geometry: unknown, properties: Record<string, unknown>) => ({
  type: 'Feature',
  properties,
  geometry,
});
const WKT = (g: { coordinates: number[][][] }) =>
  `POLYGON ((${g.coordinates[0].map((p) => p.join(' ')).join(', ')}))`;

/** The same four-line bow-tie each format carries at its second feature. */
const BOW = {
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

describe('sdg parcels import reads three formats as streams', () => {
  test('a FeatureCollection, newline-delimited GeoJSON and CSV (WKT and GeoJSON cells) give the same parcels', async () => {
    const fs = [
      feature(NORTH, { name: 'North 40', 'Parcel status': 'Negotiating' }),
      feature(SOUTH, { name: 'South, "40"', 'Parcel status': '' }),
    ];
    const files = {
      geojson: file('two.geojson', JSON.stringify({ type: 'FeatureCollection', features: fs }, null, 2)),
      ndjson: file('two.geojsons', `\u001e${JSON.stringify(fs[0])}\r\n\n\u001e${JSON.stringify(fs[1])}\n`),
      csv: file(
        'two.csv',
        `name,Parcel status,WKT\r\nNorth 40,Negotiating,"${WKT(NORTH)}"\r\n"South, ""40""",,"${JSON.stringify(SOUTH).replaceAll('"', '""')}"\r\n`,
      ),
    };
    const results = [];
    for (const [format, f] of Object.entries(files)) {
      const { orgId, pf } = await newPortfolio(`Format ${format}`);
      const r = await sdg(['parcels', 'import', f, '--portfolio', pf]);
      expect(r.stderr, format).toMatch(/^imported 2 parcels from 2 features in [\d.]+ s/);
      expect(r.code, format).toBe(0);
      expect(r.stdout).toBe(`Created 2 parcels in ${pf}.`);
      const got = await parcelsOf(orgId);
      expect(got[0].properties).toEqual({
        name: { text: 'North 40' },
        'parcel-status': { select: ['negotiating'] },
      });
      expect(got[1].properties).toEqual({ name: { text: 'South, "40"' } });
      expect(got[0].acres).toBeGreaterThan(200);
      results.push(got);
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });

  test('--format reads a file whatever its name; a name that says nothing gets a usage error', async () => {
    const { orgId, pf } = await newPortfolio('Format flag');
    const f = file('export.txt', `${JSON.stringify(feature(NORTH, { name: 'A' }))}\n`);
    const bad = await sdg(['parcels', 'import', f, '--portfolio', pf]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Cannot tell the format of .*export\.txt.*--format geojson\|ndjson\|csv/);
    expect((await sdg(['parcels', 'import', f, '--portfolio', pf, '--format', 'xml'])).stderr).toMatch(
      /--format must be one of geojson, ndjson, csv/,
    );
    const ok = await sdg(['parcels', 'import', f, '--portfolio', pf, '--format', 'ndjson', '--json']);
    expect(ok.code).toBe(0);
    expect(ok.json.count).toBe(1);
    expect(await count('parcels', orgId)).toBe(1);
  });

  test('a flag the import does not take is refused, and --geometry-column is for CSV only', async () => {
    const f = file('flags.ndjson', `${JSON.stringify(feature(NORTH, {}))}\n`);
    const r = await sdg(['parcels', 'import', f, '--portfolio', 'pf_x', '--org', 'org_x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /parcels import does not take --org \(it takes --portfolio, --project, --map, --format, --geometry-column, --source, --id-property, --declare-source\)/,
    );
    const g = await sdg(['parcels', 'import', f, '--portfolio', 'pf_x', '--geometry-column', 'wkt']);
    expect(g.code).toBe(2);
    expect(g.stderr).toMatch(/--geometry-column is for CSV files only/);
  });

  test('a file that is not there, or a directory, is a usage error before any database work', async () => {
    const missing = await sdg(['parcels', 'import', join(dir, 'nope.geojson'), '--portfolio', 'pf_x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read .*nope\.geojson: ENOENT/);
    const folder = join(dir, 'folder.csv');
    mkdirSync(folder);
    const r = await sdg(['parcels', 'import', folder, '--portfolio', 'pf_x']);
    expect(r.stderr).toMatch(/Cannot read .*folder\.csv: not a file/);
    expect(r.code).toBe(2);
  });
});

describe('every problem is named, and nothing is imported', () => {
  test.each([
    ['geojson', 'features[1].geometry', /cross at .* \(line 3\)/],
    ['ndjson', 'line 2.geometry', /cross at/],
    ['csv', 'line 3.geometry', /cross at/],
  ])('a self-intersecting polygon in %s is named by %s', async (format, field, reason) => {
    const { orgId, pf } = await newPortfolio(`Bow ${format}`);
    const fs = [feature(NORTH, { name: 'ok' }), feature(BOW, { name: 'bow' })];
    const text =
      format === 'geojson'
        ? `{"type":"FeatureCollection","features":[\n${fs.map((x) => JSON.stringify(x)).join(',\n')}\n]}`
        : format === 'ndjson'
          ? fs.map((x) => JSON.stringify(x)).join('\n')
          : `name,geometry\nok,"${WKT(NORTH)}"\nbow,"${WKT(BOW)}"\n`;
    const r = await sdg(['parcels', 'import', file(`bow.${format}`, text), '--portfolio', pf, '--json']);
    expect(r.code).toBe(2);
    expect(r.json.error.message).toMatch(/1 problem\(s\) in the file; nothing was imported\. Fix them/);
    expect(r.json.error.details).toEqual([{ field, reason: expect.stringMatching(reason) }]);
    expect(await count('parcels', orgId)).toBe(0);
  });

  test('a bad feature after the first batch was written rolls the batch back: no parcel, no change-log entry', async () => {
    const { orgId, pf } = await newPortfolio('Late problem');
    const logged = await count('change_log', orgId);
    const lines = Array.from({ length: 1500 }, (_, i) =>
      JSON.stringify(
        feature(square(-101 + (i % 50) * 0.001, 33 + Math.floor(i / 50) * 0.001, 0.0005), { name: `P${i}` }),
      ),
    );
    lines[1200] = JSON.stringify(feature({ type: 'Point', coordinates: [0, 0] }, {}));
    lines[1300] = '{"type": "Feature", ';
    const r = await sdg([
      'parcels',
      'import',
      file('late.ndjson', lines.join('\n')),
      '--portfolio',
      pf,
      '--json',
    ]);
    expect(r.code).toBe(2);
    expect(r.json.error.details).toEqual([
      {
        field: 'line 1201',
        reason: 'must be a Feature with a Polygon or MultiPolygon geometry (its geometry is a Point)',
      },
      {
        field: 'line 1301',
        reason: expect.stringMatching(/^is not valid JSON .*each line must be one Feature$/),
      },
    ]);
    expect(await count('parcels', orgId)).toBe(0);
    expect(await count('change_log', orgId)).toBe(logged);
  });

  test('past 100 problems the first 100 are listed and the rest counted', async () => {
    const { pf } = await newPortfolio('Many problems');
    const text = `a,geometry\n${Array.from({ length: 150 }, (_, i) => `${i},`).join('\n')}\n`;
    const r = await sdg(['parcels', 'import', file('many.csv', text), '--portfolio', pf, '--json']);
    expect(r.json.error.message).toMatch(/^150 problem\(s\) in the file \(the first 100 are listed\)/);
    expect(r.json.error.details).toHaveLength(100);
    expect(r.json.error.details[0]).toEqual({
      field: 'line 2',
      reason: 'has no geometry: its "geometry" cell is empty',
    });
  });

  test.each([
    [
      'cut.geojson',
      '{"type":"FeatureCollection","features":[\n{"type":"Feature"},\n',
      /ends before its FeatureCollection does .*\(line 3\)/,
    ],
    ['array.geojson', '[]', /must start with "\{"/],
    ['points.csv', 'apn,lon,lat\n1,-101,33\n', /longitude\/latitude columns, but a parcel is an area/],
    ['nogeom.csv', 'apn,name\n1,x\n', /no geometry column: name one "geometry".*The header has: apn, name/],
    ['quote.csv', 'a,geometry\n"1,x\n', /quoted cell is never closed.*line 2/],
    ['empty.ndjson', '\n\n', /no features: nothing to import/],
  ])('%s is refused with a reason that says what to fix', async (name, text, reason) => {
    const { orgId, pf } = await newPortfolio(`Refused ${name}`);
    const r = await sdg(['parcels', 'import', file(name, text), '--portfolio', pf]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(reason);
    expect(await count('parcels', orgId)).toBe(0);
  });

  test('--geometry-column names the CSV column, and must exist', async () => {
    const { orgId, pf } = await newPortfolio('Geometry column');
    const text = `apn,outline\n7,"${WKT(NORTH)}"\n`;
    const missing = await sdg([
      'parcels',
      'import',
      file('col.csv', text),
      '--portfolio',
      pf,
      '--geometry-column',
      'shp',
    ]);
    expect(missing.stderr).toMatch(
      /--geometry-column shp: the CSV header has no such column \(it has apn, outline\)/,
    );
    const r = await sdg([
      'parcels',
      'import',
      file('col.csv', text),
      '--portfolio',
      pf,
      '--geometry-column',
      'OUTLINE',
    ]);
    expect(r.code).toBe(0);
    expect(await count('parcels', orgId)).toBe(1);
  });
});

describe('progress', () => {
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      JSON.stringify(feature(square(-101 + (i % 50) * 0.001, 33 + Math.floor(i / 50) * 0.001, 0.0005), {})),
    ).join('\n');

  test('on a terminal, a line redrawn after each batch: read, written, rate, share of the file', async () => {
    const { pf } = await newPortfolio('Progress tty');
    const r = await sdg(['parcels', 'import', file('progress.ndjson', many(2500)), '--portfolio', pf], true);
    expect(r.code).toBe(0);
    const lines = r.err.filter((l) => l.startsWith('\r'));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^\r\[#*\.*\] 1,000 features read, 1,000 written \([\d,]+\/s\) \d+% of 0\.\d MB$/,
    );
    expect(lines[2]).toMatch(/^\r\[#{20}\] 2,500 features read, 2,500 written .* 100% of/);
    expect(r.err.at(-1)).toMatch(/^\nimported 2,500 parcels from 2,500 features in/);
  });

  test('after a problem the line says that the rest is checked and nothing written', async () => {
    const { orgId, pf } = await newPortfolio('Progress problem');
    const lines = many(2500).split('\n');
    lines[500] = '{}';
    const r = await sdg(
      ['parcels', 'import', file('problem.ndjson', lines.join('\n')), '--portfolio', pf],
      true,
    );
    expect(r.code).toBe(2);
    const redrawn = r.err.filter((l) => l.startsWith('\r'));
    expect(redrawn).toHaveLength(3);
    for (const l of redrawn)
      expect(l).toMatch(/ features read, 0 written .*, 1 problem\(s\): checking the rest, writing nothing$/);
    expect(r.err).toContainEqual(
      expect.stringMatching(/^\nread 2,500 features in [\d.]+ s; nothing was imported$/),
    );
    expect(r.err.at(-1)).toMatch(
      /^sdg: 1 problem\(s\) in the file; nothing was imported\.[\s\S]*line 501: must be a Feature/,
    );
    expect(await count('parcels', orgId)).toBe(0);
  });

  test('elsewhere only the summary; with --json not even that', async () => {
    const { pf } = await newPortfolio('Progress pipe');
    const r = await sdg(['parcels', 'import', file('quiet.ndjson', many(1500)), '--portfolio', pf]);
    expect(r.err).toEqual([
      expect.stringMatching(/^imported 1,500 parcels from 1,500 features in [\d.]+ s \([\d,]+\/s\)$/),
    ]);
    const j = await sdg(['parcels', 'import', file('quiet.ndjson', many(10)), '--portfolio', pf, '--json']);
    expect(j.err).toEqual([]);
    expect(j.json.created).toHaveLength(10);
  });
});

test('the import writes through the sync service in calls of 1,000, as the API upserts', async () => {
  const { orgId, pf } = await newPortfolio('Batches');
  const fs = Array.from({ length: 2300 }, (_, i) =>
    feature(square(-101 + (i % 50) * 0.001, 33 + Math.floor(i / 50) * 0.001, 0.0005), {}),
  );
  const seen: number[] = [];
  const logged = await count('change_log', orgId);
  const res = await importParcels(
    database.db,
    { type: 'FeatureCollection', features: fs },
    { orgId, portfolioId: pf, onProgress: (p) => seen.push(p.written) },
  );
  expect(seen).toEqual([1000, 2000, 2300]);
  expect(res).toMatchObject({ count: 2300, updated: 0, unchanged: 0 });
  expect(res.created).toHaveLength(2300);
  expect(await count('parcels', orgId)).toBe(2300);
  // One create entry per parcel, as the API's upsert logs them.
  expect((await count('change_log', orgId)) - logged).toBe(2300);
});

const snapshot = seededSnapshot();
test.skipIf(!snapshot)('- reads standard input, as the real bin runs', { timeout: 180_000 }, async () => {
  const storage = await serverStorage();
  try {
    const pf = snapshot!.demo.orgs.B.portfolios.B1;
    const child = spawn(
      process.execPath,
      [
        ...sourceArgs('src/cli/cli.ts'),
        'parcels',
        'import',
        '-',
        '--format',
        'ndjson',
        '--portfolio',
        pf,
        '--json',
      ],
      { env: { ...process.env, ...storage.env }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdin.end(
      `${JSON.stringify(feature(NORTH, { name: 'piped' }))}\n${JSON.stringify(feature(SOUTH, {}))}\n`,
    );
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({
      count: 2,
      created: [expect.any(String), expect.any(String)],
    });
  } finally {
    await storage.cleanup();
  }
});
