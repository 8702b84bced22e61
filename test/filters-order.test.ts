import type { StoredValue } from '../src/modules/records/types.js';
import { onCitus } from './helpers/citus.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { freshPortfolio, insertRecords } from './records-helpers.js';

/**
 * orderBy: every kind of sort key, both directions, nulls first and last, mixed directions; walks
 * forward and backward page by page while rows are being inserted: no repeats, and every row that
 * existed when the walk began is seen exactly once, in order.
 */

const Q = `query($pf: ID!, $orderBy: [RecordOrder!], $filter: RecordFilter, $first: Int, $after: String, $last: Int, $before: String) {
  node(id: $pf) { ... on Portfolio {
    projects(orderBy: $orderBy, filter: $filter, first: $first, after: $after, last: $last, before: $before) {
      edges { cursor node { id createdAt updatedAt properties } }
      pageInfo { hasNextPage hasPreviousPage endCursor startCursor }
    }
  } }
}`;

type Node = { id: string; createdAt: string; updatedAt: string; properties: Record<string, any> };
type Order = { property?: string; field?: string; direction?: 'ASC' | 'DESC'; nulls?: 'FIRST' | 'LAST' };

const STAGES = ['origination', 'site-control', 'permitting', 'construction', 'operating'];

/** The sort value of a node for one key, or null. */
function value(n: Node, o: Order): number | string | null {
  if (o.field === 'CREATED_AT') return Date.parse(n.createdAt);
  if (o.field === 'UPDATED_AT') return Date.parse(n.updatedAt);
  const v = n.properties[o.property!];
  if (!v) return null;
  if ('number' in v) return v.number;
  if ('text' in v) return v.text;
  if ('date' in v) return v.date.start;
  if ('select' in v) return STAGES.indexOf(v.select[0]);
  return null;
}

/** Compares two nodes on the sort keys only (ties are broken by the list's own order). */
function compare(a: Node, b: Node, order: Order[]): number {
  for (const o of order) {
    const [x, y] = [value(a, o), value(b, o)];
    if (x === y) continue;
    const nullsFirst = o.nulls === 'FIRST';
    if (x === null) return nullsFirst ? -1 : 1;
    if (y === null) return nullsFirst ? 1 : -1;
    const c = x < y ? -1 : 1;
    return o.direction === 'DESC' ? -c : c;
  }
  return 0;
}

const ORDERS: Order[][] = [
  [{ property: 'capacity_mw' }],
  [{ property: 'capacity_mw', direction: 'DESC' }],
  [{ property: 'capacity_mw', nulls: 'FIRST' }],
  [{ property: 'capacity_mw', direction: 'DESC', nulls: 'FIRST' }],
  [{ property: 'name', direction: 'DESC' }],
  [{ property: 'cod' }],
  [{ property: 'stage', nulls: 'FIRST' }],
  [{ field: 'UPDATED_AT', direction: 'DESC' }],
  [{ field: 'CREATED_AT' }],
  [{ property: 'stage' }, { property: 'capacity_mw', direction: 'DESC' }],
  [{ property: 'cod', direction: 'DESC', nulls: 'FIRST' }, { field: 'CREATED_AT' }],
];

let n = 0;
const row = (i: number) => {
  n++;
  const r: Record<string, StoredValue> = { name: { text: `p${String.fromCharCode(97 + (i % 7))}${i % 3}` } };
  if (i % 4 !== 0) r.capacity_mw = { number: (i * 37) % 11 };
  if (i % 3 !== 0) r.cod = { date: { start: `2026-0${1 + (i % 5)}-1${i % 2}` } };
  if (i % 5 !== 1) r.stage = { select: [STAGES[i % STAGES.length]] };
  return r;
};

describe('orderBy', () => {
  // Many walks in one test: on a loaded machine it outgrows the default 120 s; on Citus each
  // statement is a distributed round trip, so it gets more there.
  test('forward and backward walks under every order, while rows are inserted', {
    timeout: onCitus ? 600_000 : 300_000,
  }, async ({ env }) => {
    for (const orderBy of ORDERS) {
      // A portfolio per order keeps each walk short.
      const scope = await freshPortfolio(env);
      await insertRecords(
        env,
        'project',
        scope,
        Array.from({ length: 23 }, (_, i) => row(i)),
      );
      const page = async (orderBy: Order[], args: Record<string, unknown>) => {
        const r = await env.as.alice.gql(Q, { pf: scope.portfolioId, orderBy, ...args });
        expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
        return r.body.data.node.projects;
      };
      const label = JSON.stringify(orderBy);
      const before = (await page(orderBy, { first: 500 })).edges.map((e: { node: Node }) => e.node) as Node[];
      // The one-shot order is sorted by the keys.
      for (let i = 1; i < before.length; i++)
        expect(compare(before[i - 1], before[i], orderBy), `${label} at ${i}`).toBeLessThanOrEqual(0);
      const existing = before.map((x) => x.id);

      for (const direction of ['forward', 'backward'] as const) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let step = 0; step < 100; step++) {
          const p = await page(
            orderBy,
            direction === 'forward' ? { first: 4, after: cursor } : { last: 4, before: cursor },
          );
          const ids = p.edges.map((e: { node: Node }) => e.node.id) as string[];
          if (direction === 'forward') seen.push(...ids);
          else seen.unshift(...ids);
          // Rows arrive mid-walk, on both sides of the cursor.
          await insertRecords(env, 'project', scope, [row(n + 1), row(n + 2)]);
          const more = direction === 'forward' ? p.pageInfo.hasNextPage : p.pageInfo.hasPreviousPage;
          if (!more) break;
          cursor = direction === 'forward' ? p.pageInfo.endCursor : p.pageInfo.startCursor;
        }
        expect(new Set(seen).size, `${label} ${direction}: repeats`).toBe(seen.length);
        expect(
          seen.filter((id) => existing.includes(id)),
          `${label} ${direction}`,
        ).toEqual(existing);
      }
    }
  });

  test('nulls go last by default and first when asked, in both directions', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const [a, none, b] = await insertRecords(env, 'project', scope, [
      { name: { text: 'a' }, capacity_mw: { number: 1 } },
      { name: { text: 'none' } },
      { name: { text: 'b' }, capacity_mw: { number: 2 } },
    ]);
    const ids = async (orderBy: Order[]) => {
      const r = await env.as.alice.gql(Q, { pf: scope.portfolioId, orderBy, first: 10 });
      return r.body.data.node.projects.edges.map((e: { node: Node }) => e.node.id);
    };
    expect(await ids([{ property: 'capacity_mw' }])).toEqual([a, b, none]);
    expect(await ids([{ property: 'capacity_mw', direction: 'DESC' }])).toEqual([b, a, none]);
    expect(await ids([{ property: 'capacity_mw', nulls: 'FIRST' }])).toEqual([none, a, b]);
    expect(await ids([{ property: 'capacity_mw', direction: 'DESC', nulls: 'FIRST' }])).toEqual([none, b, a]);
  });

  test('ties run in the list’s own order, the way the last key runs: a DESC sort reverses ASC', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    // Three at 5 MW: equal on the key, so only the tiebreak orders them.
    const tied = await insertRecords(
      env,
      'project',
      scope,
      Array.from({ length: 3 }, (_, i) => ({ name: { text: `t${i}` }, capacity_mw: { number: 5 } })),
    );
    const [big] = await insertRecords(env, 'project', scope, [
      { name: { text: 'big' }, capacity_mw: { number: 9 } },
    ]);
    const walk = async (orderBy: Order[]) => {
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const r = await env.as.alice.gql(Q, { pf: scope.portfolioId, orderBy, first: 1, after });
        const p = r.body.data.node.projects;
        seen.push(...p.edges.map((e: { node: Node }) => e.node.id));
        if (!p.pageInfo.hasNextPage) return seen;
        after = p.pageInfo.endCursor;
      }
    };
    const own = (await walk([])).filter((id) => tied.includes(id)); // the list's own order
    expect(own).toHaveLength(3);
    expect(await walk([{ property: 'capacity_mw' }])).toEqual([...own, big]);
    expect(await walk([{ property: 'capacity_mw', direction: 'DESC' }])).toEqual([
      big,
      ...[...own].reverse(),
    ]);
    // The last key sets the tiebreak's direction: here stage (unset on all, ASC) after capacity DESC.
    expect(await walk([{ property: 'capacity_mw', direction: 'DESC' }, { property: 'stage' }])).toEqual([
      big,
      ...own,
    ]);
    // A DESC sort is exactly the ASC sort read backwards.
    expect(await walk([{ field: 'CREATED_AT', direction: 'DESC' }])).toEqual(
      [...(await walk([{ field: 'CREATED_AT' }]))].reverse(),
    );
  });

  test('sorting a link list: a project’s contacts by last name', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const [project] = await insertRecords(env, 'project', scope, [{ name: { text: 'P' } }]);
    const contacts = await insertRecords(env, 'contact', scope, [
      { first_name: { text: 'x' }, last_name: { text: 'c' } },
      { first_name: { text: 'x' }, last_name: { text: 'a' } },
      { first_name: { text: 'x' } },
      { first_name: { text: 'x' }, last_name: { text: 'b' } },
    ]);
    for (const id of contacts) {
      const r = await env.as.alice.post(`/projects/v1/${project}/contacts`, { contactId: id }, scope);
      expect(r.status).toBe(200);
    }
    const q = `query($id: ID!, $after: String) { project(id: $id) {
      contacts(orderBy: [{ property: "last_name" }], first: 2, after: $after) {
        edges { cursor linkedAt node { id } } pageInfo { hasNextPage endCursor } } } }`;
    const p1 = (await env.as.alice.gql(q, { id: project })).body.data.project.contacts;
    const p2 = (await env.as.alice.gql(q, { id: project, after: p1.pageInfo.endCursor })).body.data.project
      .contacts;
    expect([...p1.edges, ...p2.edges].map((e: { node: { id: string } }) => e.node.id)).toEqual([
      contacts[1],
      contacts[3],
      contacts[0],
      contacts[2],
    ]);
    expect(p2.pageInfo.hasNextPage).toBe(false);
    expect(p1.edges[0].linkedAt).toEqual(expect.any(String));
  });
});
