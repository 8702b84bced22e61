/**
 * `npm run bench -- --maps`: issue 39's map targets, on Postgres.
 *
 * - a bbox holding about 1,000 parcels (the GeoJSON page and the GraphQL list of it), p50 ≤ 30 ms;
 * - a z14 tile ≤ 20 ms, and the tile covering the whole portfolio ≤ 150 ms and ≤ 500 KB;
 * - a z10 tile and a tile at the zoom a map shows the whole portfolio at, for their size.
 *
 * Every request is sent alone (one connection, one at a time), as a map's first load sends them on
 * a quiet server. Each case's floor is the statements the gateway sent for that request, run raw
 * with `pg` on one connection in the same run: a second gateway process, started with
 * bench/sql-capture.ts preloaded, answers the request once warm and records its statements (their
 * number checked against `x-sql-statements`), so the floor cannot drift from the gateway's SQL.
 * Gateway and floor take turns in slices of about a second, so a busy moment of the shared machine
 * falls on both. The ratio is the gateway's p50 over the floor's.
 *
 * The cases are placed on the first portfolio's data: the bbox grown from its centre until it holds
 * about 1,000 parcels, the z14 and z10 tiles that hold the most parcel centres, the smallest tile
 * holding the portfolio's whole box, and the tile at the portfolio's centre at the zoom where its box
 * spans about 1,000 pixels (a map fitted to the portfolio).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import pg from 'pg';
import { parseTimestamptz } from '../src/db/timestamps.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { percentile } from './load.js';
import { load1, machineInfo } from './machine.js';
import { freePort, ServerProcess } from './proc.js';
import { type ProfileSummary, summarizeProfile } from './profile.js';
import {
  type BenchOptions,
  gatewayEnv,
  type PostgresBenchOptions,
  type PreparedDataset,
  prepareDataset,
} from './runner.js';
import type { CapturedStatement } from './sql-capture.js';
import { r2 } from './stats.js';

// The gateway's parsers (src/db/database.ts), so the floor reads rows no slower than it does.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz);
pg.types.setTypeParser(20, (v) => Number(v));

export type MapsOptions = PostgresBenchOptions &
  Pick<BenchOptions, 'duration' | 'warmup' | 'cpuProf'> & {
    /** Case ids to run; all when empty. */
    only: string[];
  };

/** What a browser's map sends: tiles and pages are compressed when the gateway does so. */
const ACCEPT = { 'accept-encoding': 'gzip, deflate, br' };

export interface MapCase {
  id: string;
  title: string;
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  /** Issue 39's bounds, where it sets them. */
  target?: { p50Ms?: number; maxBytes?: number };
}

interface Sample {
  p50: number;
  p90: number;
  mean: number;
  requests: number;
}

export interface MapRow {
  id: string;
  title: string;
  path: string;
  status: number;
  /** The answer's body as sent (compressed when it was) and as read. */
  wireBytes: number;
  bodyBytes: number;
  encoding: string;
  /** Tiles: features drawn; pages: features or nodes in the answer. */
  features: number | null;
  statements: number;
  gateway: Sample;
  floor: Sample;
  /** Gateway p50 ÷ floor p50. */
  ratio: number;
  target?: MapCase['target'];
  met?: boolean;
}

const say = (o: Pick<MapsOptions, 'quiet'>, line: string) => {
  if (!o.quiet) process.stderr.write(`${line}\n`);
};

// ---- The tile grid (Web Mercator, as src/modules/maps/tiles.ts) ----

const tileX = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
function tileY(lat: number, z: number): number {
  const r = (lat * Math.PI) / 180;
  return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z);
}

/** The tile of zoom z holding the most of these points. */
function densest(points: [number, number][], z: number): { z: number; x: number; y: number; n: number } {
  const counts = new Map<string, number>();
  let best = { z, x: 0, y: 0, n: 0 };
  for (const [lon, lat] of points) {
    const x = tileX(lon, z);
    const y = tileY(lat, z);
    const k = `${x}/${y}`;
    const n = (counts.get(k) ?? 0) + 1;
    counts.set(k, n);
    if (n > best.n) best = { z, x, y, n };
  }
  return best;
}

// ---- HTTP, without fetch's decompression, so the bytes on the wire are seen ----

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function send(base: string, key: string, c: MapCase): Promise<Answer> {
  const url = new URL(c.path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method: c.method,
        headers: {
          'x-api-key': key,
          ...ACCEPT,
          ...(c.body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(c.body);
  });
}

function decoded(a: Answer): Buffer {
  const enc = a.headers['content-encoding'];
  if (enc === 'gzip') return gunzipSync(a.body);
  if (enc === 'br') return brotliDecompressSync(a.body);
  return a.body;
}

/** Features of a tile (from GraphQL's count, asked separately) or of a JSON answer. */
function featuresOf(c: MapCase, body: Buffer): number | null {
  if (c.path.includes('.mvt')) return null;
  try {
    const j = JSON.parse(body.toString());
    if (Array.isArray(j.features)) return j.features.length;
    const nodes = j.data?.node?.parcels?.nodes;
    return Array.isArray(nodes) ? nodes.length : null;
  } catch {
    return null;
  }
}

// ---- Timing ----

function summarize(ms: number[]): Sample {
  const s = Float64Array.from(ms).sort();
  let sum = 0;
  for (const v of s) sum += v;
  return {
    p50: r2(percentile(s, 50)),
    p90: r2(percentile(s, 90)),
    mean: r2(s.length ? sum / s.length : 0),
    requests: s.length,
  };
}

/** Runs `once` repeatedly for about `seconds` (at least `min` times), returning each duration in ms. */
async function timed(seconds: number, min: number, once: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (out.length < min || performance.now() < until) {
    const t = performance.now();
    await once();
    out.push(performance.now() - t);
  }
  return out;
}

// ---- The statements of one request, from the capturing gateway ----

async function captureStatements(
  server: ServerProcess,
  logFile: string,
  key: string,
  c: MapCase,
): Promise<CapturedStatement[]> {
  await send(server.url, key, c);
  for (let attempt = 0; attempt < 5; attempt++) {
    const from = statSync(logFile).size;
    const a = await send(server.url, key, c);
    if (a.status !== 200) throw new Error(`${c.id}: ${a.status} ${decoded(a).toString().slice(0, 300)}`);
    const lines = readFileSync(logFile).subarray(from).toString().split('\n').filter(Boolean);
    const stmts = lines.map((l) => JSON.parse(l) as CapturedStatement);
    const expected = Number(a.headers['x-sql-statements']);
    // A statement of the process's own (a health check, a timer) fell into the window: ask again.
    if (stmts.length === expected) return stmts;
  }
  throw new Error(`${c.id}: could not capture the request's statements alone`);
}

// ---- Placing the cases on the data ----

/** What a map colouring parcels by a select reads of each feature (with `_id`, always sent). */
const STYLE_FIELDS = 'parcel-status';

async function placeCases(p: PreparedDataset): Promise<MapCase[]> {
  const client = new pg.Client({ connectionString: p.serverEnv.DATABASE_URL });
  await client.connect();
  const orgId = p.dataset.orgId;
  const pf = p.dataset.portfolioIds[0];
  try {
    const { rows: b } = await client.query<{ w: number; s: number; e: number; n: number }>(
      `select min((bounds[1])[0]) as w, min((bounds[1])[1]) as s, max((bounds[0])[0]) as e, max((bounds[0])[1]) as n
       from parcels where org_id = $1 and portfolio_id = $2 and bounds is not null`,
      [orgId, pf],
    );
    const { w, s, e, n } = b[0];
    const { rows: centres } = await client.query<{ x: number; y: number }>(
      `select (center(bounds))[0] as x, (center(bounds))[1] as y from parcels
       where org_id = $1 and portfolio_id = $2 and bounds is not null`,
      [orgId, pf],
    );
    const points = centres.map((r): [number, number] => [r.x, r.y]);
    const [cx, cy] = [(w + e) / 2, (s + n) / 2];

    // The bbox: grown from the centre (3:2, as the portfolio) until it holds about 1,000 parcels.
    const count = async (d: number) => {
      const box = `(${cx + d},${cy + d / 1.5}),(${cx - d},${cy - d / 1.5})`;
      const { rows } = await client.query<{ n: number }>(
        'select count(*)::int as n from parcels where org_id = $1 and portfolio_id = $2 and bounds && $3::box',
        [orgId, pf, box],
      );
      return rows[0].n;
    };
    let [lo, hi] = [0.001, Math.max(e - w, n - s)];
    for (let i = 0; i < 30; i++) {
      const mid = (lo + hi) / 2;
      const k = await count(mid);
      if (Math.abs(k - 1000) <= 20) {
        lo = hi = mid;
        break;
      }
      if (k < 1000) lo = mid;
      else hi = mid;
    }
    const d = (lo + hi) / 2;
    const bbox = { west: cx - d, south: cy - d / 1.5, east: cx + d, north: cy + d / 1.5 };
    const filter = encodeURIComponent(JSON.stringify({ bbox }));

    let whole = 0;
    while (
      whole < 22 &&
      tileX(w, whole + 1) === tileX(e, whole + 1) &&
      tileY(n, whole + 1) === tileY(s, whole + 1)
    )
      whole++;
    // A map fitted to the portfolio: its box spans about 1,000 pixels of 256-pixel tiles.
    const fit = Math.max(0, Math.floor(Math.log2((1000 / 256) * (360 / (e - w)))));
    const z14 = densest(points, 14);
    const z10 = densest(points, 10);
    const tile = (z: number, x: number, y: number) => `/tiles/v1/portfolios/${pf}/parcels/${z}/${x}/${y}.mvt`;
    const listQuery = `query ($pf: ID!, $filter: RecordFilter) { node(id: $pf) { ... on Portfolio {
      parcels(first: 1000, filter: $filter) { nodes { id acres properties } } } } }`;
    return [
      {
        id: 'bbox-geojson',
        title: `GeoJSON page of a bbox holding about 1,000 parcels (limit 1000)`,
        method: 'GET',
        path: `/geojson/v1/parcels?orgId=${orgId}&portfolioId=${pf}&limit=1000&filter=${filter}`,
        target: { p50Ms: 30 },
      },
      {
        id: 'bbox-list',
        title: 'GraphQL parcels(first: 1000) of the same bbox: id, acres, properties',
        method: 'POST',
        path: '/graphql',
        body: JSON.stringify({ query: listQuery, variables: { pf, filter: { bbox } } }),
        target: { p50Ms: 30 },
      },
      {
        id: 'tile-z14',
        title: `z14 tile holding the most parcels (${z14.n} centres)`,
        method: 'GET',
        path: tile(14, z14.x, z14.y),
        target: { p50Ms: 20 },
      },
      {
        id: 'tile-whole',
        title: `the tile covering the whole portfolio (z${whole})`,
        method: 'GET',
        path: tile(whole, tileX(cx, whole), tileY(cy, whole)),
        target: { p50Ms: 150, maxBytes: 500 * 1024 },
      },
      {
        id: 'tile-fit',
        title: `a tile of a map fitted to the portfolio (z${fit}, at its centre)`,
        method: 'GET',
        path: tile(fit, tileX(cx, fit), tileY(cy, fit)),
      },
      {
        id: 'tile-fit-fields',
        title: `the same z${fit} tile with fields=${STYLE_FIELDS} (what a style colouring by status reads)`,
        method: 'GET',
        path: `${tile(fit, tileX(cx, fit), tileY(cy, fit))}?fields=${STYLE_FIELDS}`,
      },
      {
        id: 'tile-z10',
        title: `z10 tile holding the most parcels (${z10.n} centres)`,
        method: 'GET',
        path: tile(10, z10.x, z10.y),
        target: { maxBytes: 500 * 1024 },
      },
      {
        id: 'tile-z10-fields',
        title: `the same z10 tile with fields=${STYLE_FIELDS}`,
        method: 'GET',
        path: `${tile(10, z10.x, z10.y)}?fields=${STYLE_FIELDS}`,
        target: { maxBytes: 500 * 1024 },
      },
    ];
  } finally {
    await client.end();
  }
}

/** A tile's feature count, from the same tile asked through GraphQL. */
async function tileFeatures(base: string, key: string, path: string): Promise<number | null> {
  const m = path.match(/portfolios\/([^/]+)\/(parcels|projects)\/(\d+)\/(\d+)\/(\d+)\.mvt/);
  if (!m) return null;
  const query = `query ($pf: ID!, $z: Int!, $x: Int!, $y: Int!) { node(id: $pf) { ... on Portfolio {
    tile(layer: ${m[2].toUpperCase()}, z: $z, x: $x, y: $y) { features } } } }`;
  const a = await send(base, key, {
    id: 'features',
    title: '',
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query, variables: { pf: m[1], z: +m[3], x: +m[4], y: +m[5] } }),
  });
  return JSON.parse(decoded(a).toString()).data?.node?.tile?.features ?? null;
}

export async function runMaps(o: MapsOptions) {
  const startedAt = new Date().toISOString();
  mkdirSync(o.rawDir, { recursive: true });
  const loadAtStart = load1();
  const prepared = await prepareDataset({ ...o, backend: 'postgres', pgliteDir: '' });
  const key = prepared.fixture.apiKey;
  const cases = (await placeCases(prepared)).filter((c) => !o.only.length || o.only.includes(c.id));
  const stamp = startedAt.replace(/[:.]/g, '-');
  const env = gatewayEnv(prepared.serverEnv);

  // 1. Each case's statements, from a capturing gateway.
  const logFile = join(o.rawDir, `maps-${stamp}-statements.jsonl`);
  writeFileSync(logFile, '');
  // Preloaded just before the entry, after any loader the command has (tsx with --smoke).
  const fromSources = o.gateway.args.includes('tsx');
  const capture = join(PACKAGE_ROOT, fromSources ? 'bench/sql-capture.ts' : 'dist/bench/sql-capture.js');
  const capturing = new ServerProcess(
    'gateway (capturing SQL)',
    o.gateway.command,
    [...o.gateway.args.slice(0, -1), '--import', capture, ...o.gateway.args.slice(-1)],
    { ...env, SDG_BENCH_SQL_LOG: logFile, WEBHOOK_DELIVERY: '0' },
    await freePort(),
    join(o.rawDir, 'maps-capture.log'),
  );
  const statements = new Map<string, CapturedStatement[]>();
  try {
    await capturing.ready();
    for (const c of cases) statements.set(c.id, await captureStatements(capturing, logFile, key, c));
  } finally {
    await capturing.stop();
  }

  // 2. The measured gateway and the floor, taking turns.
  const profileDir = join(o.rawDir, 'profiles');
  const profileName = `maps-${stamp}.cpuprofile`;
  if (o.cpuProf) mkdirSync(profileDir, { recursive: true });
  const gateway = new ServerProcess(
    'gateway',
    o.gateway.command,
    [
      ...(o.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', profileName] : []),
      ...o.gateway.args,
    ],
    env,
    await freePort(),
    join(o.rawDir, 'maps-gateway.log'),
  );
  const floor = new pg.Client({ connectionString: prepared.serverEnv.DATABASE_URL });
  const rows: MapRow[] = [];
  let profile: (ProfileSummary & { file: string }) | undefined;
  try {
    await Promise.all([gateway.ready(), floor.connect()]);
    for (const c of cases) {
      const stmts = statements.get(c.id)!;
      const first = await send(gateway.url, key, c);
      if (first.status !== 200)
        throw new Error(`${c.id}: ${first.status} ${decoded(first).toString().slice(0, 300)}`);
      const body = decoded(first);
      const viaGateway = async () => {
        const a = await send(gateway.url, key, c);
        if (a.status !== 200) throw new Error(`${c.id}: ${a.status} during the run`);
      };
      const viaFloor = async () => {
        for (const s of stmts) await floor.query({ text: s.text, values: s.values });
      };
      await timed(o.warmup, 3, viaGateway);
      await timed(o.warmup, 3, viaFloor);
      const g: number[] = [];
      const f: number[] = [];
      const slices = Math.max(2, Math.round(o.duration));
      for (let i = 0; i < slices; i++) {
        g.push(...(await timed(o.duration / slices, 3, viaGateway)));
        f.push(...(await timed(o.duration / slices, 3, viaFloor)));
      }
      const gs = summarize(g);
      const fs = summarize(f);
      const features = c.path.includes('.mvt')
        ? await tileFeatures(gateway.url, key, c.path)
        : featuresOf(c, body);
      const row: MapRow = {
        id: c.id,
        title: c.title,
        path: c.path,
        status: first.status,
        wireBytes: first.body.length,
        bodyBytes: body.length,
        encoding: String(first.headers['content-encoding'] ?? 'identity'),
        features,
        statements: stmts.length,
        gateway: gs,
        floor: fs,
        ratio: fs.p50 ? r2(gs.p50 / fs.p50) : 0,
        target: c.target,
      };
      if (c.target)
        row.met =
          (c.target.p50Ms === undefined || gs.p50 <= c.target.p50Ms) &&
          (c.target.maxBytes === undefined || row.wireBytes <= c.target.maxBytes);
      rows.push(row);
      say(
        o,
        `  ${c.id.padEnd(13)} p50 ${gs.p50} ms (p90 ${gs.p90}, ${gs.requests} req)  floor ${fs.p50} ms  ${row.ratio}×  ${row.wireBytes} B on the wire (${row.encoding}; ${row.bodyBytes} B)  ${features ?? '?'} features  ${stmts.length} statements${row.met === undefined ? '' : row.met ? '  met' : '  NOT met'}`,
      );
    }
  } finally {
    await floor.end().catch(() => {});
    await gateway.stop();
  }
  if (o.cpuProf) {
    const file = join(profileDir, profileName);
    profile = {
      file: file.replace(`${PACKAGE_ROOT}/`, ''),
      ...summarizeProfile(file, 25, (gateway.firstWindowAt ?? gateway.spawnedAt) - gateway.spawnedAt),
    };
  }
  return {
    kind: 'maps' as const,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(loadAtStart),
    loadAtEnd: load1(),
    dataset: { scale: prepared.dataset.scale, counts: prepared.dataset.counts },
    options: { duration: o.duration, warmup: o.warmup },
    rows,
    statements: Object.fromEntries(statements),
    profile,
  };
}

export type MapsResults = Awaited<ReturnType<typeof runMaps>>;

const targetText = (t: MapCase['target']) =>
  t
    ? [
        t.p50Ms !== undefined ? `p50 ≤ ${t.p50Ms} ms` : '',
        t.maxBytes !== undefined ? `≤ ${t.maxBytes / 1024} KB` : '',
      ]
        .filter(Boolean)
        .join(', ')
    : '';

export function mapsMarkdown(r: MapsResults): string {
  const lines = [
    `# Maps (issue 39): bbox pages and vector tiles, one request at a time`,
    '',
    `${r.startedAt} – ${r.finishedAt}; scale ${r.dataset.scale} (${r.dataset.counts.parcels} parcels, the first of 3 portfolios read); ${r.options.warmup} s warm-up + ${r.options.duration} s per side; machine: ${JSON.stringify(r.machine)}; load average ${r.machine.load1.start} at the start, ${r.loadAtEnd} at the end.`,
    '',
    "floor = the request's own statements (captured from the gateway), run raw with pg on one connection, one after another; ratio = gateway p50 ÷ floor p50. Bytes: the body as sent with `Accept-Encoding: gzip, deflate, br` (and as read).",
    '',
    '| case | p50 ms | p90 ms | floor p50 ms | ratio | bytes sent | body bytes | features | statements | target | met |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...r.rows.map(
      (x) =>
        `| ${x.id}: ${x.title} | ${x.gateway.p50} | ${x.gateway.p90} | ${x.floor.p50} | ${x.ratio}× | ${x.wireBytes} (${x.encoding}) | ${x.bodyBytes} | ${x.features ?? ''} | ${x.statements} | ${targetText(x.target)} | ${x.met === undefined ? '' : x.met ? 'yes' : 'no'} |`,
    ),
    '',
    'Paths:',
    '',
    ...r.rows.map((x) => `- ${x.id}: \`${x.path.length > 200 ? `${x.path.slice(0, 200)}…` : x.path}\``),
  ];
  if (r.profile) {
    lines.push(
      '',
      `CPU profile of the measured gateway (${r.profile.file}, ${r.profile.busyMs} ms busy):`,
      '',
    );
    lines.push(
      '| area | self % |',
      '|---|---:|',
      ...r.profile.byArea.map((a) => `| ${a.area} | ${a.selfPct} |`),
    );
    lines.push('', '| function | where | self % |', '|---|---|---:|');
    lines.push(...r.profile.topSelf.map((f) => `| ${f.fn} | ${f.where} | ${f.selfPct} |`));
  }
  return `${lines.join('\n')}\n`;
}

export function writeMaps(r: MapsResults, dir: string, label?: string): string[] {
  const t = r.startedAt;
  const name = `${t.slice(0, 10)}-${t.slice(11, 13)}${t.slice(14, 16)}-maps-postgres-s${r.dataset.scale}${label ? `-${label}` : ''}`;
  const md = join(dir, `${name}.md`);
  writeFileSync(md, mapsMarkdown(r));
  mkdirSync(join(dir, 'raw'), { recursive: true });
  const raw = join(dir, 'raw', `${name}.json`);
  writeFileSync(raw, JSON.stringify(r, null, 2));
  return [md, raw];
}

/** `--maps`: runs the cases, prints the table, writes the results unless told not to. */
export async function mapsCommand(
  o: MapsOptions,
  label: string | undefined,
  write: boolean,
  resultsDir: string,
) {
  const r = await runMaps(o);
  process.stdout.write(`\n${mapsMarkdown(r)}\n`);
  if (write) {
    const files = writeMaps(r, resultsDir, label);
    process.stderr.write(`results: ${files.map((f) => f.replace(`${PACKAGE_ROOT}/`, '')).join(', ')}\n`);
  }
}
