/**
 * `npm run bench -- --sync` (or alone: `npx tsx bench/sync.ts [--records N] [--per-record N] [--label L]`): issue
 * 40's sync goals, on Postgres (DATABASE_URL's server, database `sdg_bench_sync`, dropped and made
 * again at every run).
 *
 * 1. `--sync-records` (alone: `--records`) parcels (default 100,000) with a boundary each, sent through the GraphQL API as
 *    `upsertParcels` calls of 1,000, one call at a time: records per second, end to end.
 * 2. The same records sent again, unchanged: records per second, and the change log's row count
 *    before and after (nothing may be written).
 * 3. The one-mutation-per-record path: `upsertParcels` with one item per call, one at a time, over
 *    a sample (`--per-record`, default 1,000 new parcels): records per second.
 * 4. The raw floor: the same rows (a fresh portfolio, new ids) inserted by one
 *    `INSERT … SELECT FROM unnest(…) ON CONFLICT` statement per batch of 1,000, through `pg`, with
 *    every parameter (values, geometry, acres, box, rings) built before the clock starts.
 *
 * The gateway runs as its own process in production mode (the server entry of the build this file
 * belongs to: dist/ under `npm run bench`, the sources through tsx when run alone), so its peak RSS
 * (the kernel's high-water mark over the four phases) is the gateway's alone.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { newId } from '../src/ids.js';
import { createApiKey } from '../src/modules/auth/index.js';
import { addMember, createOrg, createPortfolio, createUser } from '../src/modules/org/index.js';
import { geometryColumns } from '../src/modules/records/index.js';
import { installDefaultProperties } from '../src/modules/schema/index.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { gridSquare } from './geo.js';
import { load1 } from './machine.js';
import { freePort, ServerProcess } from './proc.js';
import { gatewayEnv } from './runner.js';

export interface SyncBenchOptions {
  serverUrl: string;
  records: number;
  batch: number;
  perRecord: number;
}

const DB_NAME = 'sdg_bench_sync';
const r1 = (v: number) => Math.round(v * 10) / 10;

const UPSERT = `mutation Sync($input: UpsertRecordsInput!) {
  upsertParcels(input: $input) { created updated unchanged failed results { outcome userErrors { message } } } }`;

/** Parcel `i`: a county-roll row with a square boundary on a grid of 0.002° cells around Lubbock. */
function parcel(i: number) {
  return {
    externalId: `apn-${i}`,
    properties: { name: { text: `Parcel ${i}` }, 'parcel-status': { select: ['prospect'] } },
    geometry: gridSquare(i, { x: -102, y: 33, columns: 500, cell: 0.002, side: 0.0015 }),
  };
}

export interface SyncBenchResult {
  records: number;
  batch: number;
  bulk: { seconds: number; perSecond: number };
  unchanged: { seconds: number; perSecond: number; logRowsBefore: number; logRowsAfter: number };
  perRecord: { records: number; seconds: number; perSecond: number };
  floor: { seconds: number; perSecond: number };
  peakRssMb: number;
  load1: number;
}

export async function runSync(o: SyncBenchOptions, log = (s: string) => process.stderr.write(`${s}\n`)) {
  const admin = new pg.Client({ connectionString: o.serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${DB_NAME} with (force)`);
  await admin.query(`create database ${DB_NAME}`);
  await admin.end();
  const url = new URL(o.serverUrl);
  url.pathname = `/${DB_NAME}`;
  const database = await createDatabase({ url: url.toString() });
  await migrateToLatest(database.db);
  const db = database.db;
  const org = await createOrg(db, 'Sync bench');
  await installDefaultProperties(db, org.id);
  const pf = await createPortfolio(db, org.id, 'County roll');
  const floorPf = await createPortfolio(db, org.id, 'Floor');
  const user = await createUser(db, 'sync-bench@example.com', 'Sync bench');
  await addMember(db, org.id, user.id, 'owner');
  const key = (await createApiKey(db, user.id, 'sync bench')).apiKey;
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, '../src/server.js');
  const args = existsSync(built) ? [built] : ['--import', 'tsx', join(PACKAGE_ROOT, 'src/server.ts')];
  const rawDir = join(PACKAGE_ROOT, 'bench/results/raw');
  mkdirSync(rawDir, { recursive: true });
  const server = new ServerProcess(
    'sync-gateway',
    process.execPath,
    args,
    gatewayEnv({ DATABASE_URL: url.toString() }),
    await freePort(),
    join(rawDir, 'sync-gateway.log'),
  );
  await server.ready();
  const base = server.url;
  const post = async (query: string, variables: unknown) => {
    const r = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await r.json()) as { data?: any; errors?: unknown[] };
    if (r.status !== 200 || body.errors)
      throw new Error(`HTTP ${r.status}: ${JSON.stringify(body).slice(0, 400)}`);
    return body.data;
  };
  const logRows = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from change_log where org_id = ${org.id}`.execute(db))
      .rows[0].n;
  server.startWindow();
  try {
    await post(
      `mutation { registerExternalSource(input: { orgId: "${org.id}", name: "county" }) { sources } }`,
      {},
    );
    const call = async (from: number, n: number, portfolioId = pf.id) => {
      const items = Array.from({ length: n }, (_, k) => parcel(from + k));
      return (await post(UPSERT, { input: { orgId: org.id, portfolioId, source: 'county', items } }))
        .upsertParcels;
    };
    const timed = async (label: string, expect: 'created' | 'unchanged') => {
      const t0 = performance.now();
      for (let i = 0; i < o.records; i += o.batch) {
        const out = await call(i, Math.min(o.batch, o.records - i));
        if (out.failed || out[expect] !== Math.min(o.batch, o.records - i))
          throw new Error(`${label}: batch at ${i} answered ${JSON.stringify(out).slice(0, 400)}`);
        if (i % (o.batch * 10) === 0) log(`  ${label}: ${i + o.batch}/${o.records}`);
      }
      const seconds = (performance.now() - t0) / 1000;
      return { seconds: r1(seconds), perSecond: Math.round(o.records / seconds) };
    };
    log(`1. ${o.records} parcels in calls of ${o.batch}`);
    const bulk = await timed('create', 'created');
    const before = await logRows();
    log('2. the same again, unchanged');
    const unchanged = {
      ...(await timed('unchanged', 'unchanged')),
      logRowsBefore: before,
      logRowsAfter: await logRows(),
    };
    log(`3. ${o.perRecord} parcels one per call`);
    const t0 = performance.now();
    for (let i = 0; i < o.perRecord; i++) {
      const out = await call(o.records + i, 1);
      if (out.created !== 1) throw new Error(`one-per-call answered ${JSON.stringify(out)}`);
    }
    const perSec = (performance.now() - t0) / 1000;
    const perRecord = {
      records: o.perRecord,
      seconds: r1(perSec),
      perSecond: Math.round(o.perRecord / perSec),
    };
    log('4. the raw floor');
    const floor = await rawFloor(url.toString(), org.id, floorPf.id, o);
    return {
      records: o.records,
      batch: o.batch,
      bulk,
      unchanged,
      perRecord,
      floor,
      peakRssMb: r1(server.endWindow().peakRssMb),
      load1: load1(),
    } satisfies SyncBenchResult;
  } finally {
    await server.stop();
    await database.close();
  }
}

/** One INSERT … SELECT FROM unnest(…) ON CONFLICT per batch, parameters built before the clock starts. */
async function rawFloor(url: string, orgId: string, portfolioId: string, o: SyncBenchOptions) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const batches: unknown[][] = [];
    for (let i = 0; i < o.records; i += o.batch) {
      const rows = Array.from({ length: Math.min(o.batch, o.records - i) }, (_, k) => parcel(i + k));
      const cols = rows.map((r) => geometryColumns(r.geometry));
      batches.push([
        orgId,
        portfolioId,
        rows.map(() => newId('Parcel')),
        rows.map((r) => JSON.stringify(r.properties)),
        rows.map((r) => JSON.stringify(r.geometry)),
        cols.map((c) => c.acres),
        cols.map((c) => c.bounds),
        cols.map((c) => c.rings),
      ]);
    }
    const text = `insert into parcels (org_id, portfolio_id, id, properties, geometry, acres, bounds, rings, created_at, updated_at)
      select $1, $2, x.id, x.p, x.g, x.a, x.b::box, x.r::polygon[], now(), now()
      from unnest($3::text[], $4::jsonb[], $5::jsonb[], $6::float8[], $7::text[], $8::text[]) as x(id, p, g, a, b, r)
      on conflict (org_id, id) do update set properties = excluded.properties, geometry = excluded.geometry,
        acres = excluded.acres, bounds = excluded.bounds, rings = excluded.rings, updated_at = excluded.updated_at`;
    const t0 = performance.now();
    for (const values of batches) await client.query(text, values);
    const seconds = (performance.now() - t0) / 1000;
    return { seconds: r1(seconds), perSecond: Math.round(o.records / seconds) };
  } finally {
    await client.end();
  }
}

export function syncMarkdown(r: SyncBenchResult, command: string): string {
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  return [
    '# Sync: bulk upsert of parcels (issue 40)',
    '',
    `\`${command}\`: Postgres, the gateway as its own process (production mode), one call at a time; load average ${r.load1} at the end.`,
    '',
    '| path | records | seconds | records/s | goal |',
    '|---|---:|---:|---:|---|',
    `| upsertParcels, calls of ${r.batch} (create) | ${r.records} | ${r.bulk.seconds} | ${r.bulk.perSecond} | ≥ 2,000/s: ${r.bulk.perSecond >= 2000 ? 'met' : '**not met**'} |`,
    `| the same again, unchanged | ${r.records} | ${r.unchanged.seconds} | ${r.unchanged.perSecond} | ≥ 5,000/s: ${r.unchanged.perSecond >= 5000 ? 'met' : '**not met**'}; change-log rows ${r.unchanged.logRowsBefore} → ${r.unchanged.logRowsAfter} |`,
    `| upsertParcels, one record per call | ${r.perRecord.records} | ${r.perRecord.seconds} | ${r.perRecord.perSecond} | bulk ÷ this: ${ratio(r.bulk.perSecond, r.perRecord.perSecond)}× (goal ≥ 10×) |`,
    `| raw floor: INSERT … SELECT FROM unnest(…) ON CONFLICT per ${r.batch} | ${r.records} | ${r.floor.seconds} | ${r.floor.perSecond} | bulk ÷ floor: ${ratio(r.bulk.perSecond, r.floor.perSecond)}× (aim ≥ 0.5×) |`,
    '',
    `Gateway peak RSS over the four phases: ${r.peakRssMb} MB (goal < 300 MB).`,
    '',
  ].join('\n');
}

/** The bench runner's `--sync`. */
export async function syncCommand(
  o: SyncBenchOptions,
  label: string | undefined,
  write: boolean,
  resultsDir = join(PACKAGE_ROOT, 'bench/results'),
  command = `npm run bench -- --sync --sync-records ${o.records} --per-record ${o.perRecord}`,
) {
  const r = await runSync(o);
  const md = syncMarkdown(r, command);
  process.stdout.write(`\n${md}\n`);
  if (write) {
    const name = `sync${label ? `-${label}` : ''}`;
    writeFileSync(join(resultsDir, `${name}.md`), md);
    writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify(r, null, 2)}\n`);
  }
  return r;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values: v } = parseArgs({
    options: {
      records: { type: 'string' },
      'per-record': { type: 'string' },
      label: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  syncCommand(
    {
      serverUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
      records: Number(v.records ?? 100_000),
      batch: 1000,
      perRecord: Number(v['per-record'] ?? 1000),
    },
    v.label,
    !v['no-write'],
    undefined,
    `npx tsx bench/sync.ts ${process.argv.slice(2).join(' ')}`.trim(),
  ).then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`sync bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
