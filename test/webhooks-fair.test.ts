import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/main.js';
import type { Database } from '../src/db/database.js';
import {
  DEFAULT_WEBHOOKS,
  WebhookDispatcher,
  type WebhookSettings,
} from '../src/modules/webhooks/dispatcher.js';
import * as repo from '../src/modules/webhooks/repository.js';
import type { DemoOutput } from '../src/seed/demo.js';
import { backend, openSeededDatabase } from './helpers/database.js';
import { type Client, client } from './helpers/http.js';
import { type Receiver, startReceiver, until } from './helpers/receiver.js';

/**
 * Fairness across tenants: one org's slow endpoints and write burst must not hold back another
 * org's deliveries, and the caps that bound what one org can take (sends per endpoint, sends per
 * org, endpoints per org). Real database, real HTTP receivers on 127.0.0.1.
 */

const quiet = { info: () => {}, warn: () => {} };
/** The defaults under test, with loopback receivers allowed and no retry during a test. */
const SETTINGS: WebhookSettings = {
  ...DEFAULT_WEBHOOKS,
  allowPrivateTargets: true,
  retryBaseMs: 60_000,
  retryMaxMs: 60_000,
};

let database: Database;
let demo: DemoOutput;
let app: FastifyInstance;
let alice: Client;
let nora: Client;
let a: { orgId: string; portfolioId: string; projectId: string };
let b: { orgId: string; portfolioId: string; projectId: string };

beforeAll(async () => {
  ({ database, demo } = await openSeededDatabase());
  app = await buildApp({ database, webhooks: { allowPrivateTargets: true } });
  alice = client(app, demo.users.alice.apiKey);
  nora = client(app, demo.users.nora.apiKey);
  const first = async (c: Client, orgId: string, portfolioId: string) => ({
    orgId,
    portfolioId,
    projectId: (await c.get('/projects/v1', { orgId, portfolioId, limit: 1 })).body.items[0].id as string,
  });
  a = await first(alice, demo.orgs.A.id, demo.orgs.A.portfolios.A1);
  b = await first(nora, demo.orgs.B.id, demo.orgs.B.portfolios.B1);
});
afterAll(async () => {
  delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  await app?.close();
  await database?.close();
});

const CREATE = `mutation ($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { endpoint { id } } }`;

const register = (c: Client, orgId: string, url: string) =>
  c.gql(CREATE, { input: { organizationId: orgId, url, events: ['project.updated'] } });

async function endpointFor(c: Client, orgId: string, url: string): Promise<string> {
  const r = await register(c, orgId, url);
  expect(r.body.errors).toBeUndefined();
  return r.body.data.createWebhookEndpoint.endpoint.id;
}

let capacity = 100;
const write = (c: Client, at: typeof a) =>
  c.put(
    `/projects/v1/${at.projectId}`,
    { properties: { capacity_mw: { number: ++capacity } } },
    { orgId: at.orgId, portfolioId: at.portfolioId },
  );

async function clearEndpoints() {
  for (const orgId of [demo.orgs.A.id, demo.orgs.B.id])
    for (const e of await repo.listEndpoints(database.db, orgId))
      await repo.deleteEndpoint(database.db, orgId, e.id);
}

async function receivers(n: number, answer: Parameters<typeof startReceiver>[0]): Promise<Receiver[]> {
  return Promise.all(Array.from({ length: n }, () => startReceiver(answer)));
}

describe(`webhooks are fair across organizations (${backend})`, () => {
  // Scaled from 9 s answers and a 2 s bound: org A's answers take 3 s (within the 5 s timeout), and
  // it has two endpoints and 92 writes behind them, so it has far more due than the process's 16
  // slots; each of org B's deliveries must still arrive within BOUND_MS of its write.
  const SLOW_MS = 3_000;
  const BOUND_MS = 2_000;
  const A_WRITES = 92;

  test("a tenant with slow endpoints and a write burst does not hold back another tenant's deliveries", async () => {
    await clearEndpoints();
    const slow = await receivers(2, () => ({ status: 200, afterMs: SLOW_MS }));
    const [fast] = await receivers(1, () => 200);
    const d = new WebhookDispatcher(database.db, { ...SETTINGS, timeoutMs: 5_000, pollMs: 50 }, quiet);
    try {
      const aEndpoints = [
        await endpointFor(alice, a.orgId, slow[0].url),
        await endpointFor(alice, a.orgId, slow[1].url),
      ];
      await endpointFor(nora, b.orgId, fast.url);
      await d.start();
      for (let i = 0; i < A_WRITES; i++) expect((await write(alice, a)).status).toBe(200);
      // A's sends are out and waiting on its slow answers.
      await until(() => slow[0].open.now + slow[1].open.now > 0, 30_000, "org A's first sends");

      const waited: number[] = [];
      for (let i = 1; i <= 3; i++) {
        expect((await write(nora, b)).status).toBe(200);
        const t0 = Date.now();
        // Waits past the bound so that a failure reports how long it really took.
        await until(() => fast.acked().length >= i, 4 * SLOW_MS, `org B's delivery ${i}`).catch(() => {});
        waited.push(Date.now() - t0);
      }
      expect(fast.acked()).toHaveLength(3);
      for (const ms of waited) expect(ms, `org B waited ${waited.join(', ')} ms`).toBeLessThan(BOUND_MS);
      // A's sends were held to its share the whole time.
      expect(slow[0].open.max + slow[1].open.max).toBeLessThanOrEqual(SETTINGS.perOrg);
      expect(Math.max(slow[0].open.max, slow[1].open.max)).toBeLessThanOrEqual(SETTINGS.perEndpoint);

      await d.stop();
      // Nothing of A's is lost by waiting its turn: every write is one delivery per endpoint, sent or pending.
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
        where org_id = ${a.orgId}`.execute(database.db);
      expect(rows[0].n).toBe(A_WRITES * aEndpoints.length);
      const delivered = (
        await Promise.all(aEndpoints.map((id) => repo.deliveriesPage(database.db, a.orgId, id, 500)))
      )
        .flat()
        .filter((x) => x.status === 'delivered').length;
      expect(delivered + (await repo.pendingCount(database.db, a.orgId))).toBe(A_WRITES * aEndpoints.length);
    } finally {
      await d.stop();
      for (const r of [...slow, fast]) await r.close();
    }
  }, 60_000);

  test('each endpoint has at most perEndpoint sends in flight, and each org at most perOrg', async () => {
    await clearEndpoints();
    let total = 0;
    let maxTotal = 0;
    const rxs: Receiver[] = await receivers(3, () => {
      total = rxs.reduce((n, r) => n + r.open.now, 0);
      maxTotal = Math.max(maxTotal, total);
      return { status: 200, afterMs: 150 };
    });
    try {
      for (const r of rxs) await endpointFor(alice, a.orgId, r.url);
      for (let i = 0; i < 6; i++) expect((await write(alice, a)).status).toBe(200);
      const d = new WebhookDispatcher(
        database.db,
        { ...SETTINGS, concurrency: 16, perOrg: 4, perEndpoint: 2 },
        quiet,
      );
      const end = Date.now() + 60_000;
      while (rxs.some((r) => r.acked().length < 6)) {
        if (Date.now() > end) throw new Error('timed out waiting for deliveries');
        await d.drain();
      }
      for (const r of rxs) {
        expect(r.acked()).toHaveLength(6);
        expect(r.open.max).toBe(2);
      }
      expect(maxTotal).toBe(4);
    } finally {
      for (const r of rxs) await r.close();
    }
  });

  test('an org has at most maxEndpointsPerOrg endpoints, whether registered by GraphQL or the command line', async () => {
    await clearEndpoints();
    const max = DEFAULT_WEBHOOKS.maxEndpointsPerOrg;
    const url = 'http://127.0.0.1:9/hook';
    for (let i = 0; i < max; i++) await endpointFor(alice, a.orgId, url);

    const refused = await register(alice, a.orgId, url);
    const err = refused.body.errors?.[0];
    expect(err?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(err.message).toContain(`already has ${max} webhook endpoints`);
    expect(err.message).toMatch(/Remove one first/);
    expect(err.message).toMatch(/WEBHOOK_MAX_ENDPOINTS_PER_ORG/);
    expect(await repo.listEndpoints(database.db, a.orgId)).toHaveLength(max);

    // The command line goes through the same check.
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
    const out: string[] = [];
    const errs: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => errs.push(s) };
    const code = await runCli(
      ['webhook', 'add', '--org', a.orgId, '--url', url, '--event', 'project.updated'],
      io,
      database,
    );
    expect(code).toBe(2);
    expect(errs.join('\n')).toMatch(new RegExp(`already has ${max} webhook endpoints`));
    expect(await repo.listEndpoints(database.db, a.orgId)).toHaveLength(max);

    // Another org is not affected, and removing one makes room again.
    await endpointFor(nora, b.orgId, url);
    const [oldest] = await repo.listEndpoints(database.db, a.orgId);
    await repo.deleteEndpoint(database.db, a.orgId, oldest.id);
    await endpointFor(alice, a.orgId, url);
  });

  test('WEBHOOK_MAX_ENDPOINTS_PER_ORG reaches both ways of registering', async () => {
    await clearEndpoints();
    const small = await buildApp({
      database,
      webhooks: { allowPrivateTargets: true, maxEndpointsPerOrg: 2 },
    });
    try {
      const url = 'http://127.0.0.1:9/hook';
      const owner = client(small, demo.users.alice.apiKey);
      for (let i = 0; i < 2; i++) await endpointFor(owner, a.orgId, url);
      const refused = await register(owner, a.orgId, url);
      expect(refused.body.errors?.[0].message).toContain('already has 2 webhook endpoints');
      await repo.deleteEndpoint(database.db, a.orgId, (await repo.listEndpoints(database.db, a.orgId))[0].id);
      process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
      process.env.WEBHOOK_MAX_ENDPOINTS_PER_ORG = '1';
      const errs: string[] = [];
      const code = await runCli(
        ['webhook', 'add', '--org', a.orgId, '--url', url, '--event', 'project.updated'],
        { out: () => {}, err: (s: string) => errs.push(s) },
        database,
      );
      expect(code).toBe(2);
      expect(errs.join('\n')).toMatch(/already has 1 webhook endpoints/);
    } finally {
      delete process.env.WEBHOOK_MAX_ENDPOINTS_PER_ORG;
      await small.close();
    }
  });

  test('registrations at once cannot both take the last place', async () => {
    await clearEndpoints();
    const input = {
      orgId: b.orgId,
      url: 'http://127.0.0.1:9/hook',
      events: ['project.updated'],
      portfolioIds: null,
      secret: 'whsec_test',
      createdBy: null,
    };
    await repo.insertEndpoint(database.db, input, 3);
    const tries = await Promise.allSettled(
      Array.from({ length: 6 }, () => repo.insertEndpoint(database.db, input, 3)),
    );
    expect(tries.filter((t) => t.status === 'fulfilled')).toHaveLength(2);
    for (const t of tries)
      if (t.status === 'rejected') expect((t.reason as { code?: string }).code).toBe('VALIDATION_FAILED');
    expect(await repo.listEndpoints(database.db, b.orgId)).toHaveLength(3);
  });
});
