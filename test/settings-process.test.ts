import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { onCitus } from './helpers/citus.js';
import { NESTED_QUERY } from './helpers/queries.js';
import { call, type ServerStorage, serverStorage } from './helpers/server-process.js';

/**
 * Settings read from the environment reach the running server (src/server.ts), not only
 * loadConfig: the process is started with them, as an operator would.
 */
/** A first start on Citus (no snapshot to copy) migrates and seeds: many distributed DDL round trips. */
const timeout = onCitus ? 600_000 : 120_000;
let storage: ServerStorage;
beforeAll(async () => {
  storage = await serverStorage();
});
afterAll(async () => storage?.cleanup());

/** The demo keys, as the first start printed them (without a snapshot, later starts print none). */
let keys: Record<string, string> = {};
async function start(extra: Record<string, string>) {
  const server = await storage.start(extra);
  keys = { ...keys, ...server.keys };
  return { ...server, keys };
}

const firstPortfolio = async (base: string, key: string) => {
  const r = await call(base, key, 'POST', '/graphql', {
    query: '{ organizations { id portfolios { id } } }',
  });
  const org = r.body.data.organizations[0];
  return { orgId: org.id as string, portfolioId: org.portfolios[0].id as string };
};

test('SUBSCRIPTIONS_PER_KEY bounds the live subscriptions of one key', { timeout }, async () => {
  const server = await start({ SUBSCRIPTIONS_PER_KEY: '1' });
  const clients: ReturnType<typeof createClient>[] = [];
  try {
    const key = server.keys.vera;
    const { portfolioId } = await firstPortfolio(server.url, key);
    const errors: { extensions?: { code?: string } }[][] = [[], []];
    for (const i of [0, 1]) {
      const client = createClient({
        url: `${server.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { apiKey: key },
        retryAttempts: 0,
      });
      clients.push(client);
      client.subscribe(
        {
          query: 'subscription ($pf: ID!) { recordChanged(portfolioId: $pf) { id } }',
          variables: { pf: portfolioId },
        },
        {
          next: (v) => v.errors && errors[i].push(...(v.errors as never[])),
          error: (e) => errors[i].push(e as never),
          complete: () => {},
        },
      );
      // One after the other, so the first holds its place when the second asks.
      await sleep(300);
    }
    const end = Date.now() + 15_000;
    while (!errors[1].length && Date.now() < end) await sleep(20);
    expect(errors[0]).toEqual([]);
    expect(errors[1][0]?.extensions?.code).toBe('RATE_LIMITED');
  } finally {
    for (const c of clients) await c.dispose();
    server.child.kill('SIGTERM');
    await server.exited;
  }
});

test('GRAPHQL_PLANS=0 answers the planned shape with the executor; by default the plan answers', {
  timeout,
}, async () => {
  const planned = (out: string) => /"planned":true/.test(out);
  for (const [setting, expected] of [
    ['0', false],
    [undefined, true],
  ] as const) {
    const server = await start({ LOG_LEVEL: 'info', ...(setting ? { GRAPHQL_PLANS: setting } : {}) });
    try {
      const key = server.keys.alice;
      const scope = await firstPortfolio(server.url, key);
      const r = await call(server.url, key, 'POST', '/graphql', {
        query: NESTED_QUERY,
        variables: { ...scope, projects: 3, contacts: 2, parcels: 2 },
      });
      expect(r.status).toBe(200);
      expect(r.body.data.organization.portfolio.projects.nodes.length).toBeGreaterThan(0);
      await sleep(100); // the access line is written after the response
      expect(planned(server.output())).toBe(expected);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }
});

test('a later start of the demo database says how to get new demo keys', { timeout }, async () => {
  const hint = /npx sdg seed --demo --keys/;
  let server = await start({});
  try {
    // Without a snapshot to copy (Citus), this start seeded the demo and printed its keys.
    if (/Demo data created/.test(server.output())) {
      expect(server.output()).not.toMatch(hint);
      server.child.kill('SIGTERM');
      await server.exited;
      server = await start({});
    }
    expect(server.output()).toMatch(hint);
    expect(server.output()).not.toMatch(/^\s+alice\s+sdg_/m);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
