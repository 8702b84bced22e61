/**
 * The WebSocket side of `npm run bench -- --abuse`: starting a socket attacker (its own process,
 * bench/abuse-ws-attacks.ts) and waiting for its `ready`, and the slow webhook tenant, which runs
 * in the bench process because it is receivers and a few writes, not a flood.
 *
 * The slow webhook tenant: org A (an org of its own, made here) registers endpoints on a local
 * receiver that answers after 9 s and writes many records; org B (the dataset's org, the tenant's)
 * has one endpoint that answers at once and writes at a steady rate. B's delivery delay, from each
 * write's acknowledgement to its delivery, is measured in the calm window and under the attack.
 * The gateway must allow private targets (WEBHOOK_ALLOW_PRIVATE_TARGETS=1) for 127.0.0.1 receivers.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDatabase } from '../src/db/database.js';
import { createApiKey } from '../src/modules/auth/index.js';
import { addMember, createOrg, createPortfolio, createUser, findUser } from '../src/modules/org/index.js';
import { installDefaultProperties } from '../src/modules/schema/index.js';
import { WS_ATTACKS, type WsAttack, type WsAttackContext } from './abuse-ws-attacks.js';
import { percentile } from './load.js';
import type { Command } from './runner.js';
import { r2 } from './stats.js';

export const SLOW_WEBHOOK = {
  id: 'ws-slow-webhook',
  title: 'ws6. a slow webhook tenant: org A, 4 endpoints answering after 9 s, 100 writes; org B delivers',
} as const;

export const WS_ATTACK_LIST = [
  ...(Object.keys(WS_ATTACKS) as WsAttack[]).map((id) => ({ id, title: WS_ATTACKS[id].title })),
  SLOW_WEBHOOK,
];

/** `--only ws` picks every WebSocket attack. */
export const expandOnly = (only: string[]) =>
  only.flatMap((id) => (id === 'ws' ? WS_ATTACK_LIST.map((a) => a.id) : [id]));

export const isWsAttack = (id: string) => WS_ATTACK_LIST.some((a) => a.id === id);

/** How much later org B's deliveries may arrive under the attack than calm (the goal of issue 37). */
export const WEBHOOK_DELAY_GOAL_MS = 2_000;
const SLOW_ANSWER_MS = 9_000;
const ORG_A_NAME = 'Bench abuse: slow webhook tenant';
const ORG_A_EMAIL = 'bench-abuse-slow-webhooks@bench.example';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface AttackerStats {
  requests: number;
  statuses: Record<string, number>;
}

/**
 * Starts one socket attacker; `ready` resolves once its setup is done (then the bench starts the
 * tenant), `done` with its outcomes.
 */
export function wsFlood(
  cmd: Command,
  attack: WsAttack,
  gatewayUrl: string,
  seconds: number,
  c: WsAttackContext,
): { ready: Promise<void>; done: Promise<AttackerStats> } {
  const child = spawn(
    cmd.command,
    [...cmd.args, attack, `${gatewayUrl.replace(/^http/, 'ws')}/graphql`, String(seconds), JSON.stringify(c)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (/^ready$/m.test(out)) onReady();
  });
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const done = new Promise<AttackerStats>((resolve, reject) => {
    child.on('exit', (code) => {
      onReady();
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last));
      else reject(new Error(`${attack}: exit ${code}: ${err || out}`));
    });
  });
  return { ready, done };
}

export interface DeliveryStats {
  writes: number;
  delivered: number;
  /** Not delivered within the wait: counted in the percentiles at the wait's length. */
  missing: number;
  waitedSec: number;
  delayMs: { p50: number; p99: number; max: number };
}

async function gql(url: string, key: string, query: string, variables: Record<string, unknown> = {}) {
  const r = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  return (await r.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

const CREATE_ENDPOINT = `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`;
const LIST_ENDPOINTS = `query ($org: ID!) { organization(id: $org) { webhookEndpoints { id } } }`;
const DELETE_ENDPOINT = `mutation ($id: ID!) { deleteWebhookEndpoint(input: { id: $id }) { deletedId } }`;

function listen(server: Server): Promise<string> {
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** Org A, its receivers and writes; org B's receiver and writes. One instance per scenario run. */
export class SlowWebhookTenant {
  private slowTimers = new Set<NodeJS.Timeout>();
  private slowReceived = 0;
  /** B's writes by record id: acknowledged at, delivered at. */
  private bWrites = new Map<string, { ack?: number; got?: number }>();
  private bSeq = 0;
  private slow!: Server;
  private fast!: Server;
  private slowUrl = '';
  private fastUrl = '';
  private aKey = '';
  private aOrg = '';
  private aPortfolio = '';

  constructor(
    private readonly gatewayUrl: string,
    private readonly databaseUrl: string,
    private readonly b: { key: string; orgId: string; portfolioId: string; projectIds: string[] },
  ) {}

  async setup(): Promise<void> {
    const admin = await createDatabase({ url: this.databaseUrl });
    try {
      const { db } = admin;
      const org = await db
        .selectFrom('organizations')
        .select('id')
        .where('name', '=', ORG_A_NAME)
        .executeTakeFirst();
      this.aOrg =
        org?.id ??
        (await db.transaction().execute(async (tx) => {
          const o = await createOrg(tx, ORG_A_NAME);
          await installDefaultProperties(tx, o.id);
          return o.id;
        }));
      const pf = await db
        .selectFrom('portfolios')
        .select('id')
        .where('org_id', '=', this.aOrg)
        .executeTakeFirst();
      this.aPortfolio = pf?.id ?? (await createPortfolio(db, this.aOrg, 'Slow webhook writes')).id;
      const user = (await findUser(db, ORG_A_EMAIL)) ?? (await createUser(db, ORG_A_EMAIL, 'Slow Webhooks'));
      await addMember(db, this.aOrg, user.id, 'owner');
      await db.deleteFrom('api_keys').where('label', '=', 'abuse-slow-webhooks').execute();
      this.aKey = (await createApiKey(db, user.id, 'abuse-slow-webhooks')).apiKey;
    } finally {
      await admin.close();
    }
    this.slow = createServer((req, res) => {
      req.resume();
      this.slowReceived++;
      const t = setTimeout(() => {
        this.slowTimers.delete(t);
        res.writeHead(200).end();
      }, SLOW_ANSWER_MS);
      this.slowTimers.add(t);
    });
    this.fast = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const at = performance.now();
        try {
          const id = JSON.parse(Buffer.concat(chunks).toString())?.data?.recordId;
          const w = this.bWrites.get(id);
          if (w && w.got === undefined) w.got = at;
        } catch {}
        res.writeHead(200).end();
      });
    });
    this.slowUrl = await listen(this.slow);
    this.fastUrl = await listen(this.fast);
    // Left over from a run that did not finish: neither org keeps endpoints between runs.
    await this.dropEndpoints();
    const made = await gql(this.gatewayUrl, this.b.key, CREATE_ENDPOINT, {
      input: {
        organizationId: this.b.orgId,
        url: `${this.fastUrl}/b`,
        events: ['project.updated'],
        portfolioIds: [this.b.portfolioId],
      },
    });
    if (!made.data?.createWebhookEndpoint)
      throw new Error(`org B's endpoint was refused: ${JSON.stringify(made.errors)}`);
  }

  /**
   * Org B writes `rate` times a second for `seconds` (one project each, never the same twice), then
   * waits for the deliveries, at most `maxWaitSec`.
   */
  async measureB(seconds: number, rate: number, maxWaitSec: number): Promise<DeliveryStats> {
    const mine: string[] = [];
    const writes: Promise<void>[] = [];
    const started = performance.now();
    for (let i = 0; i < Math.max(1, Math.round(rate * seconds)); i++) {
      const wait = started + (i * 1000) / rate - performance.now();
      if (wait > 0) await sleep(wait);
      const id = this.b.projectIds[this.bSeq++ % this.b.projectIds.length];
      const w: { ack?: number; got?: number } = {};
      this.bWrites.set(id, w);
      mine.push(id);
      writes.push(
        fetch(
          `${this.gatewayUrl}/projects/v1/${id}?orgId=${this.b.orgId}&portfolioId=${this.b.portfolioId}`,
          {
            method: 'PUT',
            headers: { 'content-type': 'application/json', 'x-api-key': this.b.key },
            body: JSON.stringify({ properties: { capacity_mw: { number: 10 + (this.bSeq % 200) } } }),
          },
        ).then(async (r) => {
          await r.arrayBuffer();
          if (r.status === 200) w.ack = performance.now();
          else this.bWrites.delete(id);
        }),
      );
    }
    await Promise.all(writes);
    const acked = mine.filter((id) => this.bWrites.get(id)?.ack !== undefined);
    const waitStart = performance.now();
    const deadline = waitStart + maxWaitSec * 1000;
    while (acked.some((id) => this.bWrites.get(id)!.got === undefined) && performance.now() < deadline)
      await sleep(50);
    const waited = performance.now();
    const delays = acked.map((id) => {
      const w = this.bWrites.get(id)!;
      // A delivery can beat the write's response to the client: no delay, then.
      return w.got === undefined ? waited - w.ack! : Math.max(0, w.got - w.ack!);
    });
    const missing = acked.filter((id) => this.bWrites.get(id)!.got === undefined).length;
    const sorted = Float64Array.from(delays).sort();
    return {
      writes: acked.length,
      delivered: acked.length - missing,
      missing,
      waitedSec: r2((waited - waitStart) / 1000),
      delayMs: {
        p50: r2(percentile(sorted, 50)),
        p99: r2(percentile(sorted, 99)),
        max: r2(sorted[sorted.length - 1] ?? 0),
      },
    };
  }

  /** Org A: registers `endpoints` slow endpoints, then makes `writes` writes, 4 at a time, within `seconds`. */
  async attack(seconds: number, endpoints: number, writes: number): Promise<AttackerStats> {
    const statuses: Record<string, number> = {};
    const add = (k: string) => (statuses[k] = (statuses[k] ?? 0) + 1);
    let requests = 0;
    for (let i = 0; i < endpoints; i++) {
      requests++;
      const r = await gql(this.gatewayUrl, this.aKey, CREATE_ENDPOINT, {
        input: { organizationId: this.aOrg, url: `${this.slowUrl}/a${i}`, events: ['project.created'] },
      });
      add(r.data?.createWebhookEndpoint ? 'endpoint registered' : `endpoint ${refusedOr(r.errors)}`);
    }
    const end = performance.now() + seconds * 1000;
    let n = 0;
    const lane = async () => {
      while (n < writes && performance.now() < end) {
        const i = n++;
        requests++;
        const r = await fetch(
          `${this.gatewayUrl}/projects/v1?orgId=${this.aOrg}&portfolioId=${this.aPortfolio}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': this.aKey },
            body: JSON.stringify({ properties: { name: { text: `Slow webhook write ${i}` } } }),
          },
        );
        await r.arrayBuffer();
        add(r.status === 429 || r.status === 503 ? `write refused (${r.status})` : `write ${r.status}`);
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    // A's part lasts the window, as a flood does: the deliveries it queued go on after it.
    const left = end - performance.now();
    if (left > 0) await sleep(left);
    statuses['slow deliveries received'] = this.slowReceived;
    return { requests, statuses };
  }

  private async dropEndpoints() {
    for (const [org, key] of [
      [this.aOrg, this.aKey],
      [this.b.orgId, this.b.key],
    ]) {
      const list = await gql(this.gatewayUrl, key, LIST_ENDPOINTS, { org });
      for (const e of list.data?.organization?.webhookEndpoints ?? [])
        await gql(this.gatewayUrl, key, DELETE_ENDPOINT, { id: e.id });
    }
  }

  /** Deletes both orgs' endpoints (their pending deliveries go with them) and closes the receivers. */
  async teardown(): Promise<void> {
    await this.dropEndpoints().catch(() => {});
    for (const t of this.slowTimers) clearTimeout(t);
    for (const s of [this.slow, this.fast]) {
      s?.closeAllConnections();
      await new Promise((r) => (s ? s.close(r) : r(undefined)));
    }
  }
}

function refusedOr(errors: { extensions?: { code?: string } }[] | undefined) {
  const code = errors?.[0]?.extensions?.code ?? 'error';
  return code === 'RATE_LIMITED' || code === 'OVERLOADED' ? `refused (${code})` : code;
}
