import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { CROSS_TENANT } from '../src/db/tenant-guard.js';
import type { DB } from '../src/db/types.js';
import { createApiKey } from '../src/modules/auth/repository.js';
import { addMember, createUser } from '../src/modules/org/repository.js';
import { DEFAULT_WEBHOOKS, WebhookDispatcher } from '../src/modules/webhooks/dispatcher.js';
import { insertEndpoint } from '../src/modules/webhooks/repository.js';
import { onCitus } from './helpers/citus.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { client } from './helpers/http.js';
import { startReceiver } from './helpers/receiver.js';

const COORDINATOR_ONLY =
  /^select (bool_and\(pg_advisory_xact_lock\(|pg_notify\(\$1, o\) from unnest|pg_current_xact_id\(\)|pg_snapshot_xmin\()/;

/**
 * On a Citus cluster (`npm run test:citus`): every statement a request runs is a single-task router
 * query (EXPLAIN shows one task, no subplans, no repartition), for each REST route and a set of
 * GraphQL operations. The one exception is node(id) without an org, listed in docs/scaling.md.
 * Elsewhere the file reports itself skipped: there is no cluster to ask.
 */
interface Sent {
  text: string;
  values: unknown[];
}
const sent: Sent[] = [];
const original = pg.Client.prototype.query;
beforeAll(() => {
  // Every statement the app sends goes through pg.Client#query (pool connections included).
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [q, v] = args as [string | { text?: string; values?: unknown[] }, unknown[] | undefined];
    const text = typeof q === 'string' ? q : q?.text;
    if (text) sent.push({ text, values: (typeof q === 'string' ? v : q.values) ?? [] });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
});
afterAll(() => {
  pg.Client.prototype.query = original;
});

const CONTROL = /^\s*(begin|commit|rollback|set|show|select 1\b|savepoint|release)/i;

interface Tasks {
  sql: string;
  tasks: number[];
  subplans: number;
  repartition: boolean;
}

/** EXPLAIN of each statement: the task count of every distributed scan in it. */
async function explainAll(db: pg.Pool, statements: Sent[]): Promise<Tasks[]> {
  const out: Tasks[] = [];
  for (const s of statements) {
    if (CONTROL.test(s.text)) continue;
    let rows: { 'QUERY PLAN': unknown }[];
    try {
      ({ rows } = await db.query(`explain (format json) ${s.text}`, s.values));
    } catch (err) {
      out.push({
        sql: `${(err as Error).message}: ${s.text.replace(/\s+/g, ' ').slice(0, 160)}`,
        tasks: [],
        subplans: 0,
        repartition: false,
      });
      continue;
    }
    const plan = rows[0]['QUERY PLAN'];
    const tasks: number[] = [];
    let subplans = 0;
    let repartition = false;
    const walk = (n: unknown) => {
      if (Array.isArray(n)) return n.forEach(walk);
      if (!n || typeof n !== 'object') return;
      for (const [k, v] of Object.entries(n)) {
        if (k === 'Task Count') tasks.push(Number(v));
        if (k === 'Subplans' && Array.isArray(v)) subplans += v.length;
        if (k === 'Distributed Subplan' || /repartition/i.test(String(v)))
          repartition ||= k !== 'Distributed Subplan';
        walk(v);
      }
    };
    walk(plan);
    out.push({ sql: s.text.replace(/\s+/g, ' ').slice(0, 160), tasks, subplans, repartition });
  }
  return out;
}

describe.runIf(onCitus)('on Citus, a request that names one org runs single-shard router queries', () => {
  let pool: pg.Pool | undefined;
  afterAll(async () => {
    await pool?.end();
  });

  /** Runs one request, then EXPLAINs what it sent (on the test file's own database). */
  async function routed(run: () => Promise<{ status: number }>) {
    sent.length = 0;
    const r = await run();
    return { status: r.status, plans: sent.splice(0) };
  }

  /** A pool on the file's own database (the fixture's pool is on it), for EXPLAIN. */
  async function explainPool(db: Kysely<DB>): Promise<pg.Pool> {
    if (pool) return pool;
    const { rows } = await sql<{ db: string }>`select current_database() as db`.execute(db);
    const dbUrl = new URL(process.env.DATABASE_URL!);
    dbUrl.pathname = `/${rows[0].db}`;
    pool = new pg.Pool({ connectionString: dbUrl.toString(), max: 1 });
    return pool;
  }

  /** Failures of one set of statements: not one task, or not distributed and not coordinator-only. */
  function unrouted(name: string, explained: Tasks[]): string[] {
    const failures: string[] = [];
    for (const e of explained) {
      // Statements on no table run on the coordinator alone: the per-record advisory locks of a
      // write (taken there on Citus, see docs/scaling.md), the NOTIFY doorbell. Nothing else may.
      if (e.tasks.length === 0 && !COORDINATOR_ONLY.test(e.sql))
        failures.push(`${name}: not a distributed plan: ${e.sql}`);
      if (e.tasks.some((t) => t !== 1) || e.subplans || e.repartition)
        failures.push(`${name}: tasks ${e.tasks.join('+')} subplans ${e.subplans}: ${e.sql}`);
    }
    return failures;
  }

  test('every REST route and GraphQL operation: one task per statement', async ({ env }) => {
    await explainPool(env.database.db);

    const { A } = env.demo.orgs;
    const pf = A.portfolios.A1;
    const q = { orgId: A.id, portfolioId: pf };
    const alice = env.as.alice;
    // Warm the key's last_used stamp and the org caches, so every request below is a warm one.
    await alice.get('/organizations/v1');

    // A project with parcels, and a contact, of A1.
    const { rows: pp } = await sql<{ project_id: string; parcel_id: string }>`
      select project_id, parcel_id from project_parcels where org_id = ${A.id} and portfolio_id = ${pf} limit 1`.execute(
      env.database.db,
    );
    const { rows: cc } = await sql<{ id: string }>`
      select id from contacts where org_id = ${A.id} and portfolio_id = ${pf} limit 1`.execute(
      env.database.db,
    );
    const proj = pp[0].project_id;
    const parcel = pp[0].parcel_id;
    const contact = cc[0].id;
    const doomedProject = (await alice.post('/projects/v1', { properties: { name: { text: 'Doomed' } } }, q))
      .body.id;
    const doomedContact = (
      await alice.post('/contacts/v1', { properties: { first_name: { text: 'Doomed' } } }, q)
    ).body.id;

    const requests: [string, () => Promise<{ status: number }>][] = [
      ['GET /organizations/v1', () => alice.get('/organizations/v1')],
      ['GET /portfolios/v1', () => alice.get('/portfolios/v1', { orgId: A.id })],
      ['GET /users/v1', () => alice.get('/users/v1', { orgId: A.id })],
      ['GET /projects/v1/schema', () => alice.get('/projects/v1/schema', { orgId: A.id })],
      ['GET /contacts/v1/schema', () => alice.get('/contacts/v1/schema', { orgId: A.id })],
      ['GET /parcels/v1/schema', () => alice.get('/parcels/v1/schema', { orgId: A.id })],
      ['GET /projects/v1', () => alice.get('/projects/v1', { ...q, limit: '100' })],
      ['GET /contacts/v1', () => alice.get('/contacts/v1', { ...q, limit: '100' })],
      ['GET /projects/v1/:id/contacts', () => alice.get(`/projects/v1/${proj}/contacts`, q)],
      ['GET /projects/v1/:id/parcels', () => alice.get(`/projects/v1/${proj}/parcels`, q)],
      ['GET /parcels/v1/:id/contacts', () => alice.get(`/parcels/v1/${parcel}/contacts`, q)],
      ['GET /parcels/v1/:id/projects', () => alice.get(`/parcels/v1/${parcel}/projects`, q)],
      ['GET /contacts/v1/:id/projects', () => alice.get(`/contacts/v1/${contact}/projects`, q)],
      ['GET /contacts/v1/:id/parcels', () => alice.get(`/contacts/v1/${contact}/parcels`, q)],
      [
        'POST /projects/v1/:id/contacts',
        () => alice.post(`/projects/v1/${proj}/contacts`, { contactId: contact }, q),
      ],
      [
        'DELETE /projects/v1/:id/contacts/:cid',
        () => alice.delete(`/projects/v1/${proj}/contacts/${contact}`, q),
      ],
      [
        'POST /parcels/v1/:id/contacts',
        () => alice.post(`/parcels/v1/${parcel}/contacts`, { contactId: contact }, q),
      ],
      [
        'DELETE /parcels/v1/:id/contacts/:cid',
        () => alice.delete(`/parcels/v1/${parcel}/contacts/${contact}`, q),
      ],
      [
        'PUT /parcels/v1/:id',
        () => alice.put(`/parcels/v1/${parcel}`, { properties: { apn: { text: 'R-1' } } }, q),
      ],
      [
        'PUT /projects/v1/:id',
        () => alice.put(`/projects/v1/${proj}`, { properties: { name: { text: 'Routed' } } }, q),
      ],
      [
        'POST /projects/v1',
        () => alice.post('/projects/v1', { properties: { name: { text: 'Routed new' } } }, q),
      ],
      [
        'POST /contacts/v1',
        () => alice.post('/contacts/v1', { properties: { first_name: { text: 'Rou' } } }, q),
      ],
      ['DELETE /projects/v1/:id', () => alice.delete(`/projects/v1/${doomedProject}`, q)],
      ['DELETE /contacts/v1/:id', () => alice.delete(`/contacts/v1/${doomedContact}`, q)],
      [
        'GraphQL link and unlink mutations',
        () =>
          alice.gql(
            `mutation ($l: ProjectContactInput!) { a: linkProjectContact(input: $l) { linked } b: unlinkProjectContact(input: $l) { linked } }`,
            { l: { ...q, projectId: proj, contactId: contact } },
          ),
      ],
      [
        'GraphQL node(id) of a user in one org',
        () =>
          alice.gql('query ($id: ID!) { node(id: $id) { id ... on Project { name: properties } } }', {
            id: proj,
          }),
      ],
      [
        'GraphQL nested portfolio → projects → contacts → parcels',
        () =>
          alice.gql(
            `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) { projects(first: 20) { totalCount edges { node { id values { propertyId } location { latitude } contacts(first: 5) { edges { linkedAt node { id properties parcels(first: 3) { edges { node { id } } } } } } } } } } } }`,
            { o: A.id, p: pf },
          ),
      ],
      [
        'GraphQL filter, orderBy, search, facets',
        () =>
          alice.gql(
            `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) { parcels(first: 10, filter: { property: { id: "acreage", number: { gt: 1 } } }, orderBy: [{ property: "acreage", direction: DESC }], search: "a") { totalCount facets(propertyId: "parcel-status") { value count } edges { node { id } } } } } }`,
            { o: A.id, p: pf },
          ),
      ],
      [
        'GraphQL aggregates and grouped aggregates (issue 41)',
        () =>
          alice.gql(
            `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
              parcels(first: 0, filter: { property: { id: "acreage", number: { gt: 1 } } }) {
                aggregates { count sum(field: ACRES) max(propertyId: "acreage") minTime(field: CREATED_AT) }
                groupedAggregates(groupBy: [{ propertyId: "parcel-status" }, { field: CREATED_AT, bucket: MONTH }], orderBy: { by: SUM, field: ACRES, direction: DESC }) {
                  totalGroups groups { keys { value } aggregates { count sum(field: ACRES) } } } }
              projects(first: 5) { edges { node { contacts(first: 1) { aggregates { count } } } } } } } }`,
            { o: A.id, p: pf },
          ),
      ],
      // Sync (issue 40): a batch for one org is router queries, whether it creates, updates or finds
      // nothing changed, and so are its idempotency key, its links and the reads of external ids.
      [
        'GraphQL registerExternalSource',
        () =>
          alice.gql(
            `mutation ($i: RegisterExternalSourceInput!) { registerExternalSource(input: $i) { sources } }`,
            {
              i: { orgId: A.id, name: 'router' },
            },
          ),
      ],
      ...[0, 1, 2].map((round): [string, () => Promise<{ status: number }>] => [
        `GraphQL upsertParcels, round ${round} (create, then unchanged, then one updated)`,
        () =>
          alice.gql(
            `mutation ($i: UpsertRecordsInput!) { upsertParcels(input: $i) { created updated unchanged failed } }`,
            {
              i: {
                ...q,
                source: 'router',
                idempotencyKey: `router-${round}`,
                items: [0, 1, 2].map((k) => ({
                  externalId: `r${k}`,
                  properties: { name: { text: round === 2 && k === 0 ? 'changed' : `r${k}` } },
                  geometry: {
                    type: 'Polygon',
                    coordinates: [
                      [
                        [k, 0],
                        [k + 0.001, 0],
                        [k + 0.001, 0.001],
                        [k, 0.001],
                        [k, 0],
                      ],
                    ],
                  },
                })),
              },
            },
          ),
      ]),
      [
        'GraphQL upsertContacts, then linkRecords and unlinkRecords by external id',
        async () => {
          await alice.gql(`mutation ($i: UpsertRecordsInput!) { upsertContacts(input: $i) { created } }`, {
            i: {
              ...q,
              source: 'router',
              items: [{ externalId: 'rc', properties: { first_name: { text: 'R' } } }],
            },
          });
          const pairs = [{ from: { externalId: 'r0' }, to: { externalId: 'rc' } }];
          await alice.gql(`mutation ($i: BulkLinkInput!) { linkRecords(input: $i) { changed } }`, {
            i: { ...q, type: 'PARCEL_CONTACT', source: 'router', pairs },
          });
          return alice.gql(`mutation ($i: BulkLinkInput!) { unlinkRecords(input: $i) { changed } }`, {
            i: { ...q, type: 'PARCEL_CONTACT', source: 'router', pairs },
          });
        },
      ],
      [
        'GraphQL externalIds, recordByExternalId and the externalId filter',
        () =>
          alice.gql(
            `query ($o: ID!, $p: ID!) { recordByExternalId(orgId: $o, source: "router", externalId: "r1") { id }
              organization(id: $o) { portfolio(id: $p) {
                parcels(first: 5, filter: { externalId: { source: "router", id: "r2" } }) { nodes { id externalIds { source id } } } } } }`,
            { o: A.id, p: pf },
          ),
      ],
    ];
    const failures: string[] = [];
    const report: string[] = [];
    for (const [name, run] of requests) {
      const { status, plans } = await routed(run);
      if (status >= 400) failures.push(`${name}: HTTP ${status}`);
      const explained = await explainAll(pool!, plans);
      report.push(`${name}: ${explained.map((e) => e.tasks.join('+') || '0').join(', ')}`);
      failures.push(...unrouted(name, explained));
    }
    console.log(`tasks per statement, per request:\n${report.join('\n')}`);
    expect(failures).toEqual([]);

    // The exception: node(id) for a user of two orgs does not know the org, so it asks the shards of
    // both (org_id in (A, B)). Measured here: its tasks, and its time against the routed form.
    const { B } = env.demo.orgs;
    const both = await createUser(env.database.db, 'two-orgs@example.com', 'Two Orgs');
    await addMember(env.database.db, A.id, both.id, 'viewer');
    await addMember(env.database.db, B.id, both.id, 'viewer');
    const key = (await createApiKey(env.database.db, both.id)).apiKey;
    const two = client(env.app, key);
    const nodeQuery = 'query ($id: ID!) { node(id: $id) { id } }';
    const scoped = `query ($o: ID!, $p: ID!, $id: ID!) { organization(id: $o) { portfolio(id: $p) { project(id: $id) { id } } } }`;
    await two.gql(nodeQuery, { id: proj });
    const { plans } = await routed(() => two.gql(nodeQuery, { id: proj }));
    const explained = await explainAll(pool!, plans);
    const nodeTasks = Math.max(...explained.flatMap((e) => e.tasks));
    const sameShard = (
      await sql<{ same: boolean }>`
      select get_shard_id_for_distribution_column('projects', ${A.id}::text) = get_shard_id_for_distribution_column('projects', ${B.id}::text) as same`.execute(
        env.database.db,
      )
    ).rows[0].same;
    expect(nodeTasks).toBe(sameShard ? 1 : 2);
    const time = async (run: () => Promise<unknown>) => {
      const t0 = performance.now();
      for (let i = 0; i < 50; i++) await run();
      return (performance.now() - t0) / 50;
    };
    const nodeMs = await time(() => two.gql(nodeQuery, { id: proj }));
    const scopedMs = await time(() => two.gql(scoped, { o: A.id, p: pf, id: proj }));
    console.log(
      `node(id) for a user of 2 orgs: ${nodeTasks} tasks; ${nodeMs.toFixed(1)} ms per request against ${scopedMs.toFixed(1)} ms for the org-scoped project(id) (50 each, sequential)`,
    );
  });

  test('a webhook round: after its one list of orgs across tenants, one task per statement', async ({
    env,
  }) => {
    const explain = await explainPool(env.database.db);
    const { A } = env.demo.orgs;
    const q = { orgId: A.id, portfolioId: A.portfolios.A1 };
    const rx = await startReceiver();
    const dispatcher = new WebhookDispatcher(
      env.database.db,
      { ...DEFAULT_WEBHOOKS, allowPrivateTargets: true, timeoutMs: 5_000 },
      { info: () => {}, warn: () => {} },
    );
    try {
      await insertEndpoint(env.database.db, {
        orgId: A.id,
        url: rx.url,
        events: ['project.updated'],
        portfolioIds: null,
        secret: 'whsec_router_test',
        createdBy: null,
      });
      const project = (await env.as.alice.get('/projects/v1', { ...q, limit: '1' })).body.items[0].id;
      const put = await env.as.alice.put(
        `/projects/v1/${project}`,
        { properties: { name: { text: 'Announced' } } },
        q,
      );
      expect(put.status).toBe(200);
      // Rounds until the delivery is acknowledged (a round reads only entries older than every
      // running transaction, so the first may find nothing); every statement of them is checked.
      sent.length = 0;
      const end = Date.now() + 60_000;
      while (rx.acked().length < 1 && Date.now() < end) await dispatcher.drain();
      expect(rx.acked().length).toBe(1);
      const statements = sent.splice(0);
      const explained = await explainAll(explain, statements);
      // The list of orgs with an enabled endpoint is the one read across tenants (docs/scaling.md).
      const orgList = explained.filter((e) =>
        e.sql.includes('select distinct org_id from webhook_endpoints'),
      );
      expect(orgList.length).toBeGreaterThan(0);
      for (const e of orgList) expect(e.sql).toContain(CROSS_TENANT);
      const rest = explained.filter((e) => !orgList.includes(e));
      // Fan-out, claim and the delivery's outcome all ran, on one shard each.
      for (const table of ['webhook_deliveries', 'change_log'])
        expect(
          statements.some((st) => st.text.includes(table)),
          table,
        ).toBe(true);
      console.log(`webhook round: ${explained.map((e) => e.tasks.join('+') || '0').join(', ')}`);
      expect(unrouted('webhook round', rest)).toEqual([]);
    } finally {
      await dispatcher.stop();
      await rx.close();
    }
  });
});
