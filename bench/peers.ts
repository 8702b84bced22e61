/**
 * `npm run bench -- --peers`: the nested query (scenario 7) on the gateway, PostGraphile 5, the raw
 * floor (bench/baseline.ts) and the one-statement floor (bench/one-statement.ts), and the REST pages
 * (scenarios 1, 2, 3) on the gateway and the one-statement floor, all on Node 22 against the same
 * Postgres bench database. Their answers are checked equal first (bench/peers-equal.ts); then every
 * concurrency runs several rounds, each server once per round in a rotating order, and the report
 * gives median ratios with their spread, and each server's CPU per request in its own process and in
 * its Postgres backends.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { PACKAGE_ROOT } from '../src/paths.js';
import { runLoad } from './load.js';
import { load1, type MachineInfo, machineInfo } from './machine.js';
import {
  compareNested,
  firstDifference,
  fromGateway,
  fromPostgraphile,
  NESTED_PROPERTIES_QUERY,
  type NestedComparison,
  nestedCounts,
  POSTGRAPHILE_NESTED_QUERY,
} from './peers-equal.js';
import { ensurePeers, PEERS_NODE, POSTGRAPHILE_SERVER, peerVersions } from './peers-install.js';
import {
  cpuByProcess,
  cpuSeconds,
  freePort,
  machineCpuSeconds,
  ServerProcess,
  waitDatabaseIdle,
} from './proc.js';
import { type ProfileSummary, summarizeProfile } from './profile.js';
import {
  type BenchOptions,
  type BenchResults,
  type Command,
  type DatasetSummary,
  datasetSummary,
  gatewayEnv,
  type PostgresBenchOptions,
  prepareDataset,
  probe,
  scenarioContext,
} from './runner.js';
import { type RequestSpec, SCENARIOS } from './scenarios.js';
import { median, r2 } from './stats.js';

/** The server processes. */
export type PeerServer = 'gateway' | 'postgraphile' | 'floor' | 'oneStatement';
export const PEER_SERVERS: PeerServer[] = ['gateway', 'postgraphile', 'floor', 'oneStatement'];
/**
 * Who a run measures: a server, or `gatewayRaw`, the gateway process asked the nested query with
 * raw `properties` (NESTED_PROPERTIES_QUERY), the answer the one-statement floor gives. `gateway`
 * is asked scenario 7 itself (typed values), the answer PostGraphile's and the raw floor's equal.
 */
export type PeerRunner = PeerServer | 'gatewayRaw';
export const NESTED_RUNNERS: PeerRunner[] = [
  'gateway',
  'gatewayRaw',
  'postgraphile',
  'floor',
  'oneStatement',
];
export const REST_RUNNERS: PeerRunner[] = ['gateway', 'oneStatement'];
const PROCESS_OF: Record<PeerRunner, PeerServer> = {
  gateway: 'gateway',
  gatewayRaw: 'gateway',
  postgraphile: 'postgraphile',
  floor: 'floor',
  oneStatement: 'oneStatement',
};
/** The scenarios --peers can run: the nested query, and the REST pages beside their one-statement floor. */
export const PEER_SCENARIOS = ['7', '1', '2', '3'];
/** The light REST pages (1, 2) take this many times the requests of a heavy run, so a run lasts seconds. */
const LIGHT_FACTOR = 10;

export type PeersOptions = PostgresBenchOptions &
  Pick<BenchOptions, 'connections' | 'baselineServer' | 'cpuProf' | 'only'> & {
    /** The one-statement floor's server (bench/one-statement.ts, built or from sources). */
    oneStatementServer: Command;
    /** Rounds per concurrency; each server runs once per round. */
    rounds: number;
    /** Each measured run sends max(requestsPerConnection × connections, minRequests) requests. */
    requestsPerConnection: number;
    minRequests: number;
    /** Requests of the warm-up before each measured run (at least one per connection). */
    warmupRequests: number;
  };

export const PEERS_DEFAULTS = {
  rounds: 3,
  requestsPerConnection: 4,
  minRequests: 120,
  warmupRequests: 20,
  quick: { requestsPerConnection: 2, minRequests: 30, warmupRequests: 5 },
};

export interface PeerProbe {
  status: number;
  /** SQL statements of one warm request. */
  sql: number | null;
  bodyBytes: number;
  ms: number;
}

/** One measured run of one server. CPU is per successful request: the server's process, and its Postgres backends. */
export interface PeerRun {
  server: PeerRunner;
  round: number;
  connections: number;
  requests: number;
  rps: number;
  latencyMs: { p50: number; p95: number; p99: number };
  errors: number;
  nodeCpuMsPerRequest: number;
  pgCpuMsPerRequest: number;
  peakRssMb: number;
  startRssMb: number;
  /** Cores busy with anything else during the run (other processes, the kernel): the noise. */
  otherCores: number;
}

export interface PeerMedians {
  rps: number;
  nodeCpuMsPerRequest: number;
  pgCpuMsPerRequest: number;
  totalCpuMsPerRequest: number;
  peakRssMb: number;
  p50Ms: number;
}

export type NestedRatio =
  | 'vsPostgraphile'
  | 'vsFloor'
  | 'postgraphileVsFloor'
  | 'vsOneStatement'
  | 'typedVsOneStatement'
  | 'postgraphileVsOneStatement';

/** One concurrency of the nested query: median of the per-round ratios, with their [min, max]. */
export interface PeerLevel {
  connections: number;
  /** Gateway (typed values) req/s ÷ PostGraphile req/s, median of the rounds. */
  vsPostgraphile: number;
  /** Gateway (typed values) req/s ÷ raw floor req/s, median of the rounds. */
  vsFloor: number;
  postgraphileVsFloor: number;
  /** Gateway (raw properties, `gatewayRaw`) req/s ÷ one-statement floor req/s, median of the rounds. */
  vsOneStatement: number;
  /** Gateway (typed values) req/s ÷ one-statement floor (raw properties) req/s, median of the rounds. */
  typedVsOneStatement: number;
  postgraphileVsOneStatement: number;
  spread: Record<NestedRatio, [number, number]>;
  medians: Partial<Record<PeerRunner, PeerMedians>>;
  runs: PeerRun[];
}

/** One concurrency of a REST page: the gateway against its one-statement floor. */
export interface RestLevel {
  connections: number;
  /** Gateway req/s ÷ one-statement floor req/s, median of the rounds. */
  vsOneStatement: number;
  spread: { vsOneStatement: [number, number] };
  medians: Partial<Record<PeerRunner, PeerMedians>>;
  runs: PeerRun[];
}

/** A REST page's probe: both answers, and whether they are equal. */
export interface RestProbe {
  gateway: PeerProbe;
  oneStatement: PeerProbe;
  /** Items in the gateway's page, and whether it had a nextKey. */
  items: number;
  nextKey: boolean;
  /** The one-statement floor's JSON is the gateway's (deep-equal: same ids, order, values, cursor). */
  equal: boolean;
  difference?: string;
}

export interface PeersResults {
  kind: 'peers';
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  /** The Node that ran all three servers, and PostGraphile's version. */
  versions: { node: string; postgraphile: string };
  database: BenchResults['database'];
  dataset: DatasetSummary;
  options: Omit<
    PeersOptions,
    'gateway' | 'baselineServer' | 'oneStatementServer' | 'rawDir' | 'quiet' | 'serverUrl'
  > & {
    /** The light REST pages (1, 2) run this many times the requests of a heavy run. */
    lightFactor: number;
  };
  /** The nested query's probes (absent when --only leaves it out). */
  probe?: Partial<Record<PeerRunner, PeerProbe>> & {
    /** The normalised comparison of PostGraphile's answer with the gateway's (bench/peers-equal.ts). */
    equality: NestedComparison;
    /** The floor's answer is the gateway's JSON exactly (deep-equal, before any normalisation). */
    floorEqualsGateway: boolean;
    /** The one-statement floor's answer is the gateway's to NESTED_PROPERTIES_QUERY exactly (deep-equal). */
    oneStatementEqualsGateway: boolean;
  };
  /** The nested query (scenario 7), when run. */
  scenarios: { id: string; title: string; runs: PeerLevel[] }[];
  /** The REST pages (scenarios 1, 2, 3), each on the gateway and its one-statement floor. */
  rest: { id: string; title: string; probe: RestProbe; runs: RestLevel[] }[];
  /** The busiest other processes during the measured runs and between them (CPU seconds), to judge the noise. */
  otherProcesses: { name: string; cpuSec: number }[];
  profiles?: Partial<Record<PeerServer, ProfileSummary & { file: string }>>;
}

/** Each server's Postgres backends carry its name (PGAPPNAME), so their CPU time can be read apart. */
const APP_NAME: Record<PeerServer, string> = {
  gateway: 'sdg-bench-gateway',
  postgraphile: 'sdg-bench-postgraphile',
  floor: 'sdg-bench-floor',
  oneStatement: 'sdg-bench-one-statement',
};

export async function runPeers(o: PeersOptions): Promise<PeersResults> {
  const startedAt = new Date().toISOString();
  const say = (line: string) => {
    if (!o.quiet) process.stderr.write(`${line}\n`);
  };
  const only = o.only.length ? o.only : PEER_SCENARIOS;
  const unknown = only.filter((id) => !PEER_SCENARIOS.includes(id));
  if (unknown.length)
    throw new Error(
      `--peers runs scenarios ${PEER_SCENARIOS.join(', ')}; not ${unknown.join(', ')}. Drop --only or pick among them.`,
    );
  const nestedToo = only.includes('7');
  await ensurePeers(o.quiet);
  mkdirSync(o.rawDir, { recursive: true });
  const prepared = await prepareDataset({ ...o, backend: 'postgres', pgliteDir: '' });
  const dbUrl = prepared.serverEnv.DATABASE_URL;
  const monitor = new pg.Client({ connectionString: dbUrl });
  await monitor.connect();

  const profileDir = join(o.rawDir, 'profiles');
  const stamp = startedAt.replace(/[-:.TZ]/g, '');
  const profileFile = (who: PeerServer) => join(profileDir, `${stamp}-peers-${who}.cpuprofile`);
  const profArgs = (who: PeerServer) =>
    o.cpuProf
      ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${stamp}-peers-${who}.cpuprofile`]
      : [];
  const args: Record<PeerServer, string[]> = {
    gateway: o.gateway.args,
    postgraphile: [POSTGRAPHILE_SERVER],
    floor: o.baselineServer.args,
    oneStatement: o.oneStatementServer.args,
  };
  const env: Record<PeerServer, Record<string, string>> = {
    gateway: gatewayEnv(prepared.serverEnv),
    postgraphile: { DATABASE_URL: dbUrl, NODE_ENV: 'production', GRAPHILE_ENV: 'production' },
    floor: gatewayEnv(prepared.serverEnv),
    oneStatement: gatewayEnv(prepared.serverEnv),
  };
  // PostGraphile and the raw floor answer the nested query only.
  const started = PEER_SERVERS.filter((who) => nestedToo || who === 'gateway' || who === 'oneStatement');
  const servers = {} as Record<PeerServer, ServerProcess>;
  const ourBackends = new Set<number>();
  const others = new OtherCpu();
  const loadAtStart = load1();
  try {
    // All on bench/peers' Node 22: PostGraphile 5 needs it, and the others must run on the same.
    for (const who of started) {
      servers[who] = new ServerProcess(
        who,
        PEERS_NODE,
        [...profArgs(who), ...args[who]],
        { ...env[who], PGAPPNAME: APP_NAME[who] },
        await freePort(),
        join(o.rawDir, `peers-${who}.log`),
      );
    }
    await Promise.all(started.map((who) => servers[who].ready(120_000)));
    say(
      `${started.map((who) => (who === 'postgraphile' ? `PostGraphile ${peerVersions().postgraphile}` : LABEL[who])).join(', ')} are up on Node ${peerVersions().node}`,
    );

    const ctx = await scenarioContext(servers.gateway.url, prepared);
    const statements = async () =>
      ((await (await fetch(`${servers.postgraphile.url}/stats`)).json()) as { statements: number })
        .statements;
    /** One warm answer of a runner: a first request fills the caches, the second is recorded. */
    const answer = async (who: PeerRunner, spec: RequestSpec) => {
      const server = servers[PROCESS_OF[who]];
      await probe(server.url, ctx.apiKey, spec);
      const before = who === 'postgraphile' ? await statements() : 0;
      const { body, coldSql: _c, ...p } = await probe(server.url, ctx.apiKey, spec);
      if (who === 'postgraphile') p.sql = (await statements()) - before;
      if (p.status !== 200)
        throw new Error(`${who} answered ${p.status}: ${JSON.stringify(body).slice(0, 500)}`);
      return { probe: p as PeerProbe, body };
    };

    // ---- The nested query's requests, and equal answers first: same rows, order and values ----
    const nested = SCENARIOS.find((s) => s.id === '7')!;
    const sizes = { projects: 100, contacts: 10, parcels: 5 };
    const nestedSpecs: Record<PeerRunner, RequestSpec> = {
      gateway: nested.gateway(ctx)(0),
      gatewayRaw: {
        method: 'POST',
        path: '/graphql',
        body: JSON.stringify({
          query: NESTED_PROPERTIES_QUERY,
          variables: { orgId: ctx.orgId, portfolioId: ctx.portfolioId, ...sizes },
        }),
      },
      floor: nested.baseline!(ctx)(0),
      // The raw floor's path: the same parameters.
      oneStatement: nested.baseline!(ctx)(0),
      postgraphile: {
        method: 'POST',
        path: '/graphql',
        body: JSON.stringify({
          query: POSTGRAPHILE_NESTED_QUERY,
          variables: { orgId: ctx.orgId, portfolioId: ctx.portfolioId, ...sizes },
        }),
      },
    };
    let nestedProbe: PeersResults['probe'];
    if (nestedToo) {
      const probes: Partial<Record<PeerRunner, PeerProbe>> = {};
      const bodies: Partial<Record<PeerRunner, unknown>> = {};
      for (const who of NESTED_RUNNERS) {
        const a = await answer(who, nestedSpecs[who]);
        probes[who] = a.probe;
        bodies[who] = a.body;
      }
      const equality = compareNested(fromGateway(bodies.gateway), fromPostgraphile(bodies.postgraphile));
      const floorEqualsGateway = isDeepStrictEqual(bodies.floor, bodies.gateway);
      const oneStatementDifference = firstDifference(bodies.oneStatement, bodies.gatewayRaw);
      const { projects, contacts, parcels } = equality.counts;
      const raw = nestedCounts(bodies.gatewayRaw);
      say(
        `answers compared: ${projects} projects, ${contacts} contacts, ${parcels} parcels: ${equality.equal ? 'equal' : `DIFFERENT at ${equality.difference}`}; floor ${floorEqualsGateway ? 'equal' : 'DIFFERENT'}; ` +
          `one-statement floor (raw properties, ${raw.projects}/${raw.contacts}/${raw.parcels}) ${oneStatementDifference ? `DIFFERENT at ${oneStatementDifference}` : 'equal'}`,
      );
      if (!equality.equal || !floorEqualsGateway || oneStatementDifference)
        throw new Error(
          `the servers' answers differ (${equality.difference ?? (floorEqualsGateway ? `one-statement floor ≠ gateway at ${oneStatementDifference}` : 'floor ≠ gateway')}): a ratio would compare different work. Fix the query in bench/peers-equal.ts, bench/baseline.ts or bench/one-statement-sql.ts.`,
        );
      if (!projects || !contacts || !parcels || raw.parcels !== parcels)
        throw new Error(
          `the nested answer is empty at some level (${projects}/${contacts}/${parcels}, raw properties ${raw.projects}/${raw.contacts}/${raw.parcels}): nothing to compare`,
        );
      nestedProbe = { ...probes, equality, floorEqualsGateway, oneStatementEqualsGateway: true };
    }

    // ---- The REST pages, each the same request to the gateway and to its one-statement floor ----
    const restScenarios = SCENARIOS.filter((s) => s.id !== '7' && only.includes(s.id));
    const rest: PeersResults['rest'] = [];
    for (const s of restScenarios) {
      const spec = s.gateway(ctx)(0);
      const g = await answer('gateway', spec);
      const f = await answer('oneStatement', spec);
      const page = g.body as { items?: unknown[]; nextKey?: string | null };
      const difference = firstDifference(f.body, g.body);
      const items = page.items?.length ?? 0;
      say(
        `REST ${s.id}: ${items} items${page.nextKey ? ' and a nextKey' : ''}: one-statement floor ${difference ? `DIFFERENT at ${difference}` : 'equal'}`,
      );
      if (difference)
        throw new Error(
          `the one-statement floor's answer to scenario ${s.id} differs from the gateway's at ${difference}: fix bench/one-statement-sql.ts`,
        );
      if (!items) throw new Error(`scenario ${s.id}'s page is empty: nothing to compare`);
      rest.push({
        id: s.id,
        title: s.title,
        probe: {
          gateway: g.probe,
          oneStatement: f.probe,
          items,
          nextKey: !!page.nextKey,
          equal: true,
        },
        runs: [],
      });
    }

    // ---- Load: per concurrency, rounds in a rotating order of the servers ----
    const settle = async (server: ServerProcess) => {
      await server.waitIdle();
      await waitDatabaseIdle(monitor);
    };
    const backendCpu = async (who: PeerServer) => {
      const { rows } = await monitor.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
        [APP_NAME[who]],
      );
      for (const r of rows) ourBackends.add(r.pid);
      return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid) ?? 0]));
    };
    const measure = async (
      who: PeerRunner,
      spec: RequestSpec,
      factor: number,
      c: number,
      round: number,
    ): Promise<PeerRun> => {
      const proc = PROCESS_OF[who];
      const server = servers[proc];
      const base = {
        url: server.url,
        apiKey: ctx.apiKey,
        connections: c,
        duration: 120,
        next: () => spec,
      };
      await runLoad({ ...base, amount: Math.max(c, factor * o.warmupRequests) });
      await settle(server);
      others.sample();
      server.startWindow();
      const pg0 = await backendCpu(proc);
      const m0 = machineCpuSeconds();
      const gen0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await runLoad({
        ...base,
        amount: factor * Math.max(o.requestsPerConnection * c, o.minRequests),
      });
      const wall = (performance.now() - t0) / 1000;
      const gen = process.cpuUsage(gen0);
      const m1 = machineCpuSeconds();
      let pgSec = 0;
      for (const [pid, sec] of await backendCpu(proc)) pgSec += Math.max(0, sec - (pg0.get(pid) ?? 0));
      const w = server.endWindow();
      others.sample();
      await settle(server);
      const perRequest = (sec: number) => (r.requests ? r2((sec * 1000) / r.requests) : 0);
      const ours = w.cpuSec + pgSec + (gen.user + gen.system) / 1e6;
      return {
        server: who,
        round,
        connections: c,
        requests: r.requests,
        rps: r.rps,
        latencyMs: { p50: r.latencyMs.p50, p95: r.latencyMs.p95, p99: r.latencyMs.p99 },
        errors: r.errors,
        nodeCpuMsPerRequest: perRequest(w.cpuSec),
        pgCpuMsPerRequest: perRequest(pgSec),
        peakRssMb: Math.round(w.peakRssMb),
        startRssMb: Math.round(w.startRssMb),
        otherCores: r2(Math.max(0, m1.busy - m0.busy - ours) / wall),
      };
    };
    /** Every round runs each runner once, in an order rotated by the round. */
    const rounds = async (
      id: string,
      runners: PeerRunner[],
      spec: (who: PeerRunner) => RequestSpec,
      factor: number,
      c: number,
    ) => {
      const runs: PeerRun[] = [];
      for (let round = 1; round <= o.rounds; round++) {
        // Rotate who goes first, so no server always runs right after the same other one.
        const order = runners.map((_, i) => runners[(i + round - 1) % runners.length]);
        for (const who of order) {
          const x = await measure(who, spec(who), factor, c, round);
          runs.push(x);
          say(
            `  ${id.padEnd(2)} c=${String(c).padEnd(3)} round ${round}  ${who.padEnd(12)} ${String(x.rps).padStart(7)} req/s  p50 ${x.latencyMs.p50}ms  cpu ${x.nodeCpuMsPerRequest} + pg ${x.pgCpuMsPerRequest} ms/req  rss ${x.peakRssMb}MB  other ${x.otherCores} cores  errors ${x.errors}`,
          );
        }
      }
      return runs;
    };

    const levels: PeerLevel[] = [];
    for (const c of nestedToo ? o.connections : [])
      levels.push(summarizeLevel(c, await rounds('7', NESTED_RUNNERS, (who) => nestedSpecs[who], 1, c)));
    for (const page of rest) {
      const spec = SCENARIOS.find((s) => s.id === page.id)!.gateway(ctx)(0);
      const heavy = SCENARIOS.find((s) => s.id === page.id)!.heavy;
      for (const c of o.connections)
        page.runs.push(
          summarizeRest(c, await rounds(page.id, REST_RUNNERS, () => spec, heavy ? 1 : LIGHT_FACTOR, c)),
        );
    }

    for (const who of started) await servers[who].stop();
    const profiles: PeersResults['profiles'] = o.cpuProf ? {} : undefined;
    for (const who of o.cpuProf ? started : []) {
      const file = profileFile(who);
      // Start-up (module loading, schema building) is left out: it is not what a request costs.
      const { firstWindowAt, spawnedAt } = servers[who];
      const fromMs = firstWindowAt === undefined ? 0 : firstWindowAt - spawnedAt;
      if (existsSync(file))
        profiles![who] = {
          file: file.replace(`${PACKAGE_ROOT}/`, ''),
          ...summarizeProfile(file, 25, fromMs),
        };
    }
    return {
      kind: 'peers',
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: { ...machineInfo(loadAtStart), node: peerVersions().node },
      versions: peerVersions(),
      database: prepared.database,
      dataset: datasetSummary(prepared.dataset),
      options: {
        scale: o.scale,
        dbName: o.dbName,
        reseed: o.reseed,
        connections: o.connections,
        cpuProf: o.cpuProf,
        only,
        rounds: o.rounds,
        requestsPerConnection: o.requestsPerConnection,
        minRequests: o.minRequests,
        warmupRequests: o.warmupRequests,
        lightFactor: LIGHT_FACTOR,
      },
      ...(nestedProbe ? { probe: nestedProbe } : {}),
      scenarios: nestedToo ? [{ id: nested.id, title: nested.title, runs: levels }] : [],
      rest,
      otherProcesses: others.busiest(new Set([...Object.values(servers).map((s) => s.pid), ...ourBackends])),
      profiles,
    };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    await monitor.end();
  }
}

const LABEL: Record<PeerServer, string> = {
  gateway: 'gateway',
  postgraphile: 'PostGraphile',
  floor: 'the raw floor',
  oneStatement: 'the one-statement floor',
};

const stat = (xs: number[]) => ({
  median: r2(median(xs)),
  spread: [r2(Math.min(...xs)), r2(Math.max(...xs))] as [number, number],
});

/** Per runner: median req/s, CPU and p50 over the rounds, and the highest peak RSS of any round. */
function mediansOf(runs: PeerRun[]): Partial<Record<PeerRunner, PeerMedians>> {
  const medians: Partial<Record<PeerRunner, PeerMedians>> = {};
  for (const who of new Set(runs.map((x) => x.server))) {
    const mine = runs.filter((x) => x.server === who);
    const m = (pick: (x: PeerRun) => number) => r2(median(mine.map(pick)));
    medians[who] = {
      rps: m((x) => x.rps),
      nodeCpuMsPerRequest: m((x) => x.nodeCpuMsPerRequest),
      pgCpuMsPerRequest: m((x) => x.pgCpuMsPerRequest),
      totalCpuMsPerRequest: m((x) => x.nodeCpuMsPerRequest + x.pgCpuMsPerRequest),
      peakRssMb: Math.max(...mine.map((x) => x.peakRssMb)),
      p50Ms: m((x) => x.latencyMs.p50),
    };
  }
  return medians;
}

/** Each round's ratio of a's req/s to b's (0 when b served nothing). */
function roundRatios(runs: PeerRun[], a: PeerRunner, b: PeerRunner): number[] {
  const rounds = [...new Set(runs.map((x) => x.round))];
  const of = (who: PeerRunner, round: number) => runs.find((x) => x.server === who && x.round === round)!;
  return rounds.map((k) => (of(b, k).rps > 0 ? of(a, k).rps / of(b, k).rps : 0));
}

function summarizeLevel(connections: number, runs: PeerRun[]): PeerLevel {
  const pairs: Record<NestedRatio, [PeerRunner, PeerRunner]> = {
    vsPostgraphile: ['gateway', 'postgraphile'],
    vsFloor: ['gateway', 'floor'],
    postgraphileVsFloor: ['postgraphile', 'floor'],
    vsOneStatement: ['gatewayRaw', 'oneStatement'],
    typedVsOneStatement: ['gateway', 'oneStatement'],
    postgraphileVsOneStatement: ['postgraphile', 'oneStatement'],
  };
  const ratios = {} as Record<NestedRatio, number>;
  const spread = {} as Record<NestedRatio, [number, number]>;
  for (const [k, [a, b]] of Object.entries(pairs) as [NestedRatio, [PeerRunner, PeerRunner]][]) {
    const s = stat(roundRatios(runs, a, b));
    ratios[k] = s.median;
    spread[k] = s.spread;
  }
  return { connections, ...ratios, spread, medians: mediansOf(runs), runs };
}

function summarizeRest(connections: number, runs: PeerRun[]): RestLevel {
  const s = stat(roundRatios(runs, 'gateway', 'oneStatement'));
  return {
    connections,
    vsOneStatement: s.median,
    spread: { vsOneStatement: s.spread },
    medians: mediansOf(runs),
    runs,
  };
}

/**
 * CPU used by other processes while the comparison runs, sampled at every run's start and end so
 * that short-lived ones (a test run, a compiler) are seen too; a process that lives and dies between
 * two samples is missed, which the per-run "other cores" (from /proc/stat) still counts.
 */
class OtherCpu {
  private readonly first = cpuByProcess();
  private readonly last = new Map<number, { name: string; sec: number }>();

  sample(): void {
    for (const [pid, p] of cpuByProcess()) this.last.set(pid, p);
  }

  /** The busiest by command name, leaving out this bench, its servers and their backends. */
  busiest(ours: Set<number>): PeersResults['otherProcesses'] {
    const byName = new Map<string, number>();
    for (const [pid, p] of this.last) {
      if (ours.has(pid) || pid === process.pid) continue;
      const used = p.sec - (this.first.get(pid)?.sec ?? 0);
      if (used > 0) byName.set(p.name, (byName.get(p.name) ?? 0) + used);
    }
    return [...byName]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([name, sec]) => ({ name, cpuSec: r2(sec) }));
  }
}
