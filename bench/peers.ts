/**
 * `npm run bench -- --peers`: the nested query (scenario 7) on the gateway, PostGraphile 5 and the
 * raw floor (bench/baseline.ts), all three on Node 22 against the same Postgres bench database.
 * Their answers are checked equal first (bench/peers-equal.ts); then every concurrency runs several
 * rounds, each server once per round in a rotating order, and the report gives median ratios with
 * their spread, and each server's CPU per request in its own process and in its Postgres backends.
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
  fromGateway,
  fromPostgraphile,
  type NestedComparison,
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
  gatewayEnv,
  prepareDataset,
  probe,
  scenarioContext,
} from './runner.js';
import { type RequestSpec, SCENARIOS } from './scenarios.js';

export type PeerServer = 'gateway' | 'postgraphile' | 'floor';
export const PEER_SERVERS: PeerServer[] = ['gateway', 'postgraphile', 'floor'];

export type PeersOptions = Pick<
  BenchOptions,
  | 'scale'
  | 'serverUrl'
  | 'dbName'
  | 'reseed'
  | 'connections'
  | 'gateway'
  | 'baselineServer'
  | 'cpuProf'
  | 'rawDir'
  | 'quiet'
> & {
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
  server: PeerServer;
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

/** One concurrency: median of the per-round ratios, with their [min, max]. */
export interface PeerLevel {
  connections: number;
  /** Gateway req/s ÷ PostGraphile req/s, median of the rounds. */
  vsPostgraphile: number;
  /** Gateway req/s ÷ raw floor req/s, median of the rounds. */
  vsFloor: number;
  postgraphileVsFloor: number;
  spread: Record<'vsPostgraphile' | 'vsFloor' | 'postgraphileVsFloor', [number, number]>;
  medians: Record<PeerServer, PeerMedians>;
  runs: PeerRun[];
}

export interface PeersResults {
  kind: 'peers';
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  /** The Node that ran all three servers, and PostGraphile's version. */
  versions: { node: string; postgraphile: string };
  database: BenchResults['database'];
  dataset: { scale: number; projects: number; readPortfolioProjects: number };
  options: Omit<PeersOptions, 'gateway' | 'baselineServer' | 'rawDir' | 'quiet' | 'serverUrl'>;
  probe: Record<PeerServer, PeerProbe> & {
    /** The normalised comparison of PostGraphile's answer with the gateway's (bench/peers-equal.ts). */
    equality: NestedComparison;
    /** The floor's answer is the gateway's JSON exactly (deep-equal, before any normalisation). */
    floorEqualsGateway: boolean;
  };
  scenarios: { id: string; title: string; runs: PeerLevel[] }[];
  /** The busiest other processes during the measured runs and between them (CPU seconds), to judge the noise. */
  otherProcesses: { name: string; cpuSec: number }[];
  profiles?: Partial<Record<PeerServer, ProfileSummary & { file: string }>>;
}

const r2 = (v: number) => Math.round(v * 100) / 100;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Each server's Postgres backends carry its name (PGAPPNAME), so their CPU time can be read apart. */
const APP_NAME: Record<PeerServer, string> = {
  gateway: 'sdg-bench-gateway',
  postgraphile: 'sdg-bench-postgraphile',
  floor: 'sdg-bench-floor',
};

export async function runPeers(o: PeersOptions): Promise<PeersResults> {
  const startedAt = new Date().toISOString();
  const say = (line: string) => {
    if (!o.quiet) process.stderr.write(`${line}\n`);
  };
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
  };
  const env: Record<PeerServer, Record<string, string>> = {
    gateway: gatewayEnv(prepared.serverEnv),
    postgraphile: { DATABASE_URL: dbUrl, NODE_ENV: 'production', GRAPHILE_ENV: 'production' },
    floor: gatewayEnv(prepared.serverEnv),
  };
  const servers = {} as Record<PeerServer, ServerProcess>;
  const ourBackends = new Set<number>();
  const others = new OtherCpu();
  const loadAtStart = load1();
  try {
    // All three on bench/peers' Node 22: PostGraphile 5 needs it, and the others must run on the same.
    for (const who of PEER_SERVERS) {
      servers[who] = new ServerProcess(
        who,
        PEERS_NODE,
        [...profArgs(who), ...args[who]],
        { ...env[who], PGAPPNAME: APP_NAME[who] },
        await freePort(),
        join(o.rawDir, `peers-${who}.log`),
      );
    }
    await Promise.all(PEER_SERVERS.map((who) => servers[who].ready(120_000)));
    say(
      `gateway, PostGraphile ${peerVersions().postgraphile} and the raw floor are up on Node ${peerVersions().node}`,
    );

    const ctx = await scenarioContext(servers.gateway.url, prepared);
    const nested = SCENARIOS.find((s) => s.id === '7')!;
    const specs: Record<PeerServer, RequestSpec> = {
      gateway: nested.gateway(ctx)(0),
      floor: nested.baseline!(ctx)(0),
      postgraphile: {
        method: 'POST',
        path: '/graphql',
        body: JSON.stringify({
          query: POSTGRAPHILE_NESTED_QUERY,
          variables: {
            orgId: ctx.orgId,
            portfolioId: ctx.portfolioId,
            projects: 100,
            contacts: 10,
            parcels: 5,
          },
        }),
      },
    };

    // ---- Equal answers first: the same rows, in the same order, with the same values ----
    const statements = async () =>
      ((await (await fetch(`${servers.postgraphile.url}/stats`)).json()) as { statements: number })
        .statements;
    const probes = {} as Record<PeerServer, PeerProbe>;
    const bodies = {} as Record<PeerServer, unknown>;
    for (const who of PEER_SERVERS) {
      await probe(servers[who].url, ctx.apiKey, specs[who]);
      const before = who === 'postgraphile' ? await statements() : 0;
      const { body, coldSql: _c, ...p } = await probe(servers[who].url, ctx.apiKey, specs[who]);
      if (who === 'postgraphile') p.sql = (await statements()) - before;
      if (p.status !== 200)
        throw new Error(
          `${who} answered ${p.status} to the nested query: ${JSON.stringify(body).slice(0, 500)}`,
        );
      probes[who] = p;
      bodies[who] = body;
    }
    const equality = compareNested(fromGateway(bodies.gateway), fromPostgraphile(bodies.postgraphile));
    const floorEqualsGateway = isDeepStrictEqual(bodies.floor, bodies.gateway);
    const { projects, contacts, parcels } = equality.counts;
    say(
      `answers compared: ${projects} projects, ${contacts} contacts, ${parcels} parcels: ${equality.equal ? 'equal' : `DIFFERENT at ${equality.difference}`}; floor ${floorEqualsGateway ? 'equal' : 'DIFFERENT'}`,
    );
    if (!equality.equal || !floorEqualsGateway)
      throw new Error(
        `the servers' answers differ (${equality.difference ?? 'floor ≠ gateway'}): a ratio would compare different work. Fix the query in bench/peers-equal.ts or bench/baseline.ts.`,
      );
    if (!projects || !contacts || !parcels)
      throw new Error(
        `the nested answer is empty at some level (${projects}/${contacts}/${parcels}): nothing to compare`,
      );

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
    const measure = async (who: PeerServer, c: number, round: number): Promise<PeerRun> => {
      const server = servers[who];
      const base = {
        url: server.url,
        apiKey: ctx.apiKey,
        connections: c,
        duration: 120,
        next: () => specs[who],
      };
      await runLoad({ ...base, amount: Math.max(c, o.warmupRequests) });
      await settle(server);
      others.sample();
      server.startWindow();
      const pg0 = await backendCpu(who);
      const m0 = machineCpuSeconds();
      const gen0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await runLoad({ ...base, amount: Math.max(o.requestsPerConnection * c, o.minRequests) });
      const wall = (performance.now() - t0) / 1000;
      const gen = process.cpuUsage(gen0);
      const m1 = machineCpuSeconds();
      let pgSec = 0;
      for (const [pid, sec] of await backendCpu(who)) pgSec += Math.max(0, sec - (pg0.get(pid) ?? 0));
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

    const levels: PeerLevel[] = [];
    for (const c of o.connections) {
      const runs: PeerRun[] = [];
      for (let round = 1; round <= o.rounds; round++) {
        // Rotate who goes first, so no server always runs right after the same other one.
        const order = PEER_SERVERS.map((_, i) => PEER_SERVERS[(i + round - 1) % PEER_SERVERS.length]);
        for (const who of order) {
          const x = await measure(who, c, round);
          runs.push(x);
          say(
            `  7 c=${String(c).padEnd(3)} round ${round}  ${who.padEnd(12)} ${String(x.rps).padStart(7)} req/s  p50 ${x.latencyMs.p50}ms  cpu ${x.nodeCpuMsPerRequest} + pg ${x.pgCpuMsPerRequest} ms/req  rss ${x.peakRssMb}MB  other ${x.otherCores} cores  errors ${x.errors}`,
          );
        }
      }
      levels.push(summarizeLevel(c, runs));
    }

    for (const who of PEER_SERVERS) await servers[who].stop();
    const profiles: PeersResults['profiles'] = o.cpuProf ? {} : undefined;
    for (const who of o.cpuProf ? PEER_SERVERS : []) {
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
    const d = prepared.dataset;
    return {
      kind: 'peers',
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: { ...machineInfo(loadAtStart), node: peerVersions().node },
      versions: peerVersions(),
      database: prepared.database,
      dataset: {
        scale: d.scale,
        projects: d.counts.projects,
        readPortfolioProjects: Math.round(d.counts.projects / d.portfolioIds.length),
      },
      options: {
        scale: o.scale,
        dbName: o.dbName,
        reseed: o.reseed,
        connections: o.connections,
        cpuProf: o.cpuProf,
        rounds: o.rounds,
        requestsPerConnection: o.requestsPerConnection,
        minRequests: o.minRequests,
        warmupRequests: o.warmupRequests,
      },
      probe: { ...probes, equality, floorEqualsGateway },
      scenarios: [{ id: nested.id, title: nested.title, runs: levels }],
      otherProcesses: others.busiest(new Set([...Object.values(servers).map((s) => s.pid), ...ourBackends])),
      profiles,
    };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    await monitor.end();
  }
}

function summarizeLevel(connections: number, runs: PeerRun[]): PeerLevel {
  const rounds = [...new Set(runs.map((x) => x.round))];
  const of = (who: PeerServer, round: number) => runs.find((x) => x.server === who && x.round === round)!;
  const ratios = (a: PeerServer, b: PeerServer) =>
    rounds.map((k) => (of(b, k).rps > 0 ? of(a, k).rps / of(b, k).rps : 0));
  const stat = (xs: number[]) => ({
    median: r2(median(xs)),
    spread: [r2(Math.min(...xs)), r2(Math.max(...xs))] as [number, number],
  });
  const g = stat(ratios('gateway', 'postgraphile'));
  const f = stat(ratios('gateway', 'floor'));
  const pf = stat(ratios('postgraphile', 'floor'));
  const medians = {} as Record<PeerServer, PeerMedians>;
  for (const who of PEER_SERVERS) {
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
  return {
    connections,
    vsPostgraphile: g.median,
    vsFloor: f.median,
    postgraphileVsFloor: pf.median,
    spread: { vsPostgraphile: g.spread, vsFloor: f.spread, postgraphileVsFloor: pf.spread },
    medians,
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
