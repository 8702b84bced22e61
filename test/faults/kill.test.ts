import { afterAll, beforeAll, expect, test } from 'vitest';
import { onCitus } from '../helpers/citus.js';
import { backend } from '../helpers/database.js';
import { call, type ServerProcess, type ServerStorage, serverStorage } from '../helpers/server-process.js';

/**
 * Load and kill: writers run against a real server process, which gets SIGKILL mid-load. After a
 * restart on the same data, every write acknowledged with a 2xx is there and nothing is half-written.
 * Runs on PGlite persisted to disk, or on Postgres when DATABASE_URL is set.
 */
let storage: ServerStorage;
beforeAll(async () => {
  storage = await serverStorage();
});
afterAll(async () => storage?.cleanup());

interface Acked {
  projects: Map<string, string>;
  capacity: Map<string, number>;
  linked: Set<string>;
  unlinked: Set<string>;
  /** Unlinks sent; one still in flight at the kill may or may not have committed. */
  unlinkSent: Set<string>;
}

test(`SIGKILL under concurrent writes loses no acknowledged write (${backend})`, {
  timeout: onCitus ? 600_000 : 180_000,
}, async () => {
  let server: ServerProcess = await storage.start();
  const key = server.keys.alice;
  expect(key).toBeTruthy();
  const [org] = (await call(server.url, key, 'GET', '/organizations/v1')).body;
  const [pf] = (await call(server.url, key, 'GET', `/portfolios/v1?orgId=${org.id}`)).body;
  const q = `?orgId=${org.id}&portfolioId=${pf.id}`;
  const contacts: string[] = (
    await call(server.url, key, 'GET', `/contacts/v1${q}&limit=100`)
  ).body.items.map((c: { id: string }) => c.id);

  const acked: Acked = {
    projects: new Map(),
    capacity: new Map(),
    linked: new Set(),
    unlinked: new Set(),
    unlinkSent: new Set(),
  };
  let stop = false;
  const errors: string[] = [];
  const worker = async (w: number) => {
    let i = 0;
    while (!stop) {
      try {
        const name = `kill-${w}-${i}`;
        const created = await call(server.url, key, 'POST', `/projects/v1${q}`, {
          properties: { name: { text: name } },
        });
        if (created.status !== 200) throw new Error(`create ${created.status}`);
        const id = created.body.id as string;
        acked.projects.set(id, name);
        for (let n = 1; n <= 3 && !stop; n++) {
          const u = await call(server.url, key, 'PUT', `/projects/v1/${id}${q}`, {
            properties: { capacity_mw: { number: n } },
          });
          if (u.status !== 200) throw new Error(`update ${u.status}`);
          acked.capacity.set(id, n);
          // Distinct contacts per step, so an unlinked pair is never linked again.
          const c1 = contacts[(w * 7 + 2 * n) % contacts.length];
          const c2 = contacts[(w * 7 + 2 * n + 1) % contacts.length];
          if (
            (await call(server.url, key, 'POST', `/projects/v1/${id}/contacts${q}`, { contactId: c1 }))
              .status !== 200
          )
            throw new Error('link');
          acked.linked.add(`${id}:${c1}`);
          if (
            (await call(server.url, key, 'POST', `/projects/v1/${id}/contacts${q}`, { contactId: c2 }))
              .status !== 200
          )
            throw new Error('link');
          acked.linked.add(`${id}:${c2}`);
          acked.unlinkSent.add(`${id}:${c2}`);
          if ((await call(server.url, key, 'DELETE', `/projects/v1/${id}/contacts/${c2}${q}`)).status !== 200)
            throw new Error('unlink');
          acked.unlinked.add(`${id}:${c2}`);
        }
        i++;
      } catch (err) {
        // Requests in flight at the kill fail; only acknowledged ones count.
        if (!stop) errors.push(String(err));
      }
    }
  };
  const workers = Array.from({ length: 8 }, (_, w) => worker(w));
  // Kill mid-traffic: after 2.5 s and once 8 creates are acknowledged. A loaded machine may need
  // longer to get there; the claim is about what survives, not how fast it was written.
  const started = Date.now();
  while (Date.now() - started < 2500 || (acked.projects.size < 8 && Date.now() - started < 45_000)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  // Requests in flight now die with the process; from here on, failures are expected.
  stop = true;
  server.child.kill('SIGKILL');
  await server.exited;
  await Promise.all(workers);
  expect(errors).toEqual([]);
  // At least one acknowledged create per worker before the kill.
  expect(acked.projects.size).toBeGreaterThanOrEqual(8);

  server = await storage.start();
  try {
    const seen = new Map<string, { name?: string; capacity?: number }>();
    let startKey: string | null = null;
    do {
      const page: { status: number; body: { items: any[]; nextKey: string | null } } = await call(
        server.url,
        key,
        'GET',
        `/projects/v1${q}&limit=5000${startKey ? `&startKey=${encodeURIComponent(startKey)}` : ''}`,
      );
      expect(page.status).toBe(200);
      for (const p of page.body.items)
        seen.set(p.id, { name: p.properties.name?.text, capacity: p.properties.capacity_mw?.number });
      startKey = page.body.nextKey;
    } while (startKey);

    for (const [id, name] of acked.projects) {
      expect(seen.get(id)?.name, `project ${id}`).toBe(name);
    }
    for (const [id, n] of acked.capacity) {
      // The acknowledged value, or the next one if that update was in flight at the kill.
      expect(seen.get(id)?.capacity, `capacity of ${id}`).toBeGreaterThanOrEqual(n);
    }
    // Nothing half-written: every project has its required name.
    for (const [id, p] of seen) expect(p.name, `name of ${id}`).toBeTruthy();

    const linkedNow = new Set<string>();
    for (const id of acked.projects.keys()) {
      const r = await call(server.url, key, 'GET', `/projects/v1/${id}/contacts${q}&limit=5000`);
      for (const c of r.body.items) linkedNow.add(`${id}:${c.id}`);
    }
    // A link stays unless its unlink was sent: an unlink in flight at the kill may have committed
    // with its answer lost, like an update in flight above.
    for (const pair of acked.linked)
      if (!acked.unlinkSent.has(pair)) expect(linkedNow.has(pair), `link ${pair}`).toBe(true);
    for (const pair of acked.unlinked) expect(linkedNow.has(pair), `unlinked ${pair}`).toBe(false);

    // The change log survived exactly as the data did: every acknowledged write has its entry, and
    // the newest logged capacity is the stored one (an update in flight at the kill has both or neither).
    const HISTORY = `query ($id: ID!) { project(id: $id) { history(first: 100) { nodes { operation properties { propertyId stored } } } } }`;
    for (const id of acked.projects.keys()) {
      const r = await call(server.url, key, 'POST', '/graphql', { query: HISTORY, variables: { id } });
      const nodes: { operation: string; properties: { propertyId: string; stored: any }[] }[] =
        r.body.data.project.history.nodes;
      expect(
        nodes.filter((n) => n.operation === 'CREATE'),
        `create of ${id}`,
      ).toHaveLength(1);
      const updates = nodes.filter((n) => n.operation === 'UPDATE');
      expect(updates.length, `updates of ${id}`).toBeGreaterThanOrEqual(acked.capacity.get(id) ?? 0);
      const newest = updates[0]?.properties.find((p) => p.propertyId === 'capacity_mw')?.stored.after.number;
      expect(newest, `logged capacity of ${id}`).toBe(seen.get(id)?.capacity);
      const links = nodes.filter((n) => n.operation === 'LINK').length;
      expect(links, `links of ${id}`).toBeGreaterThanOrEqual(
        [...acked.linked].filter((p) => p.startsWith(`${id}:`)).length,
      );
    }
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
