import { sql } from 'kysely';
import { createPortfolio } from '../src/modules/org/repository.js';
import { seedPortfolio } from '../src/seed/demo.js';
import { rng } from '../src/seed/random.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';

/**
 * THE batching test: a deep query over links runs a number of SQL statements set by its depth,
 * never by how many parents each level has. `sql` is the server's own count for the request.
 */

const VALUES = `values { propertyId
  ... on TextValue { text } ... on NumberValue { number } ... on DateValue { start }
  ... on SelectValue { options { id name color } } ... on PeopleValue { users { id name email } } }`;

const DEEP = `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
  projects(first: 100) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node {
    id properties ${VALUES} location { longitude latitude }
    contacts(first: 10) { totalCount edges { linkedAt cursor node {
      id ${VALUES}
      parcels(first: 5) { totalCount edges { linkedAt cursor node { id ${VALUES} } } }
    } } }
  } } }
} } }`;

const made = new WeakMap<TestEnv, ReturnType<typeof makePortfolios>>();
/** Two fresh portfolios of org A, one ten times the other, made once per file; the tests only read them. */
const portfolios = (env: TestEnv) => {
  if (!made.has(env)) made.set(env, makePortfolios(env));
  return made.get(env)!;
};

async function makePortfolios(env: TestEnv) {
  const db = env.database.db;
  const org = env.demo.orgs.A.id;
  const people = [env.demo.users.alice.uid, env.demo.users.bob.uid];
  const small = await createPortfolio(db, org, 'Ten projects');
  const large = await createPortfolio(db, org, 'A hundred projects');
  await seedPortfolio(db, rng(7), org, small.id, people, [-100, 34], {
    projects: 10,
    parcels: 40,
    contacts: 20,
  });
  await seedPortfolio(db, rng(8), org, large.id, people, [-99, 34], {
    projects: 100,
    parcels: 400,
    contacts: 200,
  });
  return { org, small: small.id, large: large.id };
}

async function run(env: TestEnv, org: string, pf: string) {
  const r = await env.as.alice.gql(DEEP, { org, pf });
  expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
  expect(Number.isInteger(r.sql)).toBe(true);
  return r;
}

describe('statement count of nested link queries', () => {
  test('projects(first: 100) → contacts(first: 10) → parcels(first: 5): the same count for 10 and 100 projects', async ({
    env,
  }) => {
    const { org, small, large } = await portfolios(env);
    // Warm the per-org caches (schemas, user lists) so both runs are measured alike.
    await run(env, org, small);
    const s = await run(env, org, small);
    const l = await run(env, org, large);
    const projects = (r: typeof s) =>
      r.body.data.organization.portfolio.projects.edges.map((e: any) => e.node);
    expect(projects(s)).toHaveLength(10);
    expect(projects(l)).toHaveLength(100);
    // Every level is populated in both, so no level is skipped in the small one.
    for (const r of [s, l]) {
      const contacts = projects(r).flatMap((p: any) => p.contacts.edges.map((e: any) => e.node));
      const parcels = contacts.flatMap((c: any) => c.parcels.edges.map((e: any) => e.node));
      expect(contacts.length).toBeGreaterThan(0);
      expect(parcels.length).toBeGreaterThan(0);
      const withPeople = (xs: any[]) => xs.filter((x) => x.values.some((v: any) => v.users?.length)).length;
      const withSelect = (xs: any[]) => xs.filter((x) => x.values.some((v: any) => v.options?.length)).length;
      for (const level of [projects(r), contacts, parcels]) {
        expect(withPeople(level)).toBeGreaterThan(0);
        expect(withSelect(level)).toBeGreaterThan(0);
      }
    }
    expect(l.sql).toBe(s.sql);
    // Three list levels below the portfolio, each costing a page, a count and a property-schema
    // statement (9), plus the key, the portfolio and the users of people values: 12 today.
    expect(l.sql).toBeLessThanOrEqual(3 * 3 + 5);
  });

  test('each parent got exactly its own page in the large query', async ({ env }) => {
    const { org, large } = await portfolios(env);
    const r = await run(env, org, large);
    const db = env.database.db;
    const { rows } = await sql<{ parent: string; n: number }>`
      select project_id as parent, count(*)::int as n from project_contacts where org_id = ${org} and portfolio_id = ${large}
      group by 1`.execute(db);
    const pc = new Map(rows.map((x) => [x.parent, x.n]));
    const cp = new Map(
      (
        await sql<{ parent: string; n: number }>`
          select contact_id as parent, count(*)::int as n from parcel_contacts where org_id = ${org} and portfolio_id = ${large}
          group by 1`.execute(db)
      ).rows.map((x) => [x.parent, x.n]),
    );
    const sizes = new Set<number>();
    for (const { node: p } of r.body.data.organization.portfolio.projects.edges) {
      expect(p.contacts.edges).toHaveLength(Math.min(10, pc.get(p.id) ?? 0));
      expect(p.contacts.totalCount).toBe(pc.get(p.id) ?? 0);
      for (const { node: c } of p.contacts.edges) {
        expect(c.parcels.edges).toHaveLength(Math.min(5, cp.get(c.id) ?? 0));
        expect(c.parcels.totalCount).toBe(cp.get(c.id) ?? 0);
        sizes.add(c.parcels.edges.length);
      }
    }
    // Short and full pages both occurred, and some contact has more parcels than its page holds.
    expect(sizes.has(0) && sizes.has(5)).toBe(true);
    expect([...cp.values()].some((n) => n > 5)).toBe(true);
  });

  test('every REST link list is a constant number of statements, whatever its size', async ({ env }) => {
    const { org, large } = await portfolios(env);
    const db = env.database.db;
    const { rows } = await sql<{ id: string; n: number }>`
      select project_id as id, count(*)::int as n from project_parcels where org_id = ${org} and portfolio_id = ${large}
      group by 1 order by 2 desc limit 1`.execute(db);
    const q = { orgId: org, portfolioId: large };
    const big = await env.as.alice.get(`/projects/v1/${rows[0].id}/parcels`, q);
    const one = await env.as.alice.get(`/projects/v1/${rows[0].id}/parcels`, { ...q, limit: 1 });
    expect(big.body.items.length).toBe(rows[0].n);
    expect(rows[0].n).toBeGreaterThan(3);
    // key, portfolio, parent, page, schema, users (skipped when the page names no people).
    expect(big.sql).toBeLessThanOrEqual(6);
    expect(big.sql - one.sql).toBeLessThanOrEqual(1);
  });
});
