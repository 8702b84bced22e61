import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { PACKAGE_ROOT } from '../src/paths.js';
import { FILTER_SCENARIOS, type FilterScenarioContext, sortCursor, sortIndexes } from './filters.js';
import { runLoad } from './load.js';
import { load1, type MachineInfo, machineInfo } from './machine.js';
import { freePort, ServerProcess, waitDatabaseIdle } from './proc.js';
import { type ProfileSummary, summarizeProfile } from './profile.js';
import type { Measured, Probe, ScenarioResult } from './scenario-result.js';
import {
  LAST_PAGE_QUERY,
  type RequestSpec,
  SCENARIOS,
  type Scenario,
  type ScenarioContext,
} from './scenarios.js';
import {
  type DatasetInfo,
  prepareRun,
  type RunFixture,
  readDataset,
  SEED_VERSION,
  seedDataset,
} from './seed.js';
import { median, r2 } from './stats.js';
import { dropStore, openStore, type StoreTarget, storeExists } from './store.js';
import { evaluateTargets, type TargetCheck } from './targets.js';

export interface Command {
  command: string;
  args: string[];
}

export interface BenchOptions {
  scale: number;
  backend: 'postgres' | 'pglite';
  /** Postgres server to use (any database on it; the bench database is created next to it). */
  serverUrl: string;
  /** The dedicated bench database on that server. */
  dbName: string;
  /** PGlite data folder (with --pglite). */
  pgliteDir: string;
  /** Drop and reseed even when a seeded bench database of this scale exists. */
  reseed: boolean;
  connections: number[];
  /** Seconds per measured run, and of the warm-up run before it. */
  duration: number;
  warmup: number;
  /** Heavy scenarios (3, 7) are measured by this many requests per connection, not by duration. */
  heavyRequestsPerConnection: number;
  /**
   * On Postgres: runs per scenario and concurrency of each server, alternating gateway and floor;
   * the ratios are the median of each round's. One when absent.
   */
  rounds?: number;
  /** Scenario ids to run; all when empty. */
  only: string[];
  baseline: boolean;
  /** Also run the filter, sort, search and facet scenarios of bench/filters.ts (f1–f4). */
  filters: boolean;
  gateway: Command;
  baselineServer: Command;
  /** Start the gateway with --cpu-prof and summarize the profile. */
  cpuProf: boolean;
  /** Where raw logs and profiles go (not committed). */
  rawDir: string;
  quiet: boolean;
}

export const DEFAULTS = {
  scale: 1,
  dbName: 'sdg_bench',
  pgliteDir: '.data/bench-pglite',
  connections: [1, 16, 64],
  duration: 8,
  warmup: 2,
  heavyRequestsPerConnection: 4,
  quick: { duration: 3, warmup: 1, heavyRequestsPerConnection: 2 },
};

/**
 * The processes the bench starts: the built ones (dist/), or with `fromSources` (`--smoke`) their
 * TypeScript sources through tsx, so that the smoke tests need no build.
 */
export const defaultCommands = (fromSources = false, root = PACKAGE_ROOT) => {
  const node = (built: string, source: string): Command => ({
    command: process.execPath,
    args: fromSources ? ['--import', 'tsx', join(root, source)] : [join(root, built)],
  });
  return {
    gateway: node('dist/src/server.js', 'src/server.ts'),
    baselineServer: node('dist/bench/baseline.js', 'bench/baseline.ts'),
    attacker: node('dist/bench/abuse-attacks.js', 'bench/abuse-attacks.ts'),
    wsAttacker: node('dist/bench/abuse-ws-attacks.js', 'bench/abuse-ws-attacks.ts'),
  };
};

export type { Measured, Probe, ScenarioResult } from './scenario-result.js';

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  options: Omit<BenchOptions, 'gateway' | 'baselineServer' | 'rawDir' | 'quiet' | 'serverUrl'> & {
    gateway: string;
    baselineServer: string;
  };
  database: { backend: string; describe: string; version: string; reused: boolean };
  dataset: DatasetInfo;
  scenarios: ScenarioResult[];
  servers: { gatewayPeakRssMb: number; baselinePeakRssMb?: number; gatewayExit: number | null };
  targets: TargetCheck[];
  /** With --cpu-prof: where the gateway's CPU time went (and the baseline's, for comparison). */
  profile?: ProfileSummary & { file: string; baseline?: ProfileSummary & { file: string } };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : undefined);

const say = (o: Pick<BenchOptions, 'quiet'>, line: string) => {
  if (!o.quiet) process.stderr.write(`${line}\n`);
};

/** Sends a request twice: the first shows the cold statement count, the second is the probe. */
async function probeTwice(
  url: string,
  apiKey: string,
  spec: RequestSpec,
): Promise<Probe & { body: unknown }> {
  const cold = await probe(url, apiKey, spec);
  if (cold.status >= 300) return cold;
  return { ...(await probe(url, apiKey, spec)), coldSql: cold.sql };
}

/** One request: its status, statement count (`x-sql-statements`), body size, time and parsed body. */
export async function probe(
  url: string,
  apiKey: string,
  spec: RequestSpec,
): Promise<Probe & { body: unknown }> {
  const t = performance.now();
  const r = await fetch(url + spec.path, {
    method: spec.method,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: spec.body,
  });
  const text = await r.text();
  const ms = Math.round((performance.now() - t) * 100) / 100;
  const sqlHeader = r.headers.get('x-sql-statements');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return {
    status: r.status,
    sql: sqlHeader === null ? null : Number(sqlHeader),
    coldSql: sqlHeader === null ? null : Number(sqlHeader),
    bodyBytes: Buffer.byteLength(text),
    ms,
    body,
  };
}

export interface PreparedDataset {
  dataset: DatasetInfo;
  fixture: RunFixture;
  database: BenchResults['database'];
  /** What a server process needs to reach the bench database (DATABASE_URL or SDG_DATA_DIR). */
  serverEnv: Record<string, string>;
  /** The project with the most contacts in the read portfolio (scenario 4). */
  busiestProjectId: string;
}

/**
 * The options every bench that starts its own gateway processes on the Postgres bench database
 * reads (compression, maps, peers, scale-out): prepareDataset's, and where the processes' logs go.
 */
export type PostgresBenchOptions = Pick<
  BenchOptions,
  'scale' | 'serverUrl' | 'dbName' | 'reseed' | 'gateway' | 'rawDir' | 'quiet'
>;

/** The dataset as the peers and scale-out results name it, for their reports' opening lines. */
export interface DatasetSummary {
  scale: number;
  projects: number;
  readPortfolioProjects: number;
}

export const datasetSummary = (d: DatasetInfo): DatasetSummary => ({
  scale: d.scale,
  projects: d.counts.projects,
  readPortfolioProjects: Math.round(d.counts.projects / d.portfolioIds.length),
});

/** Seeds (or reuses) the bench dataset and prepares this run's key and write targets. */
export async function prepareDataset(
  o: Pick<BenchOptions, 'backend' | 'serverUrl' | 'dbName' | 'pgliteDir' | 'reseed' | 'scale' | 'quiet'> & {
    filters?: boolean;
    /** serverUrl is a Citus coordinator: the bench database is distributed (bench/citus.ts). */
    citus?: boolean;
  },
): Promise<PreparedDataset> {
  const target: StoreTarget =
    o.backend === 'postgres'
      ? { backend: 'postgres', serverUrl: o.serverUrl, dbName: o.dbName, citus: o.citus }
      : { backend: 'pglite', dataDir: o.pgliteDir };

  // ---- Dataset: reuse a finished seed of the same scale and version, else (re)seed ----
  const fresh = !(await storeExists(target));
  let store = await openStore(target);
  let info = fresh ? undefined : await readDataset(store);
  const reused = !o.reseed && info?.version === SEED_VERSION && info.scale === o.scale;
  if (!reused) {
    say(
      o,
      info
        ? `reseeding ${store.describe} (it had scale ${info.scale}, version ${info.version})`
        : `seeding ${store.describe}`,
    );
    if (!fresh) {
      await store.close();
      await dropStore(target);
      store = await openStore(target);
    }
    info = await seedDataset(store, o.scale, o.quiet);
    say(o, `seeded in ${info.seedSeconds}s`);
  } else {
    say(
      o,
      `reusing the scale-${o.scale} dataset in ${store.describe}, seeded ${info!.seededAt} (--reseed rebuilds it)`,
    );
  }
  const dataset = info!;
  try {
    const fixture = await prepareRun(store, dataset);
    const { rows: busiest } = await sql<{ project_id: string }>`
      select project_id from project_contacts where org_id = ${dataset.orgId} and portfolio_id = ${dataset.portfolioIds[0]}
      group by project_id order by count(*) desc, project_id limit 1`.execute(store.db);
    const { rows: ver } = await sql<{ v: string }>`select current_setting('server_version') as v`.execute(
      store.db,
    );
    // The deep-sort scenario needs the sort index an operator would create (idempotent).
    if (o.filters) await sortIndexes(store.db, dataset.orgId);
    return {
      dataset,
      fixture,
      database: { backend: store.backend, describe: store.describe, version: ver[0].v, reused },
      serverEnv: store.serverEnv,
      busiestProjectId: busiest[0]?.project_id ?? '',
    };
  } finally {
    await store.close();
  }
}

/**
 * The bench dataset on DATABASE_URL's server (or the local one), reused as `npm run bench` left it:
 * for the tools that compare builds on it (nested-cpu, nested-alloc, pg-json-probe).
 */
export function reusedDataset(dbName: string): Promise<PreparedDataset> {
  return prepareDataset({
    backend: 'postgres',
    serverUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    dbName,
    pgliteDir: DEFAULTS.pgliteDir,
    reseed: false,
    scale: DEFAULTS.scale,
    quiet: true,
  });
}

/**
 * The gateway's environment under load: production mode, warn logs, SQL counted per request. The
 * per-key rate limiter stays on (its cost is part of every request) but can never trigger.
 */
export const gatewayEnv = (serverEnv: Record<string, string>) => ({
  ...serverEnv,
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  SDG_SEED_DEMO: '0',
  SDG_EXPOSE_SQL_COUNT: '1',
  RATE_LIMIT_PER_SECOND: '1000000000',
  RATE_LIMIT_BURST: '1000000000',
  RATE_LIMIT_ADDRESS_PER_SECOND: '1000000000',
  RATE_LIMIT_ADDRESS_BURST: '1000000000',
});

/** The scenarios' context; the deep page's cursor is read through the gateway's public API. */
export async function scenarioContext(url: string, p: PreparedDataset): Promise<ScenarioContext> {
  const portfolioId = p.dataset.portfolioIds[0];
  const last = await probe(url, p.fixture.apiKey, {
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({
      query: LAST_PAGE_QUERY,
      variables: { orgId: p.dataset.orgId, portfolioId, last: 150 },
    }),
  });
  const edges = (last.body as any)?.data?.organization?.portfolio?.projects?.edges;
  if (last.status !== 200 || !edges?.length)
    throw new Error(`could not read the last page: ${JSON.stringify(last.body).slice(0, 300)}`);
  return {
    apiKey: p.fixture.apiKey,
    orgId: p.dataset.orgId,
    portfolioId,
    scratchPortfolioId: p.dataset.scratchPortfolioId,
    deepCursor: edges[0].cursor,
    contactsProjectId: p.busiestProjectId,
    writeProjectIds: p.fixture.writeProjectIds,
  };
}

/**
 * One scenario and concurrency over its rounds: the gateway's and floor's runs of the median round
 * (by req/s ratio), with the highest peak RSS of any round (the memory targets read it), and the
 * median of each round's ratios. One round is that round.
 */
export function summarizeRounds(
  connections: number,
  pairs: { g: Measured; b?: Measured }[],
): ScenarioResult['runs'][number] {
  const withFloor = pairs.filter((p): p is { g: Measured; b: Measured } => p.b !== undefined);
  if (!withFloor.length) return { connections, gateway: pairs[0].g };
  const ratios = withFloor.map((p) => ratio(p.g.rps, p.b.rps) ?? 0);
  const cpuRatios = withFloor.map((p) => ratio(p.g.cpuMsPerRequest, p.b.cpuMsPerRequest) ?? 0);
  const mid = [...withFloor].sort((x, y) => x.g.rps / x.b.rps - y.g.rps / y.b.rps)[
    Math.floor((withFloor.length - 1) / 2)
  ];
  const peak = (runs: Measured[]) => Math.max(...runs.map((m) => m.peakRssMb));
  return {
    connections,
    gateway: { ...mid.g, peakRssMb: peak(withFloor.map((p) => p.g)) },
    baseline: { ...mid.b, peakRssMb: peak(withFloor.map((p) => p.b)) },
    ratio: r2(median(ratios)),
    cpuRatio: r2(median(cpuRatios)),
    ...(withFloor.length > 1 ? { roundRatios: ratios } : {}),
  };
}

/** Seeds (or reuses) the dataset, starts the servers, probes and loads every scenario, evaluates the targets. */
export async function runBench(o: BenchOptions): Promise<BenchResults> {
  const startedAt = new Date().toISOString();
  mkdirSync(o.rawDir, { recursive: true });
  const prepared = await prepareDataset(o);
  const { dataset, fixture, database, serverEnv } = prepared;

  // ---- Servers: the gateway in production mode; the baseline next to it when the backend allows ----
  const env = gatewayEnv(serverEnv);
  const profileDir = join(o.rawDir, 'profiles');
  const runStamp = startedAt.replace(/[-:.TZ]/g, '');
  const profArgs = (who: string) =>
    o.cpuProf
      ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${runStamp}-${who}.cpuprofile`]
      : [];
  const gatewayArgs = [...profArgs('gateway'), ...o.gateway.args];
  const startGateway = async () => {
    const s = new ServerProcess(
      'gateway',
      o.gateway.command,
      gatewayArgs,
      env,
      await freePort(),
      join(o.rawDir, 'gateway.log'),
    );
    await s.ready();
    return s;
  };
  const startBaseline = async () => {
    const s = new ServerProcess(
      'baseline',
      o.baselineServer.command,
      [...profArgs('baseline'), ...o.baselineServer.args],
      env,
      await freePort(),
      join(o.rawDir, 'baseline.log'),
    );
    await s.ready();
    return s;
  };
  // Between runs: the server idle and, on Postgres, no statement of the bench database still running
  // (requests abandoned when a run stopped may be queued on the database, not on the server's CPU).
  const monitor = serverEnv.DATABASE_URL
    ? new pg.Client({ connectionString: serverEnv.DATABASE_URL })
    : undefined;
  await monitor?.connect();
  const settle = async (server: ServerProcess) => {
    await server.waitIdle();
    if (monitor) await waitDatabaseIdle(monitor);
  };
  // PGlite is one process's database: the baseline can only open it once the gateway has closed it.
  const together = o.backend === 'postgres';
  const gateway = await startGateway();
  let baseline = o.baseline && together ? await startBaseline() : undefined;

  try {
    const ctx: ScenarioContext & Partial<FilterScenarioContext> = await scenarioContext(
      gateway.url,
      prepared,
    );
    if (o.filters) {
      ctx.sortCursor = await sortCursor(async (spec) => {
        const r = await probe(gateway.url, fixture.apiKey, spec);
        if (r.status !== 200) throw new Error(`could not read the sorted last page: ${r.status}`);
        return r.body as any;
      }, ctx);
    }
    const loadAtStart = load1();
    const selected = [...SCENARIOS, ...(o.filters ? FILTER_SCENARIOS : [])].filter(
      (s) => !o.only.length || o.only.includes(s.id) || o.only.includes(s.id.replace(/@.*/, '')),
    );
    const results: ScenarioResult[] = [];
    const gatewayBodies = new Map<string, unknown>();

    // ---- Probe: each request twice (cold, warm), for SQL statements, body size and equal bodies ----
    for (const s of selected) {
      const p = await probeTwice(gateway.url, fixture.apiKey, s.gateway(ctx)(0));
      if (p.status >= 300)
        throw new Error(
          `scenario ${s.id}: the gateway answered ${p.status}: ${JSON.stringify(p.body).slice(0, 500)}`,
        );
      gatewayBodies.set(s.id, p.body);
      const { body: _b, ...gp } = p;
      results.push({ id: s.id, title: s.title, write: s.write, probe: { gateway: gp }, runs: [] });
    }
    const probeBaseline = async () => {
      for (const s of selected) {
        if (!s.baseline || !baseline) continue;
        const p = await probeTwice(baseline.url, fixture.apiKey, s.baseline(ctx)(0));
        const r = results.find((x) => x.id === s.id)!;
        const { body, ...bp } = p;
        r.probe.baseline = bp;
        r.probe.bodiesEqual = isDeepStrictEqual(body, gatewayBodies.get(s.id));
        if (!r.probe.bodiesEqual)
          say(o, `WARNING: scenario ${s.id}: the baseline's body differs from the gateway's`);
      }
    };
    if (baseline) await probeBaseline();

    // ---- Load: warm-up, then the measured run, per scenario and concurrency ----
    const measure = async (
      server: ServerProcess,
      s: Scenario,
      next: (n: number) => RequestSpec,
      connections: number,
    ): Promise<Measured> => {
      const base = { url: server.url, apiKey: fixture.apiKey, connections, next };
      const heavy = s.heavy ? o.heavyRequestsPerConnection : 0;
      if (o.warmup > 0) {
        await runLoad({ ...base, duration: o.warmup, amount: heavy ? connections : undefined });
        await settle(server);
      }
      server.startWindow();
      // Heavy runs send at least 6 × the per-connection count, so one connection still gives percentiles.
      const r = await runLoad({
        ...base,
        duration: o.duration,
        amount: heavy ? heavy * Math.max(connections, 6) : undefined,
      });
      const w = server.endWindow();
      await settle(server);
      return {
        ...r,
        peakRssMb: Math.round(w.peakRssMb),
        startRssMb: Math.round(w.startRssMb),
        cpuMsPerRequest: r.requests ? Math.round((w.cpuSec * 1000 * 100) / r.requests) / 100 : 0,
      };
    };
    const line = (id: string, who: string, r: Measured) =>
      say(
        o,
        `  ${id.padEnd(4)} ${who.padEnd(8)} c=${String(r.connections).padEnd(3)} ${String(r.rps).padStart(8)} req/s  p50 ${r.latencyMs.p50}ms  p99 ${r.latencyMs.p99}ms  cpu ${r.cpuMsPerRequest}ms/req  sql ${r.sql?.max ?? '-'}  rss ${r.peakRssMb}MB  errors ${r.errors}`,
      );
    let gatewayPeak = 0;
    let baselinePeak = 0;
    // Heavy scenarios last, the 5000-item page at the very end: V8 keeps the heap it grew, so their
    // memory would otherwise show up in the RSS of every scenario after them.
    const loadOrder = selected
      .filter((x) => !x.probeOnly)
      .sort((a, b) => Number(a.id === '3') - Number(b.id === '3') || Number(!!a.heavy) - Number(!!b.heavy));
    for (const s of loadOrder) {
      const r = results.find((x) => x.id === s.id)!;
      for (const c of o.connections) {
        // Alternating rounds: a machine whose speed drifts moves both servers of a round alike.
        const pairs: { g: Measured; b?: Measured }[] = [];
        const floor = s.baseline && together ? baseline : undefined;
        for (let round = 0; round < (floor ? (o.rounds ?? 1) : 1); round++) {
          const g = await measure(gateway, s, s.gateway(ctx), c);
          gatewayPeak = Math.max(gatewayPeak, g.peakRssMb);
          line(s.id, 'gateway', g);
          const b = floor ? await measure(floor, s, s.baseline!(ctx), c) : undefined;
          if (b) {
            baselinePeak = Math.max(baselinePeak, b.peakRssMb);
            line(s.id, 'baseline', b);
          }
          pairs.push({ g, b });
        }
        r.runs.push(summarizeRounds(c, pairs));
      }
    }
    const gatewayExit = await gateway.stop();

    // PGlite: the baseline's runs come after the gateway has let go of the database.
    if (o.baseline && !together) {
      baseline = await startBaseline();
      await probeBaseline();
      for (const s of selected.filter((x) => !x.probeOnly && x.baseline)) {
        const r = results.find((x) => x.id === s.id)!;
        for (const run of r.runs) {
          const b = await measure(baseline, s, s.baseline!(ctx), run.connections);
          baselinePeak = Math.max(baselinePeak, b.peakRssMb);
          line(s.id, 'baseline', b);
          run.baseline = b;
          run.ratio = ratio(run.gateway.rps, b.rps);
          run.cpuRatio = ratio(run.gateway.cpuMsPerRequest, b.cpuMsPerRequest);
        }
      }
    }
    await baseline?.stop();
    baseline = undefined;

    let profile: BenchResults['profile'];
    if (o.cpuProf) {
      const summary = (who: string) => {
        const file = join(profileDir, `${runStamp}-${who}.cpuprofile`);
        return existsSync(file)
          ? { file: file.replace(`${PACKAGE_ROOT}/`, ''), ...summarizeProfile(file) }
          : undefined;
      };
      const gatewayProfile = summary('gateway');
      if (gatewayProfile) profile = { ...gatewayProfile, baseline: summary('baseline') };
    }
    const out: BenchResults = {
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: machineInfo(loadAtStart),
      options: {
        scale: o.scale,
        backend: o.backend,
        dbName: o.dbName,
        pgliteDir: o.pgliteDir,
        reseed: o.reseed,
        connections: o.connections,
        duration: o.duration,
        warmup: o.warmup,
        heavyRequestsPerConnection: o.heavyRequestsPerConnection,
        ...(o.rounds && o.rounds > 1 ? { rounds: o.rounds } : {}),
        only: o.only,
        baseline: o.baseline,
        filters: o.filters,
        cpuProf: o.cpuProf,
        gateway: [
          o.gateway.command.split('/').pop(),
          ...gatewayArgs.map((a) => a.replace(`${PACKAGE_ROOT}/`, '')),
        ].join(' '),
        baselineServer: [
          o.baselineServer.command.split('/').pop(),
          ...o.baselineServer.args.map((a) => a.replace(`${PACKAGE_ROOT}/`, '')),
        ].join(' '),
      },
      database,
      dataset,
      scenarios: results,
      servers: {
        gatewayPeakRssMb: gatewayPeak,
        baselinePeakRssMb: o.baseline ? baselinePeak : undefined,
        gatewayExit,
      },
      targets: [],
      profile,
    };
    out.targets = evaluateTargets(out);
    return out;
  } finally {
    await gateway.stop();
    await baseline?.stop();
    await monitor?.end();
  }
}

export type { Scenario };
