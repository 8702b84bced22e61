import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { Admission } from '../src/http/admission.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';

/**
 * Admission control: heavy requests (pages over 1000 items, GraphQL cost over 20,000) take turns,
 * a few at a time per process; one that waits too long gets 503 OVERLOADED with Retry-After.
 */
const seeded = seededDatabase();

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('the Admission semaphore', () => {
  test('runs up to `slots` at once and hands slots over first come, first served', async () => {
    const a = new Admission({ slots: 2, maxWaitMs: 10_000 });
    const r1 = await a.acquire();
    const r2 = await a.acquire();
    const order: number[] = [];
    const inTurn = (n: number) => (release: () => void) => {
      order.push(n);
      return release;
    };
    const w3 = a.acquire().then(inTurn(3));
    const w4 = a.acquire().then(inTurn(4));
    await tick();
    expect(a.load).toEqual({ running: 2, waiting: 2 });
    r1();
    r1(); // a second call is a no-op, not a second slot
    const r3 = await w3;
    await tick();
    expect(order).toEqual([3]);
    r2();
    const r4 = await w4;
    expect(order).toEqual([3, 4]);
    r3();
    r4();
    expect(a.load).toEqual({ running: 0, waiting: 0 });
  });

  test('a waiter gives up with OVERLOADED after maxWaitMs, or when its signal aborts', async () => {
    const a = new Admission({ slots: 1, maxWaitMs: 30 });
    const held = await a.acquire();
    await expect(a.acquire()).rejects.toMatchObject({ code: 'OVERLOADED', status: 503 });
    const gone = new AbortController();
    const waiting = a.acquire(gone.signal);
    await tick();
    expect(a.load.waiting).toBe(1);
    gone.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    expect(a.load).toEqual({ running: 1, waiting: 0 });
    held();
    expect(a.load.running).toBe(0);
  });

  test('slots 0 turns it off', async () => {
    const a = new Admission({ slots: 0, maxWaitMs: 0 });
    await Promise.all(Array.from({ length: 50 }, () => a.acquire()));
    expect(a.load).toEqual({ running: 0, waiting: 0 });
  });
});

describe('heavy requests over HTTP', () => {
  const setup = async (maxWaitMs: number) => {
    const admission = new Admission({ slots: 1, maxWaitMs });
    const app = await buildApp({ database: seeded.database, admission });
    const org = seeded.demo.orgs.A;
    return {
      admission,
      app,
      bob: client(app, seeded.demo.users.bob.apiKey),
      q: { orgId: org.id, portfolioId: org.portfolios.A1 },
    };
  };

  test('REST: with the only slot taken, a 5000-item page gets 503 OVERLOADED with Retry-After; a 1000-item page does not wait', async () => {
    const { admission, app, bob, q } = await setup(50);
    try {
      const taken = await admission.acquire();
      const refused = await bob.get('/projects/v1', { ...q, limit: '5000' });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('OVERLOADED');
      expect(refused.body.error.message).toMatch(/smaller pages/);
      expect(refused.headers['retry-after']).toBe('2');
      expect(admission.load).toEqual({ running: 1, waiting: 0 });
      expect((await bob.get('/projects/v1', { ...q, limit: '1000' })).status).toBe(200);
      taken();
      const ok = await bob.get('/projects/v1', { ...q, limit: '5000' });
      expect(ok.status).toBe(200);
      expect(ok.body.items.length).toBeGreaterThan(0);
      // The slot came back once the response had gone.
      expect(admission.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      await app.close();
    }
  });

  test('REST: a heavy page waits for the slot, then is served', async () => {
    const { admission, app, bob, q } = await setup(10_000);
    try {
      const taken = await admission.acquire();
      const pending = bob.get('/projects/v1', { ...q, limit: '2000' });
      while (admission.load.waiting === 0) await tick();
      taken();
      expect((await pending).status).toBe(200);
      expect(admission.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      await app.close();
    }
  });

  test('GraphQL: an operation over the heavy cost is refused with extensions.code OVERLOADED; a light one is served', async () => {
    const { admission, app, bob, q } = await setup(50);
    try {
      const heavy = `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
        projects(first: 5000) { nodes { id contacts(first: 5) { nodes { id } } } } } } }`;
      const light = heavy.replace('first: 5000', 'first: 100');
      const vars = { o: q.orgId, p: q.portfolioId };
      const taken = await admission.acquire();
      const refused = await bob.gql(heavy, vars);
      expect(refused.status).toBe(503);
      expect(refused.body.errors[0].extensions.code).toBe('OVERLOADED');
      expect(refused.headers['retry-after']).toBe('2');
      expect((await bob.gql(light, vars)).status).toBe(200);
      taken();
      const ok = await bob.gql(heavy, vars);
      expect(ok.status).toBe(200);
      expect(ok.body.data.organization.portfolio.projects.nodes.length).toBeGreaterThan(0);
      expect(admission.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      await app.close();
    }
  });

  test('over real sockets, heavy requests queue for the one slot and all pass', async () => {
    const admission = new Admission({ slots: 1, maxWaitMs: 10_000 });
    const app = await buildApp({ database: seeded.database, admission });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { A } = seeded.demo.orgs;
      const page = () =>
        fetch(`${url}/projects/v1?orgId=${A.id}&portfolioId=${A.portfolios.A1}&limit=5000`, {
          headers: { 'x-api-key': seeded.demo.users.bob.apiKey },
        });
      const rs = await Promise.all(Array.from({ length: 4 }, page));
      expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      await Promise.all(rs.map((r) => r.text()));
      expect(admission.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      await app.close();
    }
  });
});
