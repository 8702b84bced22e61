import { sql } from 'kysely';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { linkedIds } from './records-helpers.js';

/** Link connections over GraphQL: exact per-parent pages, Relay paging both ways, totalCount, mutations. */

type LinkTable = 'project_contacts' | 'parcel_contacts' | 'project_parcels';

/** Every link of a table in the API's order, (linked_at, child id), grouped by parent. */
async function linksByParent(env: TestEnv, table: LinkTable, parentCol: string, childCol: string) {
  const { rows } = await sql<{ parent: string; child: string; linked_at: Date }>`
    select ${sql.ref(parentCol)} as parent, ${sql.ref(childCol)} as child, linked_at from ${sql.table(table)}
    where org_id in (${env.demo.orgs.A.id}, ${env.demo.orgs.B.id})
    order by ${sql.ref(parentCol)}, linked_at, ${sql.ref(childCol)}`.execute(env.database.db);
  const m = new Map<string, { child: string; linkedAt: string }[]>();
  for (const r of rows) {
    if (!m.has(r.parent)) m.set(r.parent, []);
    m.get(r.parent)!.push({ child: r.child, linkedAt: r.linked_at.toISOString() });
  }
  return m;
}

const A = (env: TestEnv) => ({ org: env.demo.orgs.A.id, pf: env.demo.orgs.A.portfolios.A1 });

async function gqlOk(env: TestEnv, who: keyof TestEnv['as'], query: string, variables?: object) {
  const r = await env.as[who].gql(query, variables as Record<string, unknown>);
  expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
  expect(r.status).toBe(200);
  return r.body.data;
}

describe('nested link connections give every parent its own exact page', () => {
  test('portfolio → projects → contacts(first: 2) and parcels(first: 3), checked against the database', async ({
    env,
  }) => {
    const data = await gqlOk(
      env,
      'bob',
      `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
        projects(first: 100) { edges { node { id
          contacts(first: 2) { totalCount pageInfo { hasNextPage hasPreviousPage }
            edges { linkedAt cursor node { id } } }
          parcels(first: 3) { totalCount pageInfo { hasNextPage } edges { linkedAt node { id } } }
        } } }
      } } }`,
      A(env),
    );
    const contacts = await linksByParent(env, 'project_contacts', 'project_id', 'contact_id');
    const parcels = await linksByParent(env, 'project_parcels', 'project_id', 'parcel_id');
    const projects = data.organization.portfolio.projects.edges.map((e: any) => e.node);
    expect(projects.length).toBe(50);
    const sizes = new Set<number>();
    for (const p of projects) {
      const want = contacts.get(p.id) ?? [];
      expect(p.contacts.totalCount).toBe(want.length);
      expect(p.contacts.edges.length).toBe(Math.min(2, want.length));
      expect(p.contacts.edges.map((e: any) => ({ child: e.node.id, linkedAt: e.linkedAt }))).toEqual(
        want.slice(0, 2),
      );
      expect(p.contacts.pageInfo).toEqual({ hasNextPage: want.length > 2, hasPreviousPage: false });
      for (const e of p.contacts.edges) expect(e.cursor).toEqual(expect.any(String));
      sizes.add(p.contacts.edges.length);

      const wantParcels = parcels.get(p.id) ?? [];
      expect(p.parcels.totalCount).toBe(wantParcels.length);
      expect(p.parcels.edges.map((e: any) => e.node.id)).toEqual(wantParcels.slice(0, 3).map((w) => w.child));
      expect(p.parcels.pageInfo.hasNextPage).toBe(wantParcels.length > 3);
    }
    // The demo gives projects 1 to 4 contacts: both short and full pages were checked.
    expect(sizes).toEqual(new Set([1, 2]));
    expect(projects.filter((p: any) => p.parcels.totalCount === 0).length).toBe(3);
  });

  test('contacts → projects and parcels, parcels → contacts and projects, one level deeper', async ({
    env,
  }) => {
    const data = await gqlOk(
      env,
      'alice',
      `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
        contacts(first: 100) { edges { node { id
          projects(first: 1) { totalCount edges { node { id } } }
          parcels(first: 1) { totalCount edges { node { id
            contacts(first: 2) { totalCount edges { node { id } } }
            projects(first: 2) { totalCount edges { node { id } } }
          } } }
        } } }
      } } }`,
      A(env),
    );
    const cp = await linksByParent(env, 'project_contacts', 'contact_id', 'project_id');
    const cpar = await linksByParent(env, 'parcel_contacts', 'contact_id', 'parcel_id');
    const parc = await linksByParent(env, 'parcel_contacts', 'parcel_id', 'contact_id');
    const parp = await linksByParent(env, 'project_parcels', 'parcel_id', 'project_id');
    const contacts = data.organization.portfolio.contacts.edges.map((e: any) => e.node);
    expect(contacts.length).toBe(100);
    let deep = 0;
    for (const c of contacts) {
      const ids = (conn: any) => conn.edges.map((e: any) => e.node.id);
      const first = (m: Map<string, { child: string }[]>, id: string, n: number) =>
        (m.get(id) ?? []).slice(0, n).map((x) => x.child);
      expect(c.projects.totalCount).toBe(cp.get(c.id)?.length ?? 0);
      expect(ids(c.projects)).toEqual(first(cp, c.id, 1));
      expect(c.parcels.totalCount).toBe(cpar.get(c.id)?.length ?? 0);
      expect(ids(c.parcels)).toEqual(first(cpar, c.id, 1));
      for (const parcel of c.parcels.edges.map((e: any) => e.node)) {
        deep++;
        expect(parcel.contacts.totalCount).toBe(parc.get(parcel.id)!.length);
        expect(ids(parcel.contacts)).toEqual(first(parc, parcel.id, 2));
        expect(ids(parcel.projects)).toEqual(first(parp, parcel.id, 2));
        expect(parcel.projects.totalCount).toBe(1);
      }
    }
    expect(deep).toBeGreaterThan(20);
  });

  test('the same parent asked for twice with different page sizes gets each page', async ({ env }) => {
    const data = await gqlOk(
      env,
      'alice',
      `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
        projects(first: 50) { edges { node { id
          one: parcels(first: 1) { edges { node { id } } }
          all: parcels(first: 10) { edges { node { id } } }
          tail: parcels(last: 1) { edges { node { id } } }
        } } }
      } } }`,
      A(env),
    );
    const parcels = await linksByParent(env, 'project_parcels', 'project_id', 'parcel_id');
    for (const { node: p } of data.organization.portfolio.projects.edges) {
      const want = (parcels.get(p.id) ?? []).map((x) => x.child);
      expect(p.one.edges.map((e: any) => e.node.id)).toEqual(want.slice(0, 1));
      expect(p.all.edges.map((e: any) => e.node.id)).toEqual(want.slice(0, 10));
      expect(p.tail.edges.map((e: any) => e.node.id)).toEqual(want.slice(-1));
    }
  });
});

describe('Relay paging over one link list', () => {
  async function contactWithManyParcels(env: TestEnv) {
    const { rows } = await sql<{ contact_id: string }>`
      select contact_id from parcel_contacts where org_id = ${A(env).org} and portfolio_id = ${A(env).pf}
      group by contact_id order by count(*) desc, contact_id limit 1`.execute(env.database.db);
    const id = rows[0].contact_id;
    const all = (await linksByParent(env, 'parcel_contacts', 'contact_id', 'parcel_id')).get(id)!;
    expect(all.length).toBeGreaterThanOrEqual(5);
    return { id, all: all.map((x) => x.child) };
  }

  const PAGE = `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
    contact(id: $id) { parcels(first: $first, after: $after, last: $last, before: $before) {
      totalCount edges { cursor linkedAt node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;

  test('first/after walks forward, last/before walks backward, both see every link once', async ({ env }) => {
    const { id, all } = await contactWithManyParcels(env);
    const fwd: string[] = [];
    let after: string | null = null;
    for (;;) {
      const c: any = (await gqlOk(env, 'bob', PAGE, { id, first: 2, after })).contact.parcels;
      expect(c.totalCount).toBe(all.length);
      fwd.push(...c.edges.map((e: any) => e.node.id));
      expect(c.pageInfo.startCursor).toBe(c.edges[0]?.cursor ?? null);
      expect(c.pageInfo.endCursor).toBe(c.edges.at(-1)?.cursor ?? null);
      expect(c.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(fwd).toEqual(all);

    const back: string[] = [];
    let before: string | null = null;
    for (;;) {
      const c: any = (await gqlOk(env, 'bob', PAGE, { id, last: 2, before })).contact.parcels;
      back.unshift(...c.edges.map((e: any) => e.node.id));
      expect(c.pageInfo.hasNextPage).toBe(before !== null);
      if (!c.pageInfo.hasPreviousPage) break;
      before = c.pageInfo.startCursor;
    }
    expect(back).toEqual(all);
  });

  test('an edge cursor resumes right after (or before) that edge', async ({ env }) => {
    const { id, all } = await contactWithManyParcels(env);
    const c: any = (await gqlOk(env, 'bob', PAGE, { id, first: all.length })).contact.parcels;
    const cursors = c.edges.map((e: any) => e.cursor);
    for (let i = 0; i < all.length; i++) {
      const next: any = (await gqlOk(env, 'bob', PAGE, { id, first: 1, after: cursors[i] })).contact.parcels;
      expect(next.edges.map((e: any) => e.node.id)).toEqual(all.slice(i + 1, i + 2));
      const prev: any = (await gqlOk(env, 'bob', PAGE, { id, last: 1, before: cursors[i] })).contact.parcels;
      expect(prev.edges.map((e: any) => e.node.id)).toEqual(i === 0 ? [] : [all[i - 1]]);
    }
  });

  test('first: 0 gives no edges but a totalCount; bad arguments and foreign cursors are 400', async ({
    env,
  }) => {
    const { id, all } = await contactWithManyParcels(env);
    const zero: any = (await gqlOk(env, 'bob', PAGE, { id, first: 0 })).contact.parcels;
    expect(zero.edges).toEqual([]);
    expect(zero.totalCount).toBe(all.length);
    for (const vars of [{ first: -1 }, { first: 5001 }, { first: 1, last: 1 }, { after: 'nonsense' }]) {
      const r = await env.as.bob.gql(PAGE, { id, ...vars });
      expect(r.body.data, JSON.stringify(vars)).toEqual({ contact: null });
      expect(['VALIDATION_FAILED', 'INVALID_CURSOR']).toContain(r.body.errors[0].extensions.code);
    }
    // A cursor of one contact's list is not valid on another contact's list.
    const other = (
      await env.database.db
        .selectFrom('parcel_contacts')
        .select('contact_id')
        .where('org_id', '=', env.demo.orgs.A.id)
        .where('contact_id', '!=', id)
        .where('portfolio_id', '=', A(env).pf)
        .executeTakeFirstOrThrow()
    ).contact_id;
    const cursor =
      zero.pageInfo.endCursor ??
      (await gqlOk(env, 'bob', PAGE, { id, first: 1 })).contact.parcels.pageInfo.endCursor;
    const r = await env.as.bob.gql(PAGE, { id: other, first: 1, after: cursor });
    expect(r.body.data).toEqual({ contact: null });
    expect(r.body.errors[0].extensions.code).toBe('INVALID_CURSOR');
  });
});

describe('link mutations', () => {
  async function fresh(env: TestEnv) {
    const { org, pf } = A(env);
    const d = await gqlOk(
      env,
      'alice',
      `mutation($p: CreateRecordInput!, $c: CreateRecordInput!) {
        p: createProject(input: $p) { project { id } } c: createContact(input: $c) { contact { id } } }`,
      {
        p: { orgId: org, portfolioId: pf, properties: { name: { text: 'GQL link' } } },
        c: { orgId: org, portfolioId: pf, properties: { first_name: { text: 'Quinn' } } },
      },
    );
    const parcel = (
      await env.database.db
        .selectFrom('parcels')
        .select('id')
        .where('org_id', '=', env.demo.orgs.A.id)
        .where('portfolio_id', '=', pf)
        .orderBy('id')
        .executeTakeFirstOrThrow()
    ).id;
    return { project: d.p.project.id as string, contact: d.c.contact.id as string, parcel };
  }

  test('linkProjectContact / unlinkProjectContact return both sides, as they are after the write', async ({
    env,
  }) => {
    const { project, contact } = await fresh(env);
    const mutation = (op: string) => `mutation($i: ProjectContactInput!) { ${op}(input: $i) { linked
      project { id contacts { totalCount edges { linkedAt node { id } } } }
      contact { id properties projects { totalCount edges { node { id } } } } } }`;
    const input = { i: { projectId: project, contactId: contact } };
    const l = (await gqlOk(env, 'bob', mutation('linkProjectContact'), input)).linkProjectContact;
    expect(l.linked).toBe(true);
    expect(l.project.id).toBe(project);
    expect(l.contact.id).toBe(contact);
    expect(l.contact.properties.first_name).toEqual({ text: 'Quinn' });
    expect(l.project.contacts.totalCount).toBe(1);
    expect(l.project.contacts.edges[0].node.id).toBe(contact);
    expect(Date.parse(l.project.contacts.edges[0].linkedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(l.contact.projects.edges.map((e: any) => e.node.id)).toEqual([project]);
    // Idempotent: the same link again keeps one edge and the original linkedAt.
    const again = (await gqlOk(env, 'bob', mutation('linkProjectContact'), input)).linkProjectContact;
    expect(again.project.contacts.totalCount).toBe(1);
    expect(again.project.contacts.edges[0].linkedAt).toBe(l.project.contacts.edges[0].linkedAt);

    const u = (await gqlOk(env, 'bob', mutation('unlinkProjectContact'), input)).unlinkProjectContact;
    expect(u.linked).toBe(false);
    expect(u.project.contacts).toEqual({ totalCount: 0, edges: [] });
    expect(u.contact.projects).toEqual({ totalCount: 0, edges: [] });
    expect(u.contact.id).toBe(contact);
  });

  test('linkParcelContact / unlinkParcelContact return both sides', async ({ env }) => {
    const { parcel, contact } = await fresh(env);
    const mutation = (op: string) => `mutation($i: ParcelContactInput!) { ${op}(input: $i) { linked
      parcel { id contacts { edges { node { id } } } } contact { id parcels { totalCount edges { node { id } } } } } }`;
    const input = { i: { parcelId: parcel, contactId: contact } };
    const l = (await gqlOk(env, 'bob', mutation('linkParcelContact'), input)).linkParcelContact;
    expect(l.linked).toBe(true);
    expect(l.parcel.id).toBe(parcel);
    expect(l.parcel.contacts.edges.map((e: any) => e.node.id)).toContain(contact);
    expect(l.contact.parcels).toEqual({ totalCount: 1, edges: [{ node: { id: parcel } }] });
    const u = (await gqlOk(env, 'bob', mutation('unlinkParcelContact'), input)).unlinkParcelContact;
    expect(u.linked).toBe(false);
    expect(u.parcel.contacts.edges.map((e: any) => e.node.id)).not.toContain(contact);
    expect(u.contact.parcels).toEqual({ totalCount: 0, edges: [] });
  });

  test('link then unlink in one document: each payload reads the state after its own write', async ({
    env,
  }) => {
    const { project, contact } = await fresh(env);
    const d = await gqlOk(
      env,
      'alice',
      `mutation($i: ProjectContactInput!) {
        a: linkProjectContact(input: $i) { project { contacts { totalCount edges { node { id } } } } }
        b: unlinkProjectContact(input: $i) { project { contacts { totalCount edges { node { id } } } } }
        c: linkProjectContact(input: $i) { contact { projects { totalCount edges { node { id } } } } }
      }`,
      { i: { projectId: project, contactId: contact } },
    );
    expect(d.a.project.contacts).toEqual({ totalCount: 1, edges: [{ node: { id: contact } }] });
    expect(d.b.project.contacts).toEqual({ totalCount: 0, edges: [] });
    expect(d.c.contact.projects).toEqual({ totalCount: 1, edges: [{ node: { id: project } }] });
  });

  test('two creates in one document: the second payload lists both (lists are not cached across writes)', async ({
    env,
  }) => {
    // The portfolio list of A2 is read twice in one request; the second read must see the second write.
    const { org } = A(env);
    const pf = env.demo.orgs.A.portfolios.A2;
    const input = (n: string) => ({ orgId: org, portfolioId: pf, properties: { first_name: { text: n } } });
    const q = `contact { id portfolio { contacts(last: 1) { totalCount edges { node { id } } } } }`;
    const d = await gqlOk(
      env,
      'alice',
      `mutation($a: CreateRecordInput!, $b: CreateRecordInput!) {
        a: createContact(input: $a) { ${q} } b: createContact(input: $b) { ${q} } }`,
      { a: input('First'), b: input('Second') },
    );
    const [a, b] = [d.a.contact, d.b.contact];
    expect(a.portfolio.contacts.edges).toEqual([{ node: { id: a.id } }]);
    expect(b.portfolio.contacts.edges).toEqual([{ node: { id: b.id } }]);
    expect(b.portfolio.contacts.totalCount).toBe(a.portfolio.contacts.totalCount + 1);
  });

  test('errors: empty contactId 400, other portfolio or tenant 404, read-only 403; nothing is linked', async ({
    env,
  }) => {
    const { project } = await fresh(env);
    const M = `mutation($i: ProjectContactInput!) { linkProjectContact(input: $i) { linked } }`;
    const inA2 = (
      await gqlOk(
        env,
        'alice',
        `mutation($c: CreateRecordInput!) { createContact(input: $c) { contact { id } } }`,
        {
          c: {
            orgId: env.demo.orgs.A.id,
            portfolioId: env.demo.orgs.A.portfolios.A2,
            properties: { first_name: { text: 'Far' } },
          },
        },
      )
    ).createContact.contact.id;
    const inB = (
      await env.database.db
        .selectFrom('contacts')
        .select('id')
        .where('org_id', '=', env.demo.orgs.B.id)
        .executeTakeFirstOrThrow()
    ).id;
    const cases: [keyof TestEnv['as'], unknown, string][] = [
      ['alice', '', 'VALIDATION_FAILED'],
      ['alice', '  ', 'VALIDATION_FAILED'],
      ['alice', inA2, 'NOT_FOUND'],
      ['alice', inB, 'NOT_FOUND'],
      ['alice', 'con_nope', 'NOT_FOUND'],
      ['vera', (await fresh(env)).contact, 'FORBIDDEN'],
      ['nora', inB, 'NOT_FOUND'],
    ];
    for (const [who, contactId, code] of cases) {
      const r = await env.as[who].gql(M, { i: { projectId: project, contactId } });
      expect(r.body.errors?.[0]?.extensions?.code, `${who} ${contactId}`).toBe(code);
      expect(r.body.data).toBeNull();
    }
    expect(await linkedIds(env, 'project_contacts', project)).toEqual([]);
  });
});
