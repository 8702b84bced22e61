/**
 * `npm run bench -- --scaleout`: the REST first page and the nested GraphQL query against 1 and then
 * 2 gateway processes on one Postgres database, with the load split evenly over the processes (as a
 * connection-level load balancer would). Besides throughput it accounts for every core of the
 * machine during each run (gateways, the load generator, Postgres, the rest, idle), because on a
 * small machine they all share the same cores and the 2/1 ratio means little without that.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type LoadResult, percentile, runLoad } from './load.js';
import { load1, type MachineInfo, machineInfo } from './machine.js';
import {
  cpuSecondsByPid,
  cpuSecondsSince,
  freePort,
  machineCpuSeconds,
  ServerProcess,
  waitDatabaseIdle,
} from './proc.js';
import {
  type BenchOptions,
  type BenchResults,
  type DatasetSummary,
  datasetSummary,
  gatewayEnv,
  type PostgresBenchOptions,
  type PreparedDataset,
  prepareDataset,
  scenarioContext,
} from './runner.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { r2 } from './stats.js';

export type ScaleoutOptions = PostgresBenchOptions &
  Pick<BenchOptions, 'connections' | 'duration' | 'warmup' | 'heavyRequestsPerConnection'> & {
    /** Gateway process counts to compare, ascending; the first is the baseline of the ratios. */
    processes: number[];
    /** Scenario ids (default 1 and 7). */
    scenarios: string[];
  };

export const SCALEOUT_DEFAULTS = { processes: [1, 2], scenarios: ['1', '7'], connections: [16, 64] };

/** Where the machine's CPU went during a run, in cores (CPU seconds ÷ wall seconds). */
export interface CoreUse {
  gateways: number;
  /** The bench process itself: autocannon generating and reading the load. */
  loadGenerator: number;
  postgres: number;
  /** Everything else on the machine (the kernel's own work not charged to a process, other jobs). */
  other: number;
  idle: number;
}

export interface ScaleoutRun {
  processes: number;
  connections: number;
  requests: number;
  /** Each process's successful requests: the split must be roughly even. */
  perProcess: number[];
  rps: number;
  latencyMs: { p50: number; p95: number; p99: number };
  errors: number;
  cores: CoreUse;
  /** Gateway CPU (all processes) per request, ms. */
  gatewayCpuMsPerRequest: number;
  /** Gateway + Postgres + load generator CPU per request, ms: the whole request's cost to the machine. */
  totalCpuMsPerRequest: number;
}

export interface ScaleoutScenario {
  id: string;
  title: string;
  runs: ScaleoutRun[];
  /** Per concurrency: req/s with N processes ÷ req/s with the first count, and the same per gateway core. */
  ratios: { connections: number; processes: number; ratio: number; perGatewayCore: number }[];
}

export interface ScaleoutResults {
  kind: 'scaleout';
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  database: BenchResults['database'];
  dataset: DatasetSummary;
  options: {
    processes: number[];
    connections: number[];
    duration: number;
    warmup: number;
    heavyRequestsPerConnection: number;
  };
  scenarios: ScaleoutScenario[];
}

const say = (o: ScaleoutOptions, line: string) => {
  if (!o.quiet) process.stderr.write(`${line}\n`);
};

/** Splits `total` connections over `n` processes as evenly as possible. */
export const split = (total: number, n: number) =>
  Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));

/** One load run over several servers at once; one autocannon instance per server. */
async function loadAcross(
  servers: ServerProcess[],
  apiKey: string,
  next: ReturnType<Scenario['gateway']>,
  connections: number,
  duration: number,
  heavy: number,
): Promise<LoadResult[]> {
  const shares = split(connections, servers.length);
  return Promise.all(
    servers.map((server, i) =>
      runLoad({
        url: server.url,
        apiKey,
        connections: shares[i],
        duration,
        amount: heavy ? heavy * Math.max(shares[i], 3) : undefined,
        next,
        keepLatencies: true,
      }),
    ),
  );
}

/** Runs the scale-out comparison and returns its results (Postgres only: PGlite is one process's database). */
export async function runScaleout(o: ScaleoutOptions): Promise<ScaleoutResults> {
  const startedAt = new Date().toISOString();
  mkdirSync(o.rawDir, { recursive: true });
  const processes = [...new Set(o.processes)].sort((a, b) => a - b);
  const selected = SCENARIOS.filter((s) => o.scenarios.includes(s.id) && !s.probeOnly);
  if (!selected.length) throw new Error(`no such scenarios: ${o.scenarios.join(', ')}`);
  const prepared: PreparedDataset = await prepareDataset({ ...o, backend: 'postgres', pgliteDir: '' });
  const env = gatewayEnv(prepared.serverEnv);
  const monitor = new pg.Client({ connectionString: prepared.serverEnv.DATABASE_URL });
  await monitor.connect();
  // Between runs: every gateway idle and no statement of the bench database still running.
  const settle = async (servers: ServerProcess[]) => {
    await Promise.all(servers.map((s) => s.waitIdle()));
    await waitDatabaseIdle(monitor);
  };
  const loadAtStart = load1();
  const results: ScaleoutScenario[] = selected.map((s) => ({
    id: s.id,
    title: s.title,
    runs: [],
    ratios: [],
  }));
  let servers: ServerProcess[] = [];
  try {
    for (const n of processes) {
      say(o, `starting ${n} gateway process${n === 1 ? '' : 'es'}`);
      servers = await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const s = new ServerProcess(
            `gateway ${i + 1}`,
            o.gateway.command,
            o.gateway.args,
            env,
            await freePort(),
            join(o.rawDir, `scaleout-gateway-${i + 1}.log`),
          );
          await s.ready();
          return s;
        }),
      );
      const ctx = await scenarioContext(servers[0].url, prepared);
      for (const s of selected) {
        const next = s.gateway(ctx);
        const heavy = s.heavy ? o.heavyRequestsPerConnection : 0;
        const r = results.find((x) => x.id === s.id)!;
        for (const c of o.connections) {
          if (c < n) continue;
          if (o.warmup > 0) {
            await loadAcross(servers, ctx.apiKey, next, c, o.warmup, heavy ? 1 : 0);
            await settle(servers);
          }
          for (const server of servers) server.startWindow();
          const t0 = performance.now();
          const m0 = machineCpuSeconds();
          const pg0 = cpuSecondsByPid('postgres');
          const gen0 = process.cpuUsage();
          const loads = await loadAcross(servers, ctx.apiKey, next, c, o.duration, heavy);
          const gen = process.cpuUsage(gen0);
          const pgSec = cpuSecondsSince(pg0, cpuSecondsByPid('postgres'));
          const m1 = machineCpuSeconds();
          const wall = (performance.now() - t0) / 1000;
          const windows = servers.map((server) => server.endWindow());
          await settle(servers);

          const requests = loads.reduce((a, l) => a + l.requests, 0);
          // The slowest share sets the run's length: total requests over it. Runs measured by count
          // end at their last response, while autocannon only notices on its next 1 s tick: CPU is
          // divided by the active time, or that idle tail would show up as idle cores.
          const elapsed = Math.min(wall, Math.max(...loads.map((l) => l.durationSec)));
          const all = Float64Array.from(loads.flatMap((l) => Array.from(l.latencies ?? []))).sort();
          const gatewaySec = windows.reduce((a, w) => a + w.cpuSec, 0);
          const genSec = (gen.user + gen.system) / 1e6;
          const cores = (sec: number) => r2(sec / elapsed);
          const machineCores = (m1.total - m0.total) / wall;
          const busyCores = Math.min(machineCores, (m1.busy - m0.busy) / elapsed);
          const run: ScaleoutRun = {
            processes: n,
            connections: c,
            requests,
            perProcess: loads.map((l) => l.requests),
            rps: r2(elapsed > 0 ? requests / elapsed : 0),
            latencyMs: {
              p50: r2(percentile(all, 50)),
              p95: r2(percentile(all, 95)),
              p99: r2(percentile(all, 99)),
            },
            errors: loads.reduce((a, l) => a + l.errors, 0),
            cores: {
              gateways: cores(gatewaySec),
              loadGenerator: cores(genSec),
              postgres: cores(pgSec),
              other: r2(Math.max(0, busyCores - (gatewaySec + genSec + pgSec) / wall)),
              idle: r2(Math.max(0, machineCores - busyCores)),
            },
            gatewayCpuMsPerRequest: requests ? r2((gatewaySec * 1000) / requests) : 0,
            totalCpuMsPerRequest: requests ? r2(((gatewaySec + pgSec + genSec) * 1000) / requests) : 0,
          };
          r.runs.push(run);
          say(
            o,
            `  ${s.id.padEnd(3)} ${n} proc c=${String(c).padEnd(3)} ${String(run.rps).padStart(8)} req/s  p50 ${run.latencyMs.p50}ms  p99 ${run.latencyMs.p99}ms  errors ${run.errors}  cores: gateways ${run.cores.gateways}, load ${run.cores.loadGenerator}, postgres ${run.cores.postgres}, idle ${run.cores.idle}`,
          );
        }
      }
      await Promise.all(servers.map((s) => s.stop()));
      servers = [];
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await monitor.end();
  }

  for (const r of results) {
    for (const run of r.runs) {
      const base = r.runs.find((x) => x.connections === run.connections && x.processes === processes[0]);
      if (!base || run === base || !base.rps || !run.cores.gateways || !base.cores.gateways) continue;
      r.ratios.push({
        connections: run.connections,
        processes: run.processes,
        ratio: r2(run.rps / base.rps),
        perGatewayCore: r2(run.rps / run.cores.gateways / (base.rps / base.cores.gateways)),
      });
    }
  }
  return {
    kind: 'scaleout',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(loadAtStart),
    database: prepared.database,
    dataset: datasetSummary(prepared.dataset),
    options: {
      processes,
      connections: o.connections,
      duration: o.duration,
      warmup: o.warmup,
      heavyRequestsPerConnection: o.heavyRequestsPerConnection,
    },
    scenarios: results,
  };
}
