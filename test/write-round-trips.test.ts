import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { onCitus } from './helpers/citus.js';
import { describe, expect, test } from './helpers/fixtures.js';

/**
 * What a record write sends to the database, as seen on the wire (pg.Client#query, which PGlite's
 * pool goes through too): on Postgres a create, an update and a delete are each one statement with
 * their change-log entry in it, so they need no BEGIN and COMMIT around them (two more round trips
 * per write). On Citus they are several statements in a transaction (docs/scaling.md).
 */
const sent: string[] = [];
const original = pg.Client.prototype.query;
beforeAll(() => {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string };
    const text = typeof q === 'string' ? q : q?.text;
    // The first keyword, after any /* marker */ (the key lookup carries one).
    if (text) sent.push(/^(?:\s|\/\*[\s\S]*?\*\/)*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
});
afterAll(() => {
  pg.Client.prototype.query = original;
});

describe.skipIf(onCitus)('record writes on one PostgreSQL', () => {
  test('create, update and delete: one statement each, no transaction around it', async ({ env }) => {
    const alice = env.as.alice;
    const q = { orgId: env.demo.orgs.A.id, portfolioId: env.demo.orgs.A.portfolios.A1 };
    // Warm the key lookup and the org caches, so only the write's own statements remain.
    await alice.get('/organizations/v1');
    const writes = async (run: () => Promise<{ status: number; body: any }>) => {
      await new Promise((r) => setTimeout(r, 20)); // the previous write's doorbell
      sent.length = 0;
      const r = await run();
      expect(r.status).toBe(200);
      // Reads (the record before an update, the doorbell's pg_notify) are not the write's.
      return { body: r.body, sent: sent.splice(0).filter((s) => s !== 'select') };
    };
    const created = await writes(() =>
      alice.post('/projects/v1', { properties: { name: { text: 'One trip' } } }, q),
    );
    expect(created.sent).toEqual(['with']);
    const id = created.body.id;
    const updated = await writes(() =>
      alice.put(`/projects/v1/${id}`, { properties: { name: { text: 'Two trips' } } }, q),
    );
    expect(updated.sent).toEqual(['with']);
    const deleted = await writes(() => alice.delete(`/projects/v1/${id}`, q));
    expect(deleted.sent).toEqual(['with']);
  });
});
