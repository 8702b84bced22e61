import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDatabase, type Database } from '../src/db/database.js';
import { revokeApiKey } from '../src/modules/auth/repository.js';
import { createScratchDatabase } from './helpers/database.js';
import { call, type ServerProcess, startServer } from './helpers/server-process.js';

/**
 * Two gateway processes on one Postgres, as two replicas behind a load balancer: requests
 * alternate between them. Postgres only (PGlite is embedded in one process).
 */
const pgUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
let a: ServerProcess;
let b: ServerProcess;
let database: Database;

beforeAll(async () => {
  if (!pgUrl) return;
  scratch = await createScratchDatabase(pgUrl);
  a = await startServer({ DATABASE_URL: scratch.url }); // seeds the demo and prints the keys
  b = await startServer({ DATABASE_URL: scratch.url });
  database = await createDatabase({ url: scratch.url, poolSize: 2 });
}, 120_000);
afterAll(async () => {
  for (const s of [a, b]) {
    if (!s) continue;
    s.child.kill('SIGTERM');
    await s.exited;
  }
  await database?.close();
  await scratch?.drop();
});

test.skipIf(!pgUrl)(
  'writers and paging readers alternate between replicas: nothing lost, no page repeats or skips',
  { timeout: 120_000 },
  async () => {
    const key = a.keys.alice;
    const [org] = (await call(a.url, key, 'GET', '/organizations/v1')).body;
    const [pf] = (await call(b.url, key, 'GET', `/portfolios/v1?orgId=${org.id}`)).body;
    const q = `?orgId=${org.id}&portfolioId=${pf.id}`;
    const existing = new Set<string>();
    for (let k: string | null = null, first = true; first || k; first = false) {
      const page: { body: { items: { id: string }[]; nextKey: string | null } } = await call(
        a.url,
        key,
        'GET',
        `/contacts/v1${q}&limit=5000`,
      );
      for (const c of page.body.items) existing.add(c.id);
      k = page.body.nextKey;
    }

    const acked: string[] = [];
    let writing = true;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; writing; i++) {
        const r = await call(i % 2 ? a.url : b.url, key, 'POST', `/contacts/v1${q}`, {
          properties: { first_name: { text: `replica-${w}-${i}` } },
        });
        expect(r.status).toBe(200);
        acked.push(r.body.id);
      }
    });
    // Readers walk pages of 7, alternating replicas page by page, while the writers insert.
    const walks = Array.from({ length: 3 }, async () => {
      const seen: string[] = [];
      let next: string | null = null;
      let n = 0;
      do {
        const r: { status: number; body: { items: { id: string }[]; nextKey: string | null } } = await call(
          n++ % 2 ? a.url : b.url,
          key,
          'GET',
          `/contacts/v1${q}&limit=7${next ? `&startKey=${encodeURIComponent(next)}` : ''}`,
        );
        expect(r.status).toBe(200);
        seen.push(...r.body.items.map((c) => c.id));
        next = r.body.nextKey;
      } while (next && n < 400);
      return seen;
    });
    const results = await Promise.all(walks);
    writing = false;
    await Promise.all(writers);

    for (const seen of results) {
      expect(new Set(seen).size, 'no repeats').toBe(seen.length);
      for (const id of existing) expect(seen.includes(id), `pre-existing ${id} not skipped`).toBe(true);
    }
    // Every acknowledged write is there, whichever replica took it.
    const ids = await database.db.selectFrom('contacts').select('id').where('org_id', '=', org.id).execute();
    const stored = new Set(ids.map((r) => r.id));
    for (const id of acked) expect(stored.has(id), `acknowledged ${id}`).toBe(true);
    expect(acked.length).toBeGreaterThan(10);
  },
);

test.skipIf(!pgUrl)('a key revoked on one side stops working on both at once (no key cache)', async () => {
  const key = a.keys.bob;
  expect((await call(a.url, key, 'GET', '/organizations/v1')).status).toBe(200);
  expect((await call(b.url, key, 'GET', '/organizations/v1')).status).toBe(200);
  expect(await revokeApiKey(database.db, key)).toBe(true);
  expect((await call(a.url, key, 'GET', '/organizations/v1')).status).toBe(401);
  expect((await call(b.url, key, 'GET', '/organizations/v1')).status).toBe(401);
});

test.skipIf(!pgUrl)(
  'with REDIS_URL, two replicas share one rate-limit budget per key',
  { timeout: 120_000 },
  async () => {
    const env = {
      DATABASE_URL: scratch!.url,
      REDIS_URL: redisUrl,
      RATE_LIMIT_PER_SECOND: '0.2',
      RATE_LIMIT_BURST: '6',
    };
    const r1 = await startServer(env);
    const r2 = await startServer(env);
    try {
      const key = a.keys.vera;
      const statuses: number[] = [];
      // Each replica charges a key's first request to the client address (it has not seen the key
      // authenticate yet); the 6 after those share the key's one budget.
      for (let i = 0; i < 10; i++)
        statuses.push((await call(i % 2 ? r1.url : r2.url, key, 'GET', '/organizations/v1')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
    } finally {
      for (const s of [r1, r2]) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
    }
  },
);

test.skipIf(pgUrl)('replica tests need Postgres: run with DATABASE_URL (npm run test:pg)', () => {});
