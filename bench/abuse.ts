import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDatabase } from '../src/db/database.js';
import { createApiKey } from '../src/modules/auth/repository.js';
import { FLOODS, type Flood } from './abuse-attacks.js';
import { percentile } from './load.js';
import { load1, type MachineInfo, machineInfo } from './machine.js';
import { freePort, ServerProcess } from './proc.js';
import { type Command, gatewayEnv, prepareDataset } from './runner.js';
import { TcpProxy } from './tcp-proxy.js';

/**
 * `npm run bench -- --abuse`: the five attacks of issue 12 against a running gateway (production
 * mode, the default rate limits), with one well-behaved tenant alongside. The tenant reads a REST
 * first page at a steady rate, open loop (a request every 1/rate s, whether or not the last one
 * answered), so queueing shows in its latencies. Each attack window follows a calm window of the same
 * length, and the tenant's p50 and p99 under the attack are given as ratios to that calm window (other
 * work on the machine drifts over minutes), with the gateway's peak RSS during the attack.
 *
 * Attackers run as their own processes (bench/abuse-attacks.ts). The fifth attack is not a request:
 * the gateway reaches Postgres through a TCP proxy that goes silent (packets dropped, nothing
 * refused) for the window, and the bench then measures how long the gateway takes to recover.
 */
export interface AbuseOptions {
  serverUrl: string;
  dbName: string;
  scale: number;
  reseed: boolean;
  /** Seconds per window. */
  duration: number;
  /** Tenant requests per second. */
  tenantRate: number;
  /** Attacks to run; all when empty. */
  only: string[];
  /**
   * False lifts the per-key rate limit (the per-address one stays), as if the attacker held many
   * keys: attacks 1 and 2 then reach the limit walk at full rate instead of mostly getting 429.
   */
  keyLimit: boolean;
  gateway: Command;
  attacker: Command;
  rawDir: string;
  quiet: boolean;
}

export const ABUSE_DEFAULTS = {
  dbName: 'sdg_bench_abuse',
  scale: 0.1,
  duration: 15,
  quickDuration: 6,
  tenantRate: 20,
  /** The goals of issue 12. */
  goals: { p99Ratio: 3, rssMb: 300 },
};

export const ATTACKS = [
  ...(Object.keys(FLOODS) as Flood[]).map((id) => ({ id, title: FLOODS[id].title })),
  { id: 'silent-db', title: '5. the path to Postgres drops packets (nothing refused), then returns' },
] as const;

export interface TenantStats {
  requests: number;
  /** Answers by status ("error" for a failed request). */
  statuses: Record<string, number>;
  latencyMs: { p50: number; p99: number; max: number };
}

export interface AttackResult {
  id: string;
  title: string;
  attacker?: { requests: number; statuses: Record<string, number> };
  /** The tenant alone, just before the attack: its baseline (the machine's load drifts). */
  calm: TenantStats;
  tenant: TenantStats;
  /** Tenant p50 and p99 under the attack ÷ the calm window just before it. */
  ratio: { p50: number; p99: number };
  peakRssMb: number;
  gatewayCpuSec: number;
  /** silent-db: seconds from the path's return to the tenant's first 200. */
  recoverySec?: number;
  goalMet: boolean;
}

export interface AbuseResults {
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  options: {
    scale: number;
    dbName: string;
    duration: number;
    tenantRate: number;
    only: string[];
    keyLimit: boolean;
  };
  dataset: { projects: number; portfolioProjects: number };
  goals: typeof ABUSE_DEFAULTS.goals;
  calm: TenantStats & { peakRssMb: number };
  attacks: AttackResult[];
  /** The tenant once more after every attack: shows what the attacks left behind. */
  calmAfter: TenantStats & { peakRssMb: number };
  gatewayExit: number | null;
}

const r2 = (v: number) => Math.round(v * 100) / 100;
const say = (o: Pick<AbuseOptions, 'quiet'>, line: string) => {
  if (!o.quiet) process.stderr.write(`${line}\n`);
};

/** The tenant: GET path at `rate` per second for `seconds`, open loop; waits for the stragglers. */
async function tenant(url: string, key: string, rate: number, seconds: number): Promise<TenantStats> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const pending: Promise<void>[] = [];
  const one = async () => {
    const t = performance.now();
    let status: string;
    try {
      const r = await fetch(url, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(120_000) });
      await r.arrayBuffer();
      status = String(r.status);
    } catch {
      status = 'error';
    }
    latencies.push(performance.now() - t);
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    statuses,
    latencyMs: {
      p50: r2(percentile(sorted, 50)),
      p99: r2(percentile(sorted, 99)),
      max: r2(sorted[sorted.length - 1] ?? 0),
    },
  };
}

function flood(o: AbuseOptions, attack: Flood, url: string, key: string, portfolioId: string) {
  return new Promise<{ requests: number; statuses: Record<string, number> }>((resolve, reject) => {
    execFile(
      o.attacker.command,
      [...o.attacker.args, attack, url, key, String(o.duration), portfolioId],
      { maxBuffer: 1 << 20 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${attack}: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

export async function runAbuse(o: AbuseOptions): Promise<AbuseResults> {
  const startedAt = new Date().toISOString();
  mkdirSync(o.rawDir, { recursive: true });
  const prepared = await prepareDataset({ ...o, backend: 'postgres', pgliteDir: '' });
  const { dataset, fixture, serverEnv } = prepared;
  const portfolioId = dataset.portfolioIds[0];

  // The attacker holds a key of its own (the attack worked with any key, a guest's included).
  const admin = await createDatabase({ url: serverEnv.DATABASE_URL });
  await admin.db.deleteFrom('api_keys').where('label', '=', 'abuse').execute();
  const attackerKey = (await createApiKey(admin.db, dataset.ownerUserId, 'abuse')).apiKey;
  await admin.close();

  const target = new URL(serverEnv.DATABASE_URL);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(serverEnv.DATABASE_URL);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  // Production settings, with the default rate limits (the regular bench lifts them).
  const env: Record<string, string> = { ...gatewayEnv(serverEnv), DATABASE_URL: viaProxy.toString() };
  for (const k of Object.keys(env)) if (k.startsWith('RATE_LIMIT_')) delete env[k];
  if (!o.keyLimit)
    Object.assign(env, { RATE_LIMIT_PER_SECOND: '1000000000', RATE_LIMIT_BURST: '1000000000' });
  const gateway = new ServerProcess(
    'gateway',
    o.gateway.command,
    o.gateway.args,
    env,
    await freePort(),
    join(o.rawDir, 'abuse-gateway.log'),
  );
  const page = `${gateway.url}/projects/v1?orgId=${dataset.orgId}&portfolioId=${portfolioId}&limit=100`;
  try {
    await gateway.ready();
    const warm = await fetch(page, { headers: { 'x-api-key': fixture.apiKey } });
    if (warm.status !== 200) throw new Error(`the tenant's page answered ${warm.status}`);
    const loadAtStart = load1();

    const window = async (run: () => Promise<TenantStats>) => {
      await gateway.waitIdle();
      gateway.startWindow();
      const stats = await run();
      const w = gateway.endWindow();
      return { stats, peakRssMb: Math.round(w.peakRssMb), cpuSec: r2(w.cpuSec) };
    };
    const calmRun = () => tenant(page, fixture.apiKey, o.tenantRate, o.duration);
    say(o, `calm: the tenant alone for ${o.duration} s at ${o.tenantRate} req/s`);
    const calm = await window(calmRun);
    say(
      o,
      `  p50 ${calm.stats.latencyMs.p50} ms  p99 ${calm.stats.latencyMs.p99} ms  rss ${calm.peakRssMb} MB`,
    );

    const attacks: AttackResult[] = [];
    for (const a of ATTACKS.filter((x) => !o.only.length || o.only.includes(x.id))) {
      say(o, `${a.title}`);
      const before = await window(calmRun);
      say(o, `  calm before it: p50 ${before.stats.latencyMs.p50} ms  p99 ${before.stats.latencyMs.p99} ms`);
      let attacker: AttackResult['attacker'];
      let recoverySec: number | undefined;
      const w = await window(async () => {
        if (a.id === 'silent-db') {
          proxy.blackhole();
          const stats = await tenant(page, fixture.apiKey, o.tenantRate, o.duration);
          proxy.restore();
          const back = performance.now();
          for (let i = 0; i < 600; i++) {
            const r = await fetch(page, { headers: { 'x-api-key': fixture.apiKey } });
            await r.arrayBuffer();
            if (r.status === 200) break;
            await new Promise((res) => setTimeout(res, 100));
          }
          recoverySec = r2((performance.now() - back) / 1000);
          return stats;
        }
        const attack = flood(o, a.id as Flood, gateway.url, attackerKey, portfolioId);
        const stats = await tenant(page, fixture.apiKey, o.tenantRate, o.duration);
        attacker = await attack;
        return stats;
      });
      const ratio = {
        p50: r2(w.stats.latencyMs.p50 / before.stats.latencyMs.p50),
        p99: r2(w.stats.latencyMs.p99 / before.stats.latencyMs.p99),
      };
      // A silent database cannot serve the tenant: the goal there is a bounded 503 and a recovery.
      const goalMet =
        a.id === 'silent-db'
          ? w.stats.latencyMs.max < 15_000 && recoverySec !== undefined && recoverySec < 10
          : ratio.p99 <= ABUSE_DEFAULTS.goals.p99Ratio && w.peakRssMb < ABUSE_DEFAULTS.goals.rssMb;
      attacks.push({
        id: a.id,
        title: a.title,
        attacker,
        calm: before.stats,
        tenant: w.stats,
        ratio,
        peakRssMb: w.peakRssMb,
        gatewayCpuSec: w.cpuSec,
        recoverySec,
        goalMet,
      });
      say(
        o,
        `  tenant p50 ${w.stats.latencyMs.p50} ms (${ratio.p50}×)  p99 ${w.stats.latencyMs.p99} ms (${ratio.p99}×)  max ${w.stats.latencyMs.max} ms  statuses ${JSON.stringify(w.stats.statuses)}  rss ${w.peakRssMb} MB${attacker ? `  attacker ${JSON.stringify(attacker.statuses)}` : ''}${recoverySec !== undefined ? `  recovered in ${recoverySec} s` : ''}`,
      );
    }
    say(o, 'calm again: the tenant alone');
    const calmAfter = await window(calmRun);
    const gatewayExit = await gateway.stop();
    return {
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: machineInfo(loadAtStart),
      options: {
        scale: o.scale,
        dbName: o.dbName,
        duration: o.duration,
        tenantRate: o.tenantRate,
        only: o.only,
        keyLimit: o.keyLimit,
      },
      dataset: {
        projects: dataset.counts.projects,
        portfolioProjects: Math.round(dataset.counts.projects / dataset.portfolioIds.length),
      },
      goals: ABUSE_DEFAULTS.goals,
      calm: { ...calm.stats, peakRssMb: calm.peakRssMb },
      attacks,
      calmAfter: { ...calmAfter.stats, peakRssMb: calmAfter.peakRssMb },
      gatewayExit,
    };
  } finally {
    proxy.restore();
    await gateway.stop();
    await proxy.down().catch(() => {});
  }
}
