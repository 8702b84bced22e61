import { sql } from 'kysely';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import type { Res } from './helpers/http.js';

/**
 * Links under concurrency. On Postgres the requests really run at the same time on a pool of
 * connections; PGlite has one connection, so there they interleave statement by statement.
 */

const scope = (env: TestEnv) => ({ orgId: env.demo.orgs.A.id, portfolioId: env.demo.orgs.A.portfolios.A1 });

async function create(env: TestEnv, kind: 'projects' | 'contacts', n: number): Promise<string[]> {
  const props = (i: number) =>
    kind === 'projects' ? { name: { text: `Race ${i}` } } : { first_name: { text: `Racer ${i}` } };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await env.as.alice.post(`/${kind}/v1`, { properties: props(i) }, scope(env));
    expect(r.status).toBe(200);
    out.push(r.body.id);
  }
  return out;
}

async function pairRows(env: TestEnv, project: string, contact: string) {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from project_contacts
    where org_id = ${env.demo.orgs.A.id} and project_id = ${project} and contact_id = ${contact}`.execute(
    env.database.db,
  );
  return rows[0].n;
}

/** Link rows whose project, parcel or contact is gone; the foreign keys must make this always 0. */
async function orphans(env: TestEnv): Promise<number> {
  // Cross-tenant on purpose: an orphan anywhere is a defect.
  const { rows } = await sql<{ n: number }>`
    /* sdg:cross-tenant */ select
      (select count(*) from project_contacts l where not exists (select 1 from projects p where p.org_id = l.org_id and p.id = l.project_id)
        or not exists (select 1 from contacts c where c.org_id = l.org_id and c.id = l.contact_id))
    + (select count(*) from parcel_contacts l where not exists (select 1 from parcels p where p.org_id = l.org_id and p.id = l.parcel_id)
        or not exists (select 1 from contacts c where c.org_id = l.org_id and c.id = l.contact_id))
    + (select count(*) from project_parcels l where not exists (select 1 from projects p where p.org_id = l.org_id and p.id = l.project_id)
        or not exists (select 1 from parcels c where c.org_id = l.org_id and c.id = l.parcel_id))
    as n`.execute(env.database.db);
  return Number(rows[0].n);
}

const statuses = (rs: Res[]) => rs.map((r) => r.status);
const noServerErrors = (rs: Res[]) => {
  const bad = rs.filter((r) => r.status >= 500);
  expect(
    bad.map((r) => r.body),
    'no 5xx',
  ).toEqual([]);
};

describe('concurrent link and unlink of one pair', () => {
  test('many simultaneous links of the same pair: all 200, exactly one row', async ({ env }) => {
    const s = scope(env);
    const [project] = await create(env, 'projects', 1);
    const contacts = await create(env, 'contacts', 3);
    for (const contact of contacts) {
      const rs = await Promise.all(
        Array.from({ length: 25 }, () =>
          env.as.bob.post(`/projects/v1/${project}/contacts`, { contactId: contact }, s),
        ),
      );
      noServerErrors(rs);
      expect(new Set(statuses(rs))).toEqual(new Set([200]));
      expect(await pairRows(env, project, contact)).toBe(1);
    }
    const list = await env.as.bob.get(`/projects/v1/${project}/contacts`, s);
    expect(list.body.items.map((i: { id: string }) => i.id).sort()).toEqual([...contacts].sort());
  });

  test('interleaved links and unlinks end with one row or none, never two, never a 5xx', async ({ env }) => {
    const s = scope(env);
    const [project] = await create(env, 'projects', 1);
    const [contact] = await create(env, 'contacts', 1);
    const link = () => env.as.bob.post(`/projects/v1/${project}/contacts`, { contactId: contact }, s);
    const unlink = () => env.as.bob.delete(`/projects/v1/${project}/contacts/${contact}`, s);
    for (let round = 0; round < 12; round++) {
      // A different mix each round; the last call decides nothing, since all race.
      const ops = Array.from({ length: 20 }, (_, i) => ((i * 7 + round) % 3 === 0 ? unlink : link));
      const rs = await Promise.all(ops.map((op) => op()));
      noServerErrors(rs);
      expect(new Set(statuses(rs))).toEqual(new Set([200]));
      const n = await pairRows(env, project, contact);
      expect(n).toBeLessThanOrEqual(1);
      // The API agrees with the table.
      const api = await env.as.bob.get(`/projects/v1/${project}/contacts`, s);
      expect(api.body.items.length).toBe(n);
    }
  });

  test('the same race through GraphQL mutations', async ({ env }) => {
    const [project] = await create(env, 'projects', 1);
    const [contact] = await create(env, 'contacts', 1);
    const input = { i: { projectId: project, contactId: contact } };
    const op = (name: string) => () =>
      env.as.alice.gql(`mutation($i: ProjectContactInput!) { ${name}(input: $i) { linked } }`, input);
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) => op(i % 2 ? 'linkProjectContact' : 'unlinkProjectContact')()),
    );
    noServerErrors(rs);
    for (const r of rs) expect(r.body.errors).toBeUndefined();
    expect(await pairRows(env, project, contact)).toBeLessThanOrEqual(1);
  });
});

describe('deletes racing links leave no orphan link rows', () => {
  test('DELETE contact at the same moment as POST link of it: link is 200 or 404, and no orphan', async ({
    env,
  }) => {
    const s = scope(env);
    const projects = await create(env, 'projects', 3);
    const contacts = await create(env, 'contacts', 12);
    const results: number[] = [];
    for (const contact of contacts) {
      const rs = await Promise.all([
        ...projects.map((p) => env.as.bob.post(`/projects/v1/${p}/contacts`, { contactId: contact }, s)),
        env.as.bob.delete(`/contacts/v1/${contact}`, s),
        ...projects.map((p) => env.as.bob.post(`/projects/v1/${p}/contacts`, { contactId: contact }, s)),
      ]);
      noServerErrors(rs);
      const del = rs[projects.length];
      expect(del.status).toBe(200);
      for (const r of rs.filter((_, i) => i !== projects.length)) {
        expect([200, 404]).toContain(r.status);
        results.push(r.status);
      }
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from project_contacts where org_id = ${s.orgId} and contact_id = ${contact}`.execute(
        env.database.db,
      );
      expect(rows[0].n, 'links of a deleted contact').toBe(0);
    }
    expect(await orphans(env)).toBe(0);
    // The contact is gone: any later link is a plain 404.
    const late = await env.as.bob.post(`/projects/v1/${projects[0]}/contacts`, { contactId: contacts[0] }, s);
    expect(late.status).toBe(404);
    // Links made before the delete won, as did links refused after it.
    expect(results).toContain(404);
  });

  test('DELETE project at the same moment as links to it: no orphan, contacts stay', async ({ env }) => {
    const s = scope(env);
    const projects = await create(env, 'projects', 8);
    const contacts = await create(env, 'contacts', 4);
    for (const project of projects) {
      const rs = await Promise.all([
        ...contacts.map((c) => env.as.bob.post(`/projects/v1/${project}/contacts`, { contactId: c }, s)),
        env.as.bob.delete(`/projects/v1/${project}`, s),
        ...contacts.map((c) => env.as.bob.delete(`/projects/v1/${project}/contacts/${c}`, s)),
      ]);
      noServerErrors(rs);
      for (const r of rs) expect([200, 404]).toContain(r.status);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from project_contacts where org_id = ${s.orgId} and project_id = ${project}`.execute(
        env.database.db,
      );
      expect(rows[0].n).toBe(0);
    }
    expect(await orphans(env)).toBe(0);
    const left = await env.database.db
      .selectFrom('contacts')
      .select('id')
      .where('org_id', '=', env.demo.orgs.A.id)
      .where('id', 'in', contacts)
      .execute();
    expect(left).toHaveLength(contacts.length);
  });

  test('DELETE contact racing parcel links: no orphan parcel_contacts row', async ({ env }) => {
    const s = scope(env);
    const parcels = (
      await env.database.db
        .selectFrom('parcels')
        .select('id')
        .where('org_id', '=', env.demo.orgs.A.id)
        .where('portfolio_id', '=', s.portfolioId)
        .orderBy('id')
        .limit(4)
        .execute()
    ).map((r) => r.id);
    const contacts = await create(env, 'contacts', 8);
    for (const contact of contacts) {
      const rs = await Promise.all([
        ...parcels.map((p) => env.as.bob.post(`/parcels/v1/${p}/contacts`, { contactId: contact }, s)),
        env.as.bob.delete(`/contacts/v1/${contact}`, s),
        ...parcels.map((p) => env.as.bob.post(`/parcels/v1/${p}/contacts`, { contactId: contact }, s)),
      ]);
      noServerErrors(rs);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from parcel_contacts where org_id = ${s.orgId} and contact_id = ${contact}`.execute(
        env.database.db,
      );
      expect(rows[0].n).toBe(0);
    }
    expect(await orphans(env)).toBe(0);
  });
});
