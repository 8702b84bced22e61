import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { importParcels } from '../src/modules/imports/index.js';
import { defineProperty } from '../src/modules/schema/service.js';
import { onCitus } from './helpers/citus.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { freshPortfolio, INSPECT, type Scope } from './records-helpers.js';

/**
 * The entries every writer gets from the one change-log writer (writeLogged), on each engine: a
 * schema change's definitions before and after, an import's creates and links, and, on one
 * PostgreSQL, a contact link and unlink as one statement each with its entries in it.
 */

async function entries(env: TestEnv, recordId: string) {
  const { rows } = await sql<{
    op: string;
    portfolio_id: string | null;
    related_id: string | null;
    source: string;
    changes: any;
  }>`${INSPECT} select op, portfolio_id, related_id, source, changes from change_log
    where org_id = ${env.demo.orgs.A.id} and record_id = ${recordId} order by tx, seq`.execute(
    env.database.db,
  );
  return rows;
}

const square = (x: number) => [
  [
    [x, 40],
    [x, 40.01],
    [x + 0.01, 40.01],
    [x + 0.01, 40],
    [x, 40],
  ],
];

describe('the change log writer', () => {
  test('redefining a property logs the stored definition as before and the new one as after', async ({
    env,
  }) => {
    const org = env.demo.orgs.A.id;
    const id = `writer_${Date.now()}`;
    const first = {
      id,
      name: 'Stage',
      type: 'select' as const,
      options: [{ id: 'a', name: 'A', color: '#aabbcc' }],
    };
    await defineProperty(env.database.db, org, 'project', first);
    const more = [...first.options, { id: 'b', name: 'B', color: '#ddeeff' }];
    // Not required: the other tests of this file create projects without it.
    await defineProperty(env.database.db, org, 'project', { ...first, name: 'Phase', options: more });
    const logged = await entries(env, id);
    expect(logged.map((e) => [e.op, e.portfolio_id, e.source])).toEqual([
      ['schema', null, 'cli'],
      ['schema', null, 'cli'],
    ]);
    const firstDef = { name: 'Stage', type: 'select', options: first.options, required: false };
    expect(logged[0].changes).toEqual({ before: null, after: firstDef });
    expect(logged[1].changes).toEqual({
      before: firstDef,
      after: { ...firstDef, name: 'Phase', options: more },
    });
  });

  test("an import logs each parcel's creation with its values, and each link on both records", async ({
    env,
  }) => {
    const s: Scope = await freshPortfolio(env);
    const project = (await env.as.alice.post('/projects/v1', { properties: { name: { text: 'Imp' } } }, s))
      .body.id;
    const out = await importParcels(
      env.database.db,
      {
        type: 'FeatureCollection',
        features: [0, 1].map((i) => ({
          type: 'Feature',
          geometry: { type: 'Polygon', coordinates: square(-100 + i) },
          properties: { name: `lot ${i}` },
        })),
      },
      { ...s, projectId: project },
    );
    expect(out.created).toHaveLength(2);
    for (const [i, parcel] of out.created.entries()) {
      expect(await entries(env, parcel)).toEqual([
        {
          op: 'create',
          portfolio_id: s.portfolioId,
          related_id: null,
          source: 'cli',
          changes: { name: { before: null, after: { text: `lot ${i}` } } },
        },
        { op: 'link', portfolio_id: s.portfolioId, related_id: project, source: 'cli', changes: {} },
      ]);
    }
    const links = (await entries(env, project)).filter((e) => e.op === 'link');
    expect(links.map((e) => e.related_id).sort()).toEqual([...out.created].sort());
  });
});

/** The first keyword of each statement sent (pg.Client#query, which PGlite's pool goes through too). */
const sent: string[] = [];
const original = pg.Client.prototype.query;
beforeAll(() => {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string };
    const text = typeof q === 'string' ? q : q?.text;
    if (text) sent.push(/^(?:\s|\/\*[\s\S]*?\*\/)*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
});
afterAll(() => {
  pg.Client.prototype.query = original;
});

describe.skipIf(onCitus)('contact links on one PostgreSQL', () => {
  test('link and unlink: one statement each, no transaction around it, logged on both records', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    const alice = env.as.alice;
    const project = (await alice.post('/projects/v1', { properties: { name: { text: 'P' } } }, s)).body.id;
    const contact = (await alice.post('/contacts/v1', { properties: { first_name: { text: 'C' } } }, s)).body
      .id;
    const write = async (run: () => Promise<{ status: number }>) => {
      await new Promise((r) => setTimeout(r, 20)); // the previous write's doorbell
      sent.length = 0;
      expect((await run()).status).toBe(200);
      // Reads (the records, the doorbell's pg_notify) are not the write's.
      return sent.splice(0).filter((x) => x !== 'select');
    };
    const path = `/projects/v1/${project}/contacts`;
    expect(await write(() => alice.post(path, { contactId: contact }, s))).toEqual(['with']);
    expect(await write(() => alice.delete(`${path}/${contact}`, s))).toEqual(['with']);
    for (const [id, other] of [
      [project, contact],
      [contact, project],
    ])
      expect(
        (await entries(env, id)).filter((e) => e.op !== 'create').map((e) => [e.op, e.related_id]),
      ).toEqual([
        ['link', other],
        ['unlink', other],
      ]);
  });
});
