import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { type Client, createClient } from 'graphql-ws';
import WebSocket, { WebSocketServer } from 'ws';
import { type AppOptions, buildApp } from '../src/app.js';
import { bumpOrgVersion } from '../src/db/org-cache.js';
import { boundSendQueue } from '../src/graphql/websocket.js';
import { Admission } from '../src/http/admission.js';
import { MemoryRateLimitStore } from '../src/http/rate-limit-store.js';
import { hashApiKey } from '../src/modules/auth/keys.js';
import { createApiKey, revokeApiKey } from '../src/modules/auth/repository.js';
import { ChangeHub, CLOSE, DEFAULT_HUB_LIMITS } from '../src/modules/changes/hub.js';
import { addMember, createUser, grantGuest } from '../src/modules/org/repository.js';
import { Metrics } from '../src/observability/metrics.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { logSink } from './helpers/logs.js';
import { freshPortfolio } from './records-helpers.js';

/**
 * Issue 37: an operation that arrives on a WebSocket passes what an HTTP request passes. Each test
 * here is one of the holes a black-box attack found on the socket.
 */

type Result = { data?: any; errors?: any[] };

/** Runs `fn` against an app listening on a free port, closed afterwards whatever happens. */
async function served(
  env: TestEnv,
  opts: Partial<AppOptions>,
  fn: (s: { app: FastifyInstance; url: string }) => Promise<void>,
): Promise<void> {
  const app = await buildApp({ database: env.database, ...opts });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    await fn({ app, url: `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/graphql` });
  } finally {
    await app.close();
  }
}

function connect(url: string, apiKey: string) {
  const socket: { client: Client; closed?: { code: number; reason: string } } = {} as never;
  socket.client = createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: { apiKey },
    retryAttempts: 0,
    // One socket for the whole test: a lazy client would close it between operations, and open a
    // new one (a fresh connection_init) for the next.
    lazy: false,
    // The closes these tests cause are what they assert; the client need not print them.
    onNonLazyError: () => {},
    on: { closed: (e) => (socket.closed = e as { code: number; reason: string }) },
  });
  return socket;
}

/** One operation's outcome: its last `next` payload, or the errors it ended with. */
function run(client: Client, query: string, variables: Record<string, unknown> = {}, extensions?: object) {
  return new Promise<Result>((resolve) => {
    let last: Result = {};
    client.subscribe({ query, variables, ...(extensions ? { extensions } : {}) } as never, {
      next: (v) => (last = v as Result),
      error: (e) => resolve({ errors: Array.isArray(e) ? e : [{ closed: (e as { code?: number }).code }] }),
      complete: () => resolve(last),
    });
  });
}

async function until(what: () => boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

/** A member of org A of its own, with a key: tests change its access without touching the demo users. */
async function member(env: TestEnv, role: 'member' | 'viewer' | 'owner' = 'member') {
  const u = await createUser(env.database.db, `ws-${randomBytes(4).toString('hex')}@example.com`, 'WS');
  await addMember(env.database.db, env.demo.orgs.A.id, u.id, role);
  const key = await createApiKey(env.database.db, u.id);
  return key;
}

const CREATE = `mutation ($input: CreateRecordInput!) { createProject(input: $input) { project { id } userErrors { message } } }`;
const UPDATE = `mutation ($input: UpdateRecordInput!) { updateProject(input: $input) { project { id } userErrors { message } } }`;
const ORGS = '{ viewer { organizations { id } } }';
const code = (r: Result) => r.errors?.[0]?.extensions?.code;

async function countProjects(env: TestEnv, portfolioId: string) {
  const r = await env.database.db
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('portfolio_id', '=', portfolioId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('every socket operation passes the checks an HTTP request passes', () => {
  test('a key revoked while its socket is open writes nothing more: the socket closes with 4403', async ({
    env,
  }) => {
    await served(env, {}, async ({ url }) => {
      const s = await freshPortfolio(env);
      const m = await member(env);
      const sock = connect(url, m.apiKey);
      const input = { orgId: s.orgId, portfolioId: s.portfolioId, properties: { name: { text: 'x' } } };
      expect((await run(sock.client, CREATE, { input })).data.createProject.project.id).toMatch(/^prj_/);
      await revokeApiKey(env.database.db, m.id);
      const after = await run(sock.client, CREATE, { input });
      expect(after.data).toBeUndefined();
      await until(() => sock.closed !== undefined);
      expect(sock.closed!.code).toBe(CLOSE.KEY_REVOKED);
      expect(await countProjects(env, s.portfolioId)).toBe(1);
    });
  });

  test('a role taken away applies to the next operation on the open socket (FORBIDDEN, as HTTP 403)', async ({
    env,
  }) => {
    await served(env, {}, async ({ app, url }) => {
      const s = await freshPortfolio(env);
      const m = await member(env);
      const sock = connect(url, m.apiKey);
      const input = { orgId: s.orgId, portfolioId: s.portfolioId, properties: { name: { text: 'x' } } };
      const id = (await run(sock.client, CREATE, { input })).data.createProject.project.id;
      await addMember(env.database.db, env.demo.orgs.A.id, m.userId, 'viewer');
      const r = await run(sock.client, UPDATE, { input: { id, properties: { name: { text: 'changed' } } } });
      expect(code(r)).toBe('FORBIDDEN');
      const http = await app.inject({
        method: 'PUT',
        url: `/projects/v1/${id}?orgId=${s.orgId}&portfolioId=${s.portfolioId}`,
        headers: { 'x-api-key': m.apiKey, 'content-type': 'application/json' },
        payload: { properties: { name: { text: 'changed' } } },
      });
      expect(http.statusCode).toBe(403);
      sock.client.dispose();
    });
  });

  test('trusted documents: a non-admin key runs only manifest documents on a socket too', async ({ env }) => {
    const hash = 'a'.repeat(64);
    await served(env, { trustedDocuments: new Map([[hash, ORGS]]) }, async ({ url }) => {
      const s = await freshPortfolio(env);
      const m = await member(env);
      const sock = connect(url, m.apiKey);
      expect(code(await run(sock.client, ORGS))).toBe('PERSISTED_DOCUMENT_REQUIRED');
      const input = { orgId: s.orgId, portfolioId: s.portfolioId, properties: { name: { text: 'x' } } };
      expect(code(await run(sock.client, CREATE, { input }))).toBe('PERSISTED_DOCUMENT_REQUIRED');
      expect(await countProjects(env, s.portfolioId)).toBe(0);
      const byHash = await run(sock.client, '', {}, { persistedQuery: { version: 1, sha256Hash: hash } });
      expect(byHash.data.viewer.organizations.length).toBeGreaterThan(0);
      const unknown = await run(
        sock.client,
        '',
        {},
        { persistedQuery: { version: 1, sha256Hash: 'b'.repeat(64) } },
      );
      expect(code(unknown)).toBe('PERSISTED_DOCUMENT_NOT_FOUND');
      sock.client.dispose();
    });
  });

  test("socket operations take from the key's rate-limit budget, shared with its HTTP requests; a socket out of budget is not read until it refills", async ({
    env,
  }) => {
    const store = new MemoryRateLimitStore();
    await served(
      env,
      {
        rateLimit: { store, config: { perSecond: 0.25, burst: 5 } },
      },
      async ({ app, url }) => {
        const m = await member(env);
        // Two HTTP requests: the first (the key's first in this process) from the address budget, the second from the key's.
        for (let i = 0; i < 2; i++)
          await app.inject({
            method: 'POST',
            url: '/graphql',
            headers: { 'x-api-key': m.apiKey },
            payload: { query: ORGS },
          });
        const sock = connect(url, m.apiKey);
        const results = [];
        for (let i = 0; i < 5; i++) results.push(await run(sock.client, ORGS));
        expect(results.filter((r) => r.data)).toHaveLength(4);
        expect(code(results[4])).toBe('RATE_LIMITED');
        expect(results[4].errors![0].message).toMatch(/over HTTP and WebSocket together. Retry after 4 s/);
        // The next message waits in the network until the budget has refilled, then is answered.
        const sent = Date.now();
        expect((await run(sock.client, ORGS)).data).toBeDefined();
        expect(Date.now() - sent).toBeGreaterThan(3_000);
        sock.client.dispose();
      },
    );
  });

  test('a socket runs at most inFlightPerSocket queries at once; the rest are refused with RATE_LIMITED', async ({
    env,
  }) => {
    await served(env, { subscriptions: { inFlightPerSocket: 1 } }, async ({ url }) => {
      const m = await member(env);
      const sock = connect(url, m.apiKey);
      await run(sock.client, ORGS); // connected
      const results = await Promise.all(Array.from({ length: 8 }, () => run(sock.client, ORGS)));
      const refused = results.filter((r) => code(r) === 'RATE_LIMITED');
      expect(results.filter((r) => r.data).length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0].errors![0].message).toMatch(/most one socket may have/);
      // Nothing leaks: once answered, the socket runs one again.
      expect((await run(sock.client, ORGS)).data).toBeDefined();
      sock.client.dispose();
    });
  });

  test('a heavy query on a socket waits for the same admission slot as HTTP (OVERLOADED when it cannot get one)', async ({
    env,
  }) => {
    const heavy = new Admission({ slots: 1, maxWaitMs: 100 }, 'heavy');
    await served(env, { admission: heavy, graphqlLimits: undefined }, async ({ url }) => {
      const m = await member(env);
      const hold = await heavy.acquire();
      const sock = connect(url, m.apiKey);
      // 5,000 projects with 5 contacts each: a cost over the heavy tier, under the limit.
      const q = `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
        projects(first: 5000) { nodes { id contacts(first: 5) { nodes { id } } } } } } }`;
      const s = await freshPortfolio(env);
      const r = await run(sock.client, q, { o: s.orgId, p: s.portfolioId });
      expect(code(r)).toBe('OVERLOADED');
      hold();
      sock.client.dispose();
    });
  });

  test('each socket operation writes an access-log line and request metrics with transport ws', async ({
    env,
  }) => {
    const logs = logSink('info');
    const metrics = new Metrics();
    await served(env, { logger: logs.logger, metrics }, async ({ url }) => {
      const m = await member(env);
      const sock = connect(url, m.apiKey);
      await run(sock.client, `query Orgs ${ORGS}`);
      expect(code(await run(sock.client, '{ nope }'))).toBe('GRAPHQL_VALIDATION_FAILED');
      const lines = logs.lines.filter((l) => l.transport === 'ws');
      expect(lines.map((l) => [l.operation, l.type, l.status])).toEqual([
        ['Orgs', 'query', 200],
        ['(none)', undefined, 400],
      ]);
      expect(lines[0].sqlStatements).toBeGreaterThan(0);
      expect(JSON.stringify(logs.lines)).not.toContain(m.apiKey);
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/sdg_http_requests_total\{[^}]*transport="ws"[^}]*operation="Orgs"/);
      sock.client.dispose();
    });
  });
});

describe('subscriptions', () => {
  const UPDATED = `subscription ($id: ID!) { recordUpdated(id: $id) { record { ... on Project { properties } } } }`;

  test("each event's record is read as it is when the event is sent, not as the first event read it", async ({
    env,
  }) => {
    await served(env, {}, async ({ app, url }) => {
      const s = await freshPortfolio(env);
      const created = await env.as.alice.post('/projects/v1', { properties: { name: { text: 'v0' } } }, s);
      const sock = connect(url, env.demo.users.alice.apiKey);
      const events: any[] = [];
      sock.client.subscribe(
        { query: UPDATED, variables: { id: created.body.id } },
        {
          next: (v) => events.push(v.data),
          error: () => {},
          complete: () => {},
        },
      );
      await until(() => app.changeHub.size === 1);
      for (const v of ['v1', 'v2', 'v3']) {
        await env.as.alice.put(`/projects/v1/${created.body.id}`, { properties: { name: { text: v } } }, s);
        await until(() => events.length >= Number(v.slice(1)));
      }
      expect(events.map((e) => e.recordUpdated.record.properties.name.text)).toEqual(['v1', 'v2', 'v3']);
      sock.client.dispose();
    });
  });

  test('an organization holds at most perOrg subscriptions, and their summed cost at most costPerOrg', async ({
    env,
  }) => {
    await served(env, { subscriptions: { perOrg: 2, costPerOrg: 1_000 } }, async ({ app, url }) => {
      const s = await freshPortfolio(env);
      const created = await env.as.alice.post('/projects/v1', { properties: { name: { text: 'x' } } }, s);
      const id = created.body.id;
      const a = connect(url, env.demo.users.alice.apiKey);
      const b = connect(url, env.demo.users.bob.apiKey);
      const errors: any[] = [];
      const sub = (c: Client, query: string) =>
        c.subscribe(
          { query, variables: { id } },
          // Refused when it subscribes: one `next` carrying the errors, then `complete`.
          {
            next: (v) => v.errors && errors.push(v.errors),
            error: (e) => errors.push(e),
            complete: () => {},
          },
        );
      // Nested pages under `record`: 1 + 100 + 100 × 10 nodes per event.
      const NESTED = `subscription ($id: ID!) { recordUpdated(id: $id) { record { ... on Project {
        contacts(first: 100) { nodes { id parcels(first: 10) { nodes { id } } } } } } } }`;
      sub(a.client, NESTED);
      await until(() => errors.length === 1).catch((e) => {
        throw new Error(`${e.message}: ${JSON.stringify(errors)}`);
      });
      expect(errors[0][0].extensions.code).toBe('RATE_LIMITED');
      expect(errors[0][0].message).toMatch(/at most 1,000 nodes per event/);
      sub(a.client, UPDATED);
      sub(b.client, UPDATED); // another key of the same organization
      await until(() => app.changeHub.size === 2).catch((e) => {
        throw new Error(`${e.message}: ${JSON.stringify(errors)} ${app.changeHub.size}`);
      });
      sub(b.client, UPDATED);
      await until(() => errors.length === 2);
      expect(errors[1][0].message).toMatch(/This organization has 2 live subscriptions/);
      a.client.dispose();
      b.client.dispose();
    });
  });

  test('a key revoked while it holds a quiet subscription closes its socket within recheckMs, no event needed', async ({
    env,
  }) => {
    await served(env, { subscriptions: { recheckMs: 200 } }, async ({ app, url }) => {
      const s = await freshPortfolio(env);
      const m = await member(env);
      const sock = connect(url, m.apiKey);
      sock.client.subscribe(
        {
          query: `subscription ($pf: ID!) { recordChanged(portfolioId: $pf) { id } }`,
          variables: { pf: s.portfolioId },
        },
        { next: () => {}, error: () => {}, complete: () => {} },
      );
      await until(() => app.changeHub.size === 1);
      await revokeApiKey(env.database.db, m.id);
      const revoked = Date.now();
      await until(() => sock.closed !== undefined, 5_000);
      expect(sock.closed!.code).toBe(CLOSE.KEY_REVOKED);
      expect(Date.now() - revoked).toBeLessThan(2_000);
      await until(() => app.changeHub.size === 0);
    });
  });

  test("a guest's lost grant ends its quiet subscription with NOT_FOUND within recheckMs", async ({
    env,
  }) => {
    await served(env, { subscriptions: { recheckMs: 200 } }, async ({ app, url }) => {
      const s = await freshPortfolio(env);
      const u = await createUser(env.database.db, `guest-${randomBytes(4).toString('hex')}@example.com`, 'G');
      await grantGuest(env.database.db, s.orgId, s.portfolioId, u.id);
      const key = await createApiKey(env.database.db, u.id);
      const sock = connect(url, key.apiKey);
      const errors: any[] = [];
      sock.client.subscribe(
        {
          query: `subscription ($pf: ID!) { recordChanged(portfolioId: $pf) { id } }`,
          variables: { pf: s.portfolioId },
        },
        { next: () => {}, error: (e) => errors.push(e), complete: () => {} },
      );
      await until(() => app.changeHub.size === 1);
      await env.database.db.deleteFrom('portfolio_guests').where('user_id', '=', u.id).execute();
      await bumpOrgVersion(env.database.db, s.orgId);
      await until(() => errors.length === 1, 5_000);
      expect(errors[0][0].extensions.code).toBe('NOT_FOUND');
      sock.client.dispose();
    });
  });
});

describe('fan-out', () => {
  test("an organization's events are executed eventsPerOrg at a time; another organization's do not wait", async ({
    env,
  }) => {
    const hub = new ChangeHub(
      env.database.db,
      env.database.listen,
      { ...DEFAULT_HUB_LIMITS, eventsPerOrg: 1 },
      50,
    );
    try {
      const a = await freshPortfolio(env, 'A');
      const b = await freshPortfolio(env, 'B');
      const conn = (user: 'alice' | 'nora') => ({
        keyHash: hashApiKey(env.demo.users[user].apiKey),
        queued: 0,
        close: () => {},
      });
      const first = await hub.subscribe(conn('alice'), a.orgId, a.portfolioId, () => true);
      const second = await hub.subscribe(conn('alice'), a.orgId, a.portfolioId, () => true);
      const other = await hub.subscribe(conn('nora'), b.orgId, b.portfolioId, () => true);
      await env.as.alice.post('/contacts/v1', { properties: { first_name: { text: 'a' } } }, a);
      await env.as.nora.post('/contacts/v1', { properties: { first_name: { text: 'b' } } }, b);
      // What must arrive may take long on a busy machine (Citus under a full suite took more than
      // 1.5 s), and waiting longer costs a passing run nothing; what must not arrive gets 500 ms.
      const settled = <T>(p: Promise<T>, ms = 15_000) =>
        Promise.race([p.then(() => true), sleep(ms).then(() => false)]);
      // The first subscriber holds org A's one turn while its event is executed (until it asks for the next).
      expect(await settled(first.next())).toBe(true);
      const waiting = second.next();
      expect(await settled(waiting, 500)).toBe(false);
      expect(await settled(other.next())).toBe(true);
      // Asking for its next event gives the turn back: the second subscriber's event goes.
      void first.next();
      expect(await settled(waiting)).toBe(true);
      await Promise.all([first.return!(), second.return!(), other.return!()]);
    } finally {
      await hub.stop();
    }
  });
});

describe('a client that does not read', () => {
  test('is closed before its queued bytes pass the bound, and nothing more is queued for it', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => wss.once('listening', resolve));
    const max = 1024 * 1024;
    try {
      const port = (wss.address() as AddressInfo).port;
      const server = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
      const client = new WebSocket(`ws://127.0.0.1:${port}`);
      await new Promise((resolve) => client.once('open', resolve));
      // The client stops reading: the kernel's buffers fill, then the server's own queue.
      (client as unknown as { _socket: { pause(): void } })._socket.pause();
      const ws = await server;
      // The close the server sends (the client, not reading, never sees its frame).
      const closes: { code?: number; reason?: string }[] = [];
      const close = ws.close.bind(ws);
      ws.close = ((code?: number, reason?: string) => {
        closes.push({ code, reason });
        close(code, reason);
      }) as typeof ws.close;
      boundSendQueue(ws, max);
      const chunk = 'x'.repeat(256 * 1024);
      let highest = 0;
      let sent = 0;
      let acknowledged = 0;
      for (; sent < 2_000 && ws.readyState === WebSocket.OPEN; sent++) {
        ws.send(chunk, () => acknowledged++);
        highest = Math.max(highest, ws.bufferedAmount);
        await sleep(1);
      }
      expect(ws.readyState).not.toBe(WebSocket.OPEN);
      expect(closes).toEqual([{ code: 4420, reason: `Slow consumer: more than ${max} bytes queued` }]);
      // The client never takes the close frame either: the socket is ended, and its buffer freed.
      await until(() => ws.readyState === WebSocket.CLOSED, 3_000);
      expect(highest).toBeLessThanOrEqual(max);
      expect(sent).toBeLessThan(2_000);
      // Every send's callback is called, refused or not: graphql-ws waits for it.
      await until(() => acknowledged === sent, 5_000);
      client.terminate();
    } finally {
      wss.close();
    }
  });
});
