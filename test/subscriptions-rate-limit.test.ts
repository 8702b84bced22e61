import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { MemoryRateLimitStore } from '../src/http/rate-limit-store.js';
import { openTestDatabase } from './helpers/database.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => database?.close());

/** Opens a graphql-ws socket; resolves with 'open' or the HTTP status the upgrade was refused with. */
function upgrade(
  url: string,
): Promise<
  { open: true; ws: WebSocket } | { open: false; status: number; body: string; retryAfter?: string }
> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'graphql-transport-ws');
    ws.on('open', () => resolve({ open: true, ws }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () =>
        resolve({ open: false, status: res.statusCode ?? 0, body, retryAfter: res.headers['retry-after'] }),
      );
    });
    ws.on('error', (e) => reject(e));
  });
}

test('WebSocket upgrades take from the per-address budget: beyond it, 429 before the handshake', async () => {
  const app = await buildApp({
    database,
    rateLimit: {
      store: new MemoryRateLimitStore(),
      config: { perSecond: 100, burst: 100, address: { perSecond: 0.01, burst: 3 } },
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/graphql`;
  const opened: WebSocket[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const r = await upgrade(url);
      expect(r.open, `upgrade ${i + 1}`).toBe(true);
      if (r.open) opened.push(r.ws);
    }
    const refused = await upgrade(url);
    expect(refused.open).toBe(false);
    if (refused.open) throw new Error('unreachable');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(refused.body).error.code).toBe('RATE_LIMITED');
    // The same budget as requests without a key: the address has none left for those either.
    const plain = await app.inject({ method: 'GET', url: '/organizations/v1', remoteAddress: '127.0.0.1' });
    expect(plain.statusCode).toBe(429);
  } finally {
    for (const ws of opened) ws.terminate();
    await app.close();
  }
});

test('without rate limiting, upgrades are not limited', async () => {
  const app = await buildApp({ database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/graphql`;
  const opened: WebSocket[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const r = await upgrade(url);
      expect(r.open).toBe(true);
      if (r.open) opened.push(r.ws);
    }
  } finally {
    for (const ws of opened) ws.terminate();
    await app.close();
  }
});
