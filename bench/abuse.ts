import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDatabase } from '../src/db/database.js';
import { createApiKey } from '../src/modules/auth/index.js';
import { TcpProxy } from '../test/helpers/tcp-proxy.js';
import { FLOODS, type Flood } from './abuse-attacks.js';
import {
  type DeliveryStats,
  expandOnly,
  isWsAttack,
  SLOW_WEBHOOK,
  SlowWebhookTenant,
  WEBHOOK_DELAY_GOAL_MS,
  WS_ATTACK_LIST,
  wsFlood,
} from './abuse-ws.js';
import type { WsAttack, WsAttackContext } from './abuse-ws-attacks.js';
import { percentile } from './load.js';
import { load1, type MachineInfo, machineInfo } from './machine.js';
import { freePort, ServerProcess } from './proc.js';
import { type Command, gatewayEnv, prepareDataset } from './runner.js';
import { r2 } from './stats.js';

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
 *
 * The WebSocket attacks of issue 37 (bench/abuse-ws-attacks.ts, bench/abuse-ws.ts) follow: graphql-ws
 * floods, a socket that never reads, churn, fan-out, and a slow webhook tenant. A socket attacker
 * says when its setup is done, and the tenant's window starts then.
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
  /** The socket attacker, bench/abuse-ws-attacks.ts. */
  wsAttacker: Command;
  /** Scales the WebSocket attacks' sizes (in-flight counts, subscriptions, writes); 1 unless a smoke test. */
  wsSize?: number;
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
  ...WS_ATTACK_LIST,
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
  /** RSS when the window started: what earlier attacks left behind (one gateway runs them all). */
  startRssMb?: number;
  gatewayCpuSec: number;
  /** silent-db: seconds from the path's return to the tenant's first 200. */
  recoverySec?: number;
  /** ws-slow-webhook: the other org's delivery delay, calm and under the attack. */
  webhook?: { calm: DeliveryStats; attack: DeliveryStats };
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

/** The slow webhook tenant's extra goal: B's deliveries all arrive, at most 2 s later than calm. */
export const webhookGoalMet = (w: { calm: DeliveryStats; attack: DeliveryStats }) =>
  w.attack.missing === 0 && w.attack.delayMs.p99 <= w.calm.delayMs.p99 + WEBHOOK_DELAY_GOAL_MS;
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
  await admin.db.deleteFrom('api_keys').where('label', 'in', ['abuse', 'abuse-writer']).execute();
  // The fan-out's subscriptions are spread over four keys, as one attacker holding several would.
  const attackerKeys: string[] = [];
  for (let i = 0; i < 4; i++)
    attackerKeys.push((await createApiKey(admin.db, dataset.ownerUserId, 'abuse')).apiKey);
  const attackerKey = attackerKeys[0];
  const writerKey = (await createApiKey(admin.db, dataset.ownerUserId, 'abuse-writer')).apiKey;
  await admin.close();
  const only = expandOnly(o.only);

  const target = new URL(serverEnv.DATABASE_URL);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(serverEnv.DATABASE_URL);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  // Production settings, with the default rate limits (the regular bench lifts them).
  // Private targets: the slow webhook tenant's receivers listen on 127.0.0.1.
  const env: Record<string, string> = {
    ...gatewayEnv(serverEnv),
    DATABASE_URL: viaProxy.toString(),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
  };
  for (const k of Object.keys(env)) if (k.startsWith('RATE_LIMIT_')) delete env[k];
  if (!o.keyLimit)
    Object.assign(env, { RATE_LIMIT_PER_SECOND: '1000000000', RATE_LIMIT_BURST: '1000000000' });
  const port = await freePort();
  const startGateway = (log: string) =>
    new ServerProcess('gateway', o.gateway.command, o.gateway.args, env, port, join(o.rawDir, log));
  let gateway = startGateway('abuse-gateway.log');
  let attacked = false;
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
      return {
        stats,
        peakRssMb: Math.round(w.peakRssMb),
        startRssMb: Math.round(w.startRssMb),
        cpuSec: r2(w.cpuSec),
      };
    };
    const calmRun = () => tenant(page, fixture.apiKey, o.tenantRate, o.duration);
    say(o, `calm: the tenant alone for ${o.duration} s at ${o.tenantRate} req/s`);
    const calm = await window(calmRun);
    say(
      o,
      `  p50 ${calm.stats.latencyMs.p50} ms  p99 ${calm.stats.latencyMs.p99} ms  rss ${calm.peakRssMb} MB`,
    );

    const attacks: AttackResult[] = [];
    const wsContext: WsAttackContext = {
      keys: attackerKeys,
      writerKey,
      orgId: dataset.orgId,
      portfolioId,
      projectId: prepared.busiestProjectId,
      size: o.wsSize ?? 1,
    };
    for (const a of ATTACKS.filter((x) => !only.length || only.includes(x.id))) {
      say(o, `${a.title}`);
      // Each WebSocket attack gets a fresh gateway on the same port, so that its RSS is its own and
      // not what the sockets of the attack before it left.
      if (isWsAttack(a.id) && attacked) {
        await gateway.stop();
        gateway = startGateway(`abuse-gateway-${a.id}.log`);
        await gateway.ready();
      }
      attacked = true;
      let hooks: SlowWebhookTenant | undefined;
      let calmDeliveries: DeliveryStats | undefined;
      let attackDeliveries: DeliveryStats | undefined;
      // B's deliveries are waited for, boundedly: under the attack they may not come at all.
      const deliveryWaitSec = Math.min(60, Math.max(10, 2 * o.duration));
      if (a.id === SLOW_WEBHOOK.id) {
        hooks = new SlowWebhookTenant(gateway.url, serverEnv.DATABASE_URL, {
          key: fixture.apiKey,
          orgId: dataset.orgId,
          portfolioId: dataset.scratchPortfolioId,
          projectIds: fixture.writeProjectIds,
        });
        await hooks.setup();
      }
      try {
        const before = await window(async () => {
          if (!hooks) return calmRun();
          const [stats, d] = await Promise.all([calmRun(), hooks.measureB(o.duration, 2, deliveryWaitSec)]);
          calmDeliveries = d;
          return stats;
        });
        say(
          o,
          `  calm before it: p50 ${before.stats.latencyMs.p50} ms  p99 ${before.stats.latencyMs.p99} ms`,
        );
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
          if (hooks) {
            const size = o.wsSize ?? 1;
            const attack = hooks.attack(o.duration, 4, Math.max(10, Math.round(100 * size)));
            const [stats, d] = await Promise.all([
              tenant(page, fixture.apiKey, o.tenantRate, o.duration),
              hooks.measureB(o.duration, 2, deliveryWaitSec),
            ]);
            attackDeliveries = d;
            attacker = await attack;
            return stats;
          }
          if (isWsAttack(a.id)) {
            const ws = wsFlood(o.wsAttacker, a.id as WsAttack, gateway.url, o.duration, wsContext);
            await ws.ready;
            const stats = await tenant(page, fixture.apiKey, o.tenantRate, o.duration);
            attacker = await ws.done;
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
        const webhook =
          calmDeliveries && attackDeliveries ? { calm: calmDeliveries, attack: attackDeliveries } : undefined;
        // A silent database cannot serve the tenant: the goal there is a bounded 503 and a recovery.
        const goalMet =
          a.id === 'silent-db'
            ? w.stats.latencyMs.max < 15_000 && recoverySec !== undefined && recoverySec < 10
            : ratio.p99 <= ABUSE_DEFAULTS.goals.p99Ratio &&
              w.peakRssMb < ABUSE_DEFAULTS.goals.rssMb &&
              (!webhook || webhookGoalMet(webhook));
        attacks.push({
          id: a.id,
          title: a.title,
          attacker,
          calm: before.stats,
          tenant: w.stats,
          ratio,
          peakRssMb: w.peakRssMb,
          startRssMb: w.startRssMb,
          gatewayCpuSec: w.cpuSec,
          recoverySec,
          webhook,
          goalMet,
        });
        say(
          o,
          `  tenant p50 ${w.stats.latencyMs.p50} ms (${ratio.p50}×)  p99 ${w.stats.latencyMs.p99} ms (${ratio.p99}×)  max ${w.stats.latencyMs.max} ms  statuses ${JSON.stringify(w.stats.statuses)}  rss ${w.peakRssMb} MB${attacker ? `  attacker ${JSON.stringify(attacker.statuses)}` : ''}${recoverySec !== undefined ? `  recovered in ${recoverySec} s` : ''}${webhook ? `  B's deliveries p99 ${webhook.calm.delayMs.p99} → ${webhook.attack.delayMs.p99} ms, ${webhook.attack.missing} missing` : ''}`,
        );
      } finally {
        await hooks?.teardown();
      }
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
        only,
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
