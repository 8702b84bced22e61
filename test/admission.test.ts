import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { Admission } from '../src/http/admission.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';

/**
 * Admission control: heavy requests (pages over 1000 items, GraphQL cost over 20,000) take turns,
 * a few at a time per process, and large GraphQL operations (cost over 5,000) in a wider tier of
 * their own; one that waits too long gets 503 OVERLOADED with Retry-After.
 */
const seeded = seededDatabase();

const tick = () => new Promise((r) => setTimeout(r, 5));

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

  test('GraphQL: a large operation (cost 5,000–20,000) takes a slot of the large tier, which the heavy tier does not block', async () => {
    const heavy = new Admission({ slots: 1, maxWaitMs: 50 });
    const large = new Admission({ slots: 1, maxWaitMs: 50 }, 'large');
    const app = await buildApp({ database: seeded.database, admission: heavy, largeAdmission: large });
    try {
      const { A } = seeded.demo.orgs;
      const bob = client(app, seeded.demo.users.bob.apiKey);
      const vars = { o: A.id, p: A.portfolios.A1 };
      const query = (first: number) => `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
        projects(first: ${first}) { nodes { id contacts(first: 5) { nodes { id } } } } } } }`;
      // The heavy slot taken: a large operation is still served.
      const heavyTaken = await heavy.acquire();
      expect((await bob.gql(query(1000), vars)).status).toBe(200);
      heavyTaken();
      // The large slot taken: a large operation waits, then is refused; a small one is served.
      const largeTaken = await large.acquire();
      const refused = await bob.gql(query(1000), vars);
      expect(refused.status).toBe(503);
      expect(refused.body.errors[0].extensions.code).toBe('OVERLOADED');
      expect(refused.body.errors[0].message).toMatch(/costing ≤ 5,000 never waits/);
      expect((await bob.gql(query(100), vars)).status).toBe(200);
      largeTaken();
      expect((await bob.gql(query(1000), vars)).status).toBe(200);
      expect(large.load).toEqual({ running: 0, waiting: 0 });
      expect(heavy.load).toEqual({ running: 0, waiting: 0 });
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
