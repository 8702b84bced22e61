import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { type DemoOutput, seedDemo } from '../src/seed/demo.js';
import { openTestDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';

/**
 * Read routing with two pools on the same server, each counting the statements it runs: the quick
 * check that runs wherever Postgres does. The real hot standby (replication, lag, outage) is
 * test/standby.test.ts.
 */
const pgUrl = process.env.DATABASE_URL;
let primary: Database;
let replica: Database;
let demo: DemoOutput;
/** An app over both pools, and alice's client of it; `q` names portfolio A1. */
let app: Awaited<ReturnType<typeof buildApp>> | undefined;
let api: ReturnType<typeof client>;
let q: { orgId: string; portfolioId: string };

beforeAll(async () => {
  if (!pgUrl) return;
  primary = await openTestDatabase();
  demo = await seedDemo(primary.db);
  // A second pool on the very same database stands in for the replica.
  const { rows } = await sql<{ db: string }>`select current_database() as db`.execute(primary.db);
  const u = new URL(pgUrl);
  u.pathname = `/${rows[0].db}`;
  replica = await createDatabase({ url: u.toString(), poolSize: 4 });
  app = await buildApp({ database: primary, readDatabase: replica });
  api = client(app, demo.users.alice.apiKey);
  q = { orgId: demo.orgs.A.id, portfolioId: demo.orgs.A.portfolios.A1 };
});
afterAll(async () => {
  await app?.close();
  await replica?.close();
  await primary?.close();
});

/** How many statements `fn` ran on each pool. */
async function delta(fn: () => Promise<unknown>) {
  const counts = () => ({ primary: primary.stats.statements, replica: replica.stats.statements });
  const before = counts();
  await fn();
  const after = counts();
  return { primary: after.primary - before.primary, replica: after.replica - before.replica };
}

test.skipIf(!pgUrl)(
  'REST GETs and GraphQL queries read from the read pool; writes and everything in them use the primary',
  async () => {
    const { A } = demo.orgs;

    // The first requests fill the per-org caches (schemas, users, portfolios) from the primary,
    // by design: a lagging replica must never fill them. Measure warm requests.
    await api.get('/projects/v1', q);
    await api.gql('query($id: ID!) { organization(id: $id) { portfolios { id } } }', { id: A.id });
    // A REST read: only the key lookup (on the primary, so revocation is immediate) touches it.
    const get = await delta(async () => expect((await api.get('/projects/v1', q)).status).toBe(200));
    expect(get.primary).toBeLessThanOrEqual(1);
    expect(get.replica).toBeGreaterThanOrEqual(1);

    const query = await delta(async () =>
      expect(
        (
          await api.gql(
            'query($id: ID!) { organization(id: $id) { portfolios { projects(first: 5) { totalCount edges { node { values { propertyId } } } } } } }',
            { id: A.id },
          )
        ).body.errors,
      ).toBeUndefined(),
    );
    expect(query.primary).toBeLessThanOrEqual(1);
    expect(query.replica).toBeGreaterThanOrEqual(1);

    // Writes, and the reads inside them (validation, the returned record), stay on the primary.
    const post = await delta(async () =>
      expect(
        (
          await api.post(
            '/projects/v1',
            { properties: { name: { text: 'Primary only' }, owner: { people: [demo.users.bob.uid] } } },
            q,
          )
        ).status,
      ).toBe(200),
    );
    expect(post.replica).toBe(0);
    expect(post.primary).toBeGreaterThanOrEqual(2); // the key lookup and the insert; validation reads come from the cache

    const mutation = await delta(async () =>
      expect(
        (
          await api.gql(
            'mutation($i: CreateRecordInput!) { createContact(input: $i) { contact { id values { propertyId } portfolio { name } } } }',
            { i: { ...q, properties: { first_name: { text: 'Pat' } } } },
          )
        ).body.errors,
      ).toBeUndefined(),
    );
    expect(mutation.replica).toBe(0);
  },
);

test.skipIf(!pgUrl)(
  'a cache miss reads the primary: after an org version bump, the replica runs only the page',
  async () => {
    const { A } = demo.orgs;
    const page = () => delta(async () => expect((await api.get('/projects/v1', q)).status).toBe(200));
    await page();
    const warm = await page();
    // Any change to the org's schema, members or portfolios bumps its version: every cache misses.
    await sql`update org_versions set version = version + 1 where org_id = ${A.id}`.execute(primary.db);
    const cold = await page();
    // The reloads (schemas, users, portfolios) ran on the primary; the replica ran the page alone.
    expect(cold.replica).toBe(warm.replica);
    expect(cold.primary).toBeGreaterThan(warm.primary);
  },
);

test.skipIf(pgUrl)('read routing needs Postgres: run with DATABASE_URL (npm run test:pg)', () => {});
