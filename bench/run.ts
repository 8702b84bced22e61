/**
 * `npm run bench` — seeds (or reuses) a benchmark dataset, starts the gateway and a raw baseline as
 * their own processes, drives them with autocannon and writes the results to bench/results/.
 * `npm run bench -- --help` lists the options.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PACKAGE_ROOT } from '../src/paths.js';
import {
  DISTRIBUTION_DEFAULTS,
  distributionMarkdown,
  runDistribution,
  writeDistribution,
} from './distribution.js';
import { peersCommand } from './peers-report.js';
import { toMarkdown, writeResults } from './report.js';
import { type BenchOptions, DEFAULTS, defaultCommands, runBench } from './runner.js';
import { runScaleout, SCALEOUT_DEFAULTS } from './scaleout.js';
import { scaleoutMarkdown, writeScaleout } from './scaleout-report.js';

const HELP = `npm run bench -- [options]

  --scale <n>          dataset size; 1 = 3 portfolios, 100k projects, 300k parcels, 100k contacts,
                       ~500k links (default ${DEFAULTS.scale})
  --pglite             run against embedded PGlite (folder --pglite-dir) instead of Postgres
  --db <name>          bench database on the Postgres server (default ${DEFAULTS.dbName}); the server is
                       DATABASE_URL's (default postgres://postgres@127.0.0.1:5432/postgres)
  --pglite-dir <dir>   PGlite folder (default ${DEFAULTS.pgliteDir})
  --reseed             drop and reseed even if a seeded database of this scale exists
  --quick              ${DEFAULTS.quick.warmup}s warm-up + ${DEFAULTS.quick.duration}s per run instead of ${DEFAULTS.warmup}s + ${DEFAULTS.duration}s
  --duration <s>       measured seconds per run      --warmup <s>   warm-up seconds per run
  --heavy-requests <n> requests per connection in the slow scenarios (3, 7), which are measured by
                       count, not duration (default ${DEFAULTS.heavyRequestsPerConnection}; --quick ${DEFAULTS.quick.heavyRequestsPerConnection}; --tracing 30)
  --connections <list> concurrency levels (default ${DEFAULTS.connections.join(',')})
  --only <ids>         scenarios to run, e.g. 1,2,7 (default: all)
  --no-baseline        skip the raw baseline
  --filters            also run the filter / sort / search / facet scenarios f1–f4 (bench/filters.ts)
  --cpu-prof           run both servers with --cpu-prof (profiles in bench/results/raw/profiles) and
                       summarize them in the results
  --gateway <file>     server entry to run instead of dist/src/server.js (A/B a change)
  --scaleout           instead of the scenarios above: the REST first page (1) and the nested query
                       (7) against 1 and then 2 gateway processes on one Postgres database, with
                       where every core went (Postgres only; see bench/README.md)
  --processes <list>   with --scaleout: process counts to compare (default ${SCALEOUT_DEFAULTS.processes.join(',')}); --only
                       picks the scenarios and --connections the levels (default ${SCALEOUT_DEFAULTS.connections.join(',')})
  --citus              with --scaleout: instead of process counts, the same dataset on the Citus cluster
                       (CITUS_URL, default ${DISTRIBUTION_DEFAULTS.citusUrl}) and on a single PostgreSQL
                       (SINGLE_URL, default: the coordinator's own instance, a database without the
                       extension), one gateway each, alternating --rounds rounds (default ${DISTRIBUTION_DEFAULTS.rounds}) of
                       scenarios ${DISTRIBUTION_DEFAULTS.scenarios.join(', ')} at ${DISTRIBUTION_DEFAULTS.connections.join(',')} connections; see bench/README.md
  --peers              instead of the scenarios above: the nested query (7) on the gateway, PostGraphile 5,
                       the raw floor and the one-statement floor (Postgres builds the answer's text), and
                       the REST pages 1, 2, 3 on the gateway and the one-statement floor, all on Node 22,
                       answers checked equal, then alternating rounds (--only picks among 7,1,2,3;
                       Postgres only; installs bench/peers with npm ci on first use; see bench/README.md)
  --rounds <n>         with --peers: rounds per concurrency (default 3); with the scenarios above:
                       alternating gateway and floor runs per scenario and concurrency, each ratio the
                       median of the rounds' (default 1; Postgres only)
  --label <name>       suffix for the result files
  --no-write           print the table, write no result files
  --results <dir>      write the result files to <dir> (raw logs to <dir>/raw) instead of bench/results
  --smoke              the CI smoke tests' miniature: every server and attacker runs from its sources
                       through tsx (no build), --peers measures a handful of requests, --abuse runs a
                       calmer tenant and the WebSocket attacks at a tenth of their size; sizes, durations
                       and concurrency still come from the flags above
  --compression        instead of the scenarios above: scenario 1 without Accept-Encoding, with gzip
                       and with br, on one gateway process per setting (one-call compression up to
                       512 KB, and the plugin's own 8 KB), in alternating rounds (--rounds, default 3)
  --abuse              instead of the scenarios above: the attacks of issues 12 and 37 against the gateway
                       (default rate limits) with a well-behaved tenant alongside; reports the tenant's
                       p50/p99 under each attack as a ratio to calm, and the gateway's peak RSS
                       (Postgres only; database sdg_bench_abuse, scale 0.1, 15 s per window unless
                       given; --only picks attacks: fragments, variable-default, junk-keys,
                       random-keys, silent-db, and the WebSocket ones of issue 37: ws-heavy,
                       ws-cheap, ws-no-read, ws-churn, ws-fanout, ws-slow-webhook, or \`ws\` for all
                       six; see bench/README.md)
  --unlimited-key      with --abuse: lift the per-key rate limit, as if the attacker held many keys
  --tracing            instead of the scenarios above: scenarios 1 and 7 on a gateway with tracing off
                       and one with OTEL_* on at 100% sampling, alternating, as a ratio (Postgres only;
                       --rounds rounds per level, default 3)
  --changes            instead of the scenarios above: the change feed's costs (Postgres only;
                       bench/changes.ts): (a) writes 5a, 5b, 8 with the change log on (this build)
                       against off (--base-commit, default the commit before the change log), as
                       alternating rounds (--rounds, default 3); (b) write-to-event latency on
                       --subscriptions (1000) subscriptions over 2 processes; (c) webhook delivery
                       throughput of a --webhook-backlog (2000) with 1 and 2 processes.
                       --parts a,b,c picks some
  --aggregates         instead of the scenarios above: issue 41's dashboard goal (Postgres only;
                       bench/aggregates.ts): acres summed by parcel status over the first portfolio,
                       one request at a time, against the gateway's own statement run raw, in
                       alternating --rounds (default 3) of --heavy-requests requests (default 12)
  --grids              instead of the scenarios above: issue 41's grid goal (Postgres only;
                       bench/grids.ts): a parcel page of 50 with totalCount, plain, searched, under a
                       number filter and sorted by a number, --heavy-requests (12) requests each
  --maps               instead of the scenarios above: issue 39's map targets (Postgres only;
                       bench/maps.ts): a bbox of about 1,000 parcels (GeoJSON and GraphQL), a z14
                       tile, the tile covering the whole portfolio, a z10 tile, one request at a
                       time, each against the same statements run raw (the floor); --only picks
                       cases (bbox-geojson, bbox-list, tile-z14, tile-whole, tile-fit, tile-fit-fields,
                       tile-z10, tile-z10-fields)
  --sync               instead of the scenarios above: issue 40's bulk upsert (Postgres only;
                       bench/sync.ts, also runnable alone with npx tsx bench/sync.ts): --sync-records
                       parcels (default 100000) with geometry in upsertParcels calls of 1,000, the same
                       again unchanged, --per-record parcels (default 1000) one per call, and the raw
                       floor (INSERT … SELECT FROM unnest(…) ON CONFLICT per 1,000), with peak RSS
`;

async function main() {
  const { values: v } = parseArgs({
    options: {
      scale: { type: 'string' },
      pglite: { type: 'boolean', default: false },
      db: { type: 'string' },
      'pglite-dir': { type: 'string' },
      reseed: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'heavy-requests': { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string' },
      'no-baseline': { type: 'boolean', default: false },
      filters: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      gateway: { type: 'string' },
      scaleout: { type: 'boolean', default: false },
      citus: { type: 'boolean', default: false },
      processes: { type: 'string' },
      peers: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      label: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      results: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      abuse: { type: 'boolean', default: false },
      compression: { type: 'boolean', default: false },
      'unlimited-key': { type: 'boolean', default: false },
      tracing: { type: 'boolean', default: false },
      changes: { type: 'boolean', default: false },
      aggregates: { type: 'boolean', default: false },
      grids: { type: 'boolean', default: false },
      maps: { type: 'boolean', default: false },
      sync: { type: 'boolean', default: false },
      'sync-records': { type: 'string' },
      'per-record': { type: 'string' },
      'base-commit': { type: 'string' },
      subscriptions: { type: 'string' },
      'webhook-backlog': { type: 'string' },
      'fanout-writes': { type: 'string' },
      parts: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (v.help) {
    process.stdout.write(HELP);
    return;
  }
  const num = (name: string, s: string | undefined, fallback: number) => {
    if (s === undefined) return fallback;
    const x = Number(s);
    if (!Number.isFinite(x) || x <= 0) throw new Error(`--${name} must be a positive number, got "${s}"`);
    return x;
  };
  const cmds = defaultCommands(v.smoke);
  const resultsDir = v.results ? resolve(v.results) : join(PACKAGE_ROOT, 'bench/results');
  const o: BenchOptions = {
    scale: num('scale', v.scale, DEFAULTS.scale),
    backend: v.pglite ? 'pglite' : 'postgres',
    serverUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    dbName: v.db ?? DEFAULTS.dbName,
    pgliteDir: v['pglite-dir'] ?? join(PACKAGE_ROOT, DEFAULTS.pgliteDir),
    reseed: v.reseed,
    connections: v.connections
      ? v.connections.split(',').map((x) => num('connections', x, 1))
      : DEFAULTS.connections,
    duration: num('duration', v.duration, v.quick ? DEFAULTS.quick.duration : DEFAULTS.duration),
    warmup: v.warmup === '0' ? 0 : num('warmup', v.warmup, v.quick ? DEFAULTS.quick.warmup : DEFAULTS.warmup),
    heavyRequestsPerConnection: num(
      'heavy-requests',
      v['heavy-requests'],
      v.quick ? DEFAULTS.quick.heavyRequestsPerConnection : DEFAULTS.heavyRequestsPerConnection,
    ),
    only: v.only ? v.only.split(',').map((x) => x.trim()) : [],
    baseline: !v['no-baseline'],
    filters: v.filters,
    gateway: v.gateway ? { command: process.execPath, args: [resolve(v.gateway)] } : cmds.gateway,
    baselineServer: cmds.baselineServer,
    cpuProf: v['cpu-prof'],
    rawDir: join(resultsDir, 'raw'),
    quiet: false,
  };
  if (v.scaleout && v.peers) throw new Error('--scaleout and --peers are separate comparisons: pick one.');
  if (v.citus && !v.scaleout) throw new Error('--citus only applies with --scaleout');
  if (v.scaleout && v.citus) {
    if (v.processes) throw new Error('--scaleout --citus runs one gateway per side; drop --processes.');
    const citusUrl = process.env.CITUS_URL || DISTRIBUTION_DEFAULTS.citusUrl;
    const r = await runDistribution({
      ...o,
      citusUrl,
      singleUrl: process.env.SINGLE_URL || citusUrl,
      connections: v.connections ? o.connections : DISTRIBUTION_DEFAULTS.connections,
      scenarios: o.only.length ? o.only : DISTRIBUTION_DEFAULTS.scenarios,
      rounds: v.rounds === undefined ? DISTRIBUTION_DEFAULTS.rounds : Math.round(num('rounds', v.rounds, 3)),
    });
    process.stdout.write(`\n${distributionMarkdown(r)}\n`);
    if (!v['no-write']) {
      const files = writeDistribution(r, resultsDir, v.label);
      process.stderr.write(`results: ${files.map((f) => f.replace(`${PACKAGE_ROOT}/`, '')).join(', ')}\n`);
    }
    return;
  }
  if (v.scaleout) {
    if (o.backend !== 'postgres')
      throw new Error(
        '--scaleout needs Postgres: two processes cannot share one PGlite database. Drop --pglite.',
      );
    const r = await runScaleout({
      ...o,
      processes: v.processes
        ? v.processes.split(',').map((x) => Math.round(num('processes', x, 1)))
        : SCALEOUT_DEFAULTS.processes,
      connections: v.connections ? o.connections : SCALEOUT_DEFAULTS.connections,
      // Long enough that a split run of the nested query lasts seconds, not one autocannon tick.
      heavyRequestsPerConnection: v['heavy-requests']
        ? o.heavyRequestsPerConnection
        : 2 * o.heavyRequestsPerConnection,
      scenarios: o.only.length ? o.only : SCALEOUT_DEFAULTS.scenarios,
    });
    process.stdout.write(`\n${scaleoutMarkdown(r)}\n`);
    if (!v['no-write']) {
      const files = writeScaleout(r, resultsDir, v.label);
      process.stderr.write(`results: ${files.map((f) => f.replace(`${PACKAGE_ROOT}/`, '')).join(', ')}\n`);
    }
    return;
  }
  if (v.compression) {
    const { runCompression, compressionMarkdown, writeCompression, COMPRESSION_LEVELS } = await import(
      './compression.js'
    );
    if (o.backend !== 'postgres') throw new Error('--compression runs on Postgres; drop --pglite.');
    const rounds = v.rounds === undefined ? 3 : Math.round(num('rounds', v.rounds, 3));
    const r = await runCompression({ ...o, levels: COMPRESSION_LEVELS, rounds });
    process.stdout.write(`\n${compressionMarkdown(r)}\n`);
    if (!v['no-write']) {
      const files = writeCompression(r, resultsDir, v.label);
      process.stderr.write(`results: ${files.map((f) => f.replace(`${PACKAGE_ROOT}/`, '')).join(', ')}\n`);
    }
    return;
  }
  // Loaded only when asked for.
  if (v.grids)
    return (await import('./grids.js')).gridsCommand(
      o,
      v['heavy-requests'] === undefined ? 12 : o.heavyRequestsPerConnection,
      resultsDir,
      v.label,
      !v['no-write'],
    );
  if (v.aggregates)
    return (await import('./aggregates.js')).aggregatesCommand(
      o,
      {
        rounds: v.rounds === undefined ? 3 : Math.round(num('rounds', v.rounds, 3)),
        requests: v['heavy-requests'] === undefined ? 12 : o.heavyRequestsPerConnection,
      },
      resultsDir,
      v.label,
      !v['no-write'],
    );
  if (v.maps) {
    if (o.backend !== 'postgres') throw new Error('--maps runs on Postgres; drop --pglite.');
    return (await import('./maps.js')).mapsCommand(
      { ...o, only: o.only },
      v.label,
      !v['no-write'],
      resultsDir,
    );
  }
  if (v.sync) {
    if (o.backend !== 'postgres') throw new Error('--sync runs on Postgres; drop --pglite.');
    await (await import('./sync.js')).syncCommand(
      {
        serverUrl: o.serverUrl,
        records: Math.round(num('sync-records', v['sync-records'], 100_000)),
        batch: 1000,
        perRecord: Math.round(num('per-record', v['per-record'], 1000)),
      },
      v.label,
      !v['no-write'],
      resultsDir,
    );
    return;
  }
  if (v.abuse) return (await import('./abuse-cli.js')).abuseCommand(o, v);
  if (v.changes) {
    const { changesCommand, DEFAULT_BASE_COMMIT } = await import('./changes.js');
    return changesCommand(
      o,
      {
        rounds: v.rounds === undefined ? 3 : Math.round(num('rounds', v.rounds, 3)),
        baseCommit: v['base-commit'] ?? DEFAULT_BASE_COMMIT,
        subscriptions: Math.round(num('subscriptions', v.subscriptions, 1000)),
        fanoutWrites: Math.round(num('fanout-writes', v['fanout-writes'], 20)),
        fanoutGapMs: 1_000,
        webhookBacklog: Math.round(num('webhook-backlog', v['webhook-backlog'], 2000)),
        parts: (v.parts ?? 'a,b,c').split(',').map((x) => x.trim()),
      },
      v.label,
      !v['no-write'],
    );
  }
  if (v.tracing)
    return (await import('./tracing.js')).tracingCommand(
      // The nested query's runs are counted in requests: the default 4 per connection was 12 at one
      // connection, under a second and mostly warm-up, which showed a −14% that 30 does not.
      { ...o, heavyRequestsPerConnection: v['heavy-requests'] ? o.heavyRequestsPerConnection : 30 },
      v.rounds === undefined ? 3 : Math.round(num('rounds', v.rounds, 3)),
      v.label,
      !v['no-write'],
    );
  if (v.processes) throw new Error('--processes only applies with --scaleout');
  if (v.peers) {
    await peersCommand(o, {
      rounds: v.rounds === undefined ? undefined : Math.round(num('rounds', v.rounds, 3)),
      quick: v.quick,
      smoke: v.smoke,
      requestsPerConnection: v['heavy-requests'] === undefined ? undefined : o.heavyRequestsPerConnection,
      label: v.label,
      write: !v['no-write'],
    });
    return;
  }
  if (v.rounds) {
    if (o.backend !== 'postgres' || !o.baseline)
      throw new Error(
        '--rounds alternates the gateway and the raw floor, which run side by side on Postgres only: drop --pglite and --no-baseline.',
      );
    o.rounds = Math.max(1, Math.round(num('rounds', v.rounds, 1)));
  }
  const results = await runBench(o);
  const md = toMarkdown(results);
  process.stdout.write(`\n${md}\n`);
  if (!v['no-write']) {
    const files = writeResults(results, resultsDir, v.label);
    process.stderr.write(`results: ${files.map((f) => f.replace(`${PACKAGE_ROOT}/`, '')).join(', ')}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
