/**
 * `npm run bench -- --scaleout --citus`: what distribution costs. The same dataset on a Citus
 * cluster (coordinator and workers, tables distributed by org_id) and on a single PostgreSQL, one
 * gateway process on each, running the same scenarios in alternating rounds (the order swapped every
 * round). Reported per scenario and concurrency: req/s, p50 and p99 latency, gateway and database
 * CPU per request, and the statements per request each gateway counted, with cluster ÷ single
 * ratios of the same round.
 *
 * On one machine the cluster cannot be faster (its nodes share the same cores); what this shows is
 * the price of the extra hop and of Citus' planning on the coordinator.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { citusNodes, isCitus, nodeUrl, postmasterPid } from '../test/helpers/citus-cluster.js';
import { percentile, runLoad } from './load.js';
import { load1, machineInfo } from './machine.js';
import { cpuSeconds, freePort, ServerProcess } from './proc.js';
import { writeRun } from './report.js';
import { gatewayEnv, type PreparedDataset, prepareDataset, scenarioContext } from './runner.js';
import type { ScaleoutOptions } from './scaleout.js';
import { SCENARIOS } from './scenarios.js';
import { median, r2 } from './stats.js';

export interface DistributionOptions extends Omit<ScaleoutOptions, 'processes' | 'serverUrl'> {
  /** The coordinator's admin database (its workers are read from pg_dist_node). */
  citusUrl: string;
  /** The single PostgreSQL's admin database (default: the coordinator's instance, see README). */
  singleUrl: string;
  rounds: number;
}

export const DISTRIBUTION_DEFAULTS = {
  citusUrl: 'postgres://postgres@127.0.0.1:9700/postgres',
  scenarios: ['1', '7', '5a'],
  connections: [1, 16],
  rounds: 3,
};

type Side = 'single' | 'cluster';

export interface DistributionRun {
  rps: number;
  p50: number;
  p99: number;
  /** Gateway CPU ms per request. */
  gatewayCpu: number;
  /** CPU ms per request of every PostgreSQL process of the side (coordinator + workers on the cluster). */
  dbCpu: number;
  /** Of dbCpu, the workers' share (cluster only). */
  workerCpu?: number;
  /** x-sql-statements: mean per request. */
  statements: number | null;
  errors: number;
}

export interface DistributionRow {
  scenario: string;
  title: string;
  connections: number;
  single: DistributionRun[];
  cluster: DistributionRun[];
}

export interface DistributionResults {
  kind: 'distribution';
  startedAt: string;
  finishedAt: string;
  machine: ReturnType<typeof machineInfo>;
  scale: number;
  citus: { coordinator: string; workers: string[]; version: string };
  single: string;
  options: { rounds: number; duration: number; warmup: number; heavyRequestsPerConnection: number };
  rows: DistributionRow[];
}

/** CPU seconds so far of a PostgreSQL instance: its postmaster and every process it started. */
function instanceCpu(postmasters: number[]): Map<number, number> {
  const out = new Map<number, number>();
  const parents = new Set(postmasters);
  for (const [pid, ppid] of processParents())
    if (parents.has(pid) || parents.has(ppid)) {
      const s = cpuSeconds(pid);
      if (s !== undefined) out.set(pid, s);
    }
  return out;
}

function processParents(): [number, number][] {
  const out: [number, number][] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      out.push([Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])]);
    } catch {}
  }
  return out;
}

const since = (a: Map<number, number>, b: Map<number, number>) => {
  let t = 0;
  for (const [pid, s] of b) t += Math.max(0, s - (a.get(pid) ?? 0));
  return t;
};

export async function runDistribution(o: DistributionOptions): Promise<DistributionResults> {
  const startedAt = new Date().toISOString();
  mkdirSync(o.rawDir, { recursive: true });
  if (!(await isCitus(o.citusUrl)))
    throw new Error(`${o.citusUrl} has no citus extension: start the cluster (scripts/citus/start.sh)`);
  if (o.singleUrl !== o.citusUrl && (await isCitus(o.singleUrl)))
    throw new Error(`${o.singleUrl} is a Citus node: the single side must be plain PostgreSQL`);
  const selected = SCENARIOS.filter((s) => o.scenarios.includes(s.id) && !s.probeOnly);
  if (!selected.length) throw new Error(`no such scenarios: ${o.scenarios.join(', ')}`);
  const base = { ...o, backend: 'postgres' as const, pgliteDir: '' };
  // The same seed on both: the single side's database carries a suffix, so on the coordinator's
  // instance (the default) the two never share a name.
  const prepared: Record<Side, PreparedDataset> = {
    cluster: await prepareDataset({ ...base, serverUrl: o.citusUrl, citus: true }),
    single: await prepareDataset({ ...base, serverUrl: o.singleUrl, dbName: `${o.dbName}_single` }),
  };
  const { coordinator, workers } = await citusNodes(o.citusUrl);
  const at = (n: { host: string; port: number }) => nodeUrl(o.citusUrl, n.host, n.port, 'postgres');
  const pids = {
    coordinator: await postmasterPid(o.citusUrl),
    workers: await Promise.all(workers.map((w) => postmasterPid(at(w)))),
    single: await postmasterPid(o.singleUrl),
  };
  const servers = {} as Record<Side, ServerProcess>;
  for (const side of ['single', 'cluster'] as const) {
    servers[side] = new ServerProcess(
      side,
      o.gateway.command,
      o.gateway.args,
      gatewayEnv(prepared[side].serverEnv),
      await freePort(),
      join(o.rawDir, `distribution-${side}.log`),
    );
    await servers[side].ready();
  }
  const loadAtStart = load1();
  const rows: DistributionRow[] = [];
  try {
    const ctx = {
      single: await scenarioContext(servers.single.url, prepared.single),
      cluster: await scenarioContext(servers.cluster.url, prepared.cluster),
    };
    for (const s of selected) {
      const next = { single: s.gateway(ctx.single), cluster: s.gateway(ctx.cluster) };
      for (const c of o.connections) {
        const amount = s.heavy ? o.heavyRequestsPerConnection * Math.max(c, 3) : undefined;
        const row: DistributionRow = {
          scenario: s.id,
          title: s.title,
          connections: c,
          single: [],
          cluster: [],
        };
        const run = (side: Side, duration: number, n?: number) =>
          runLoad({
            url: servers[side].url,
            apiKey: ctx[side].apiKey,
            connections: c,
            duration,
            amount: n,
            next: next[side],
            keepLatencies: true,
          });
        if (o.warmup > 0)
          for (const side of ['single', 'cluster'] as const)
            await run(side, o.warmup, s.heavy ? c : undefined);
        for (let r = 0; r < o.rounds; r++) {
          for (const side of r % 2 ? (['cluster', 'single'] as const) : (['single', 'cluster'] as const)) {
            await servers[side].waitIdle();
            const dbPids = side === 'single' ? [pids.single] : [pids.coordinator, ...pids.workers];
            const db0 = instanceCpu(dbPids);
            const w0 = side === 'cluster' ? instanceCpu(pids.workers) : undefined;
            servers[side].startWindow();
            const res = await run(side, o.duration, amount);
            const win = servers[side].endWindow();
            const dbSec = since(db0, instanceCpu(dbPids));
            const perReq = (sec: number) => (res.requests ? r2((sec * 1000) / res.requests) : NaN);
            const all = res.latencies ?? new Float64Array();
            const x: DistributionRun = {
              rps: r2(res.rps),
              p50: r2(percentile(all, 50)),
              p99: r2(percentile(all, 99)),
              gatewayCpu: perReq(win.cpuSec),
              dbCpu: perReq(dbSec),
              ...(w0 ? { workerCpu: perReq(since(w0, instanceCpu(pids.workers))) } : {}),
              statements: res.sql ? r2(res.sql.mean) : null,
              errors: res.errors,
            };
            row[side].push(x);
            if (!o.quiet)
              process.stderr.write(
                `  ${s.id} c=${c} round ${r + 1} ${side.padEnd(7)} ${x.rps} req/s p50 ${x.p50} ms p99 ${x.p99} ms, CPU ms/request gateway ${x.gatewayCpu} database ${x.dbCpu}, statements ${x.statements}, errors ${x.errors}\n`,
              );
          }
        }
        rows.push(row);
      }
    }
  } finally {
    await servers.single?.stop();
    await servers.cluster?.stop();
  }
  const version = prepared.cluster.database.version;
  return {
    kind: 'distribution',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(loadAtStart),
    scale: o.scale,
    citus: {
      coordinator: `${coordinator.host}:${coordinator.port}`,
      workers: workers.map((w) => `${w.host}:${w.port}`),
      version,
    },
    single: new URL(o.singleUrl).host,
    options: {
      rounds: o.rounds,
      duration: o.duration,
      warmup: o.warmup,
      heavyRequestsPerConnection: o.heavyRequestsPerConnection,
    },
    rows,
  };
}

const ratio = (row: DistributionRow, f: (x: DistributionRun) => number) => {
  const rs = row.cluster.map((c, i) => f(c) / f(row.single[i])).filter(Number.isFinite);
  return `${r2(median(rs)).toFixed(2)} [${r2(Math.min(...rs))}–${r2(Math.max(...rs))}]`;
};
const med = (xs: DistributionRun[], f: (x: DistributionRun) => number | null | undefined) =>
  r2(median(xs.map((x) => f(x) ?? NaN).filter(Number.isFinite)));

export function distributionMarkdown(r: DistributionResults): string {
  const m = r.machine;
  const L = [
    `## Distribution cost: Citus cluster ÷ single PostgreSQL`,
    '',
    `Run ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${m.cores} cores, Node ${m.node}; 1-minute load average ${m.load1.start} before, ${m.load1.end} after (other jobs share the machine). ` +
      `Dataset scale ${r.scale} on both. Cluster: coordinator ${r.citus.coordinator}, workers ${r.citus.workers.join(', ')} (PostgreSQL ${r.citus.version}); single: ${r.single}. ` +
      `One gateway process per side, ${r.options.rounds} alternating rounds of ${r.options.warmup ? `${r.options.warmup} s warm-up (once) + ` : ''}${r.options.duration} s (the nested query: ${r.options.heavyRequestsPerConnection} requests per connection). ` +
      "Ratios are cluster ÷ single of the same round: median [min–max]. Database CPU counts every process of the instances involved (coordinator and workers on the cluster). Statements are the gateway's own count per request (`x-sql-statements`; BEGIN and COMMIT not included).",
    '',
    '| scenario | conn | req/s single / cluster | req/s ratio | p50 ms single / cluster | p50 ratio | p99 ms single / cluster | gateway CPU ms/req single / cluster | database CPU ms/req single / cluster (workers) | statements/req single / cluster | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of r.rows) {
    const errs = [...row.single, ...row.cluster].reduce((a, x) => a + x.errors, 0);
    L.push(
      `| ${row.scenario}. ${row.title} | ${row.connections} | ${med(row.single, (x) => x.rps)} / ${med(row.cluster, (x) => x.rps)} | **${ratio(row, (x) => x.rps)}** | ${med(row.single, (x) => x.p50)} / ${med(row.cluster, (x) => x.p50)} | ${ratio(row, (x) => x.p50)} | ${med(row.single, (x) => x.p99)} / ${med(row.cluster, (x) => x.p99)} | ${med(row.single, (x) => x.gatewayCpu)} / ${med(row.cluster, (x) => x.gatewayCpu)} | ${med(row.single, (x) => x.dbCpu)} / ${med(row.cluster, (x) => x.dbCpu)} (${med(row.cluster, (x) => x.workerCpu)}) | ${med(row.single, (x) => x.statements)} / ${med(row.cluster, (x) => x.statements)} | ${errs} |`,
    );
  }
  L.push('');
  return L.join('\n');
}

/** Writes `<stamp>-distribution-citus-s<scale>[-label]` (see writeRun), unlabelled runs also as `latest-distribution-citus`. */
export function writeDistribution(r: DistributionResults, dir: string, label?: string): string[] {
  const stamp = r.startedAt.slice(0, 16).replace('T', '-').replace(':', '');
  const base = `${stamp}-distribution-citus-s${r.scale}${label ? `-${label}` : ''}`;
  return writeRun(
    dir,
    base,
    label ? undefined : 'latest-distribution-citus',
    distributionMarkdown(r),
    `${JSON.stringify(r, null, 2)}\n`,
  );
}
