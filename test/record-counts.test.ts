import { sql } from 'kysely';
import type { RecordKind } from '../src/db/types.js';
import { onCitus } from './helpers/citus.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { freshPortfolio, INSPECT, insertRecords, PLURAL, type Scope } from './records-helpers.js';
import { box, declare, upsert } from './sync-helpers.js';

/**
 * A portfolio's kept record count (migration 0013), the size behind a plain `totalCount` and the
 * base of a filtered count's estimate: every writer moves it, the gateway's and a direct insert's,
 * concurrent creates included; a plain totalCount reads it; on Citus none is kept and the records
 * are counted.
 */

const KINDS: RecordKind[] = ['project', 'parcel', 'contact'];

const TOTALS = `query T($orgId: ID!, $portfolioId: ID!) { organization(id: $orgId) { portfolio(id: $portfolioId) {
  projects(first: 1) { totalCount } parcels(first: 1) { totalCount } contacts(first: 1) { totalCount } } } }`;

async function totals(env: TestEnv, scope: Scope): Promise<Record<RecordKind, number>> {
  const r = await env.as.alice.gql(TOTALS, scope);
  expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
  const p = r.body.data.organization.portfolio;
  return { project: p.projects.totalCount, parcel: p.parcels.totalCount, contact: p.contacts.totalCount };
}

/** The records as they are, and the kept counts (none on Citus), straight from the tables. */
async function stored(env: TestEnv, scope: Scope) {
  const db = env.database.db;
  const rows: Record<RecordKind, number> = { project: 0, parcel: 0, contact: 0 };
  for (const kind of KINDS) {
    const { rows: r } = await sql<{
      n: number;
    }>`${INSPECT} select count(*)::int as n from ${sql.table(PLURAL[kind])}
      where org_id = ${scope.orgId} and portfolio_id = ${scope.portfolioId}`.execute(db);
    rows[kind] = r[0].n;
  }
  const { rows: kept } = await sql<{ kind: RecordKind; n: number }>`
    select kind, sum(n)::int as n from record_counts where org_id = ${scope.orgId} and portfolio_id = ${scope.portfolioId}
    group by kind`.execute(db);
  return { rows, kept: Object.fromEntries(kept.map((k) => [k.kind, k.n])) };
}

/** totalCount answers the rows, and so does the kept count wherever one is kept. */
async function expectCounts(env: TestEnv, scope: Scope, want: Record<RecordKind, number>) {
  const { rows, kept } = await stored(env, scope);
  expect(rows).toEqual(want);
  expect(await totals(env, scope)).toEqual(want);
  if (onCitus) expect(kept).toEqual({});
  else for (const kind of KINDS) expect(kept[kind] ?? 0).toBe(want[kind]);
}

const createProject = `mutation ($input: CreateRecordInput!) { createProject(input: $input) { project { id } userErrors { message } } }`;
const deleteContact = `mutation ($input: DeleteRecordInput!) { deleteContact(input: $input) { deletedId } }`;

describe('kept record counts', () => {
  test('follow every writer: creates, bulk upserts, deletes, a direct insert and concurrent creates', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    await declare(env.as.alice, scope, 'crm');
    await expectCounts(env, scope, { project: 0, parcel: 0, contact: 0 });

    // The gateway's writers: GraphQL and REST creates, and a bulk upsert (created, then unchanged).
    const projects: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await env.as.alice.gql(createProject, {
        input: { ...scope, properties: { name: { text: `P${i}` } } },
      });
      projects.push(r.body.data.createProject.project.id);
    }
    const contact = await env.as.alice.post(
      '/contacts/v1',
      { properties: { first_name: { text: 'Ada' } } },
      scope,
    );
    expect(contact.status).toBe(200);
    const parcels = [0, 1, 2, 3, 4].map((i) => ({
      externalId: `p${i}`,
      properties: {},
      geometry: box(i, i),
    }));
    expect((await upsert(env.as.alice, 'parcel', scope, parcels)).p.created).toBe(5);
    expect((await upsert(env.as.alice, 'parcel', scope, parcels)).p.unchanged).toBe(5);
    await expectCounts(env, scope, { project: 3, parcel: 5, contact: 1 });

    // Deletes, by REST and GraphQL.
    expect((await env.as.alice.delete(`/projects/v1/${projects[0]}`, scope)).status).toBe(200);
    const gone = await env.as.alice.gql(deleteContact, { input: { ...scope, id: contact.body.id } });
    expect(gone.body.data.deleteContact.deletedId).toBe(contact.body.id);
    await expectCounts(env, scope, { project: 2, parcel: 5, contact: 0 });

    // A writer outside the gateway's code paths (a seed, a bulk load).
    await insertRecords(env, 'parcel', scope, [{}, {}, {}]);
    await expectCounts(env, scope, { project: 2, parcel: 8, contact: 0 });

    // Twenty creates at once in one portfolio: none is lost to another.
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        env.as.alice.gql(createProject, { input: { ...scope, properties: { name: { text: `C${i}` } } } }),
      ),
    );
    expect(created.every((r) => r.body.data?.createProject.project.id)).toBe(true);
    await expectCounts(env, scope, { project: 22, parcel: 8, contact: 0 });

    // Rows deleted outside the gateway, as a portfolio's or an org's cascade deletes them.
    await sql`${INSPECT} delete from parcels where org_id = ${scope.orgId} and portfolio_id = ${scope.portfolioId}`.execute(
      env.database.db,
    );
    await expectCounts(env, scope, { project: 22, parcel: 0, contact: 0 });

    // The portfolio itself deleted: its records go by cascade, and their count with them.
    await sql`delete from portfolios where org_id = ${scope.orgId} and id = ${scope.portfolioId}`.execute(
      env.database.db,
    );
    const { rows, kept } = await stored(env, scope);
    expect(rows).toEqual({ project: 0, parcel: 0, contact: 0 });
    for (const kind of KINDS) expect(kept[kind] ?? 0).toBe(0);
  });

  test.skipIf(onCitus)('a plain totalCount is read from the kept count, not counted', async ({ env }) => {
    const scope = await freshPortfolio(env);
    await insertRecords(env, 'contact', scope, [
      { first_name: { text: 'A' } },
      { first_name: { text: 'B' } },
    ]);
    expect((await totals(env, scope)).contact).toBe(2);
    // A stripe of its own (the triggers use 0 to 15), added and taken away again.
    const db = env.database.db;
    await sql`insert into record_counts (org_id, portfolio_id, kind, stripe, n)
      values (${scope.orgId}, ${scope.portfolioId}, 'contact', 99, 1000)`.execute(db);
    expect((await totals(env, scope)).contact).toBe(1002);
    await sql`delete from record_counts where org_id = ${scope.orgId} and portfolio_id = ${scope.portfolioId}
      and stripe = 99`.execute(db);
    expect((await totals(env, scope)).contact).toBe(2);
  });

  test.skipIf(onCitus)(
    'a TRUNCATE of a record table empties its counts, and counting starts again',
    async ({ env }) => {
      const scope = await freshPortfolio(env);
      await insertRecords(env, 'contact', scope, [{ first_name: { text: 'A' } }]);
      await sql`truncate contacts cascade`.execute(env.database.db);
      await expectCounts(env, scope, { project: 0, parcel: 0, contact: 0 });
      await insertRecords(env, 'contact', scope, [{ first_name: { text: 'B' } }]);
      await expectCounts(env, scope, { project: 0, parcel: 0, contact: 1 });
    },
  );

  test.runIf(onCitus)('on Citus none is kept: the records are counted', async ({ env }) => {
    const scope = await freshPortfolio(env);
    await insertRecords(env, 'contact', scope, [{ first_name: { text: 'A' } }]);
    expect((await stored(env, scope)).kept).toEqual({});
    expect((await totals(env, scope)).contact).toBe(1);
  });
});
