import { sql } from 'kysely';
import { importParcels } from '../src/modules/imports/index.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { features, square, TRIANGLE } from './helpers/geo.js';
import { linkedIds, stored } from './records-helpers.js';

/** REST v1 link endpoints: every path, the link rules, 405 on project–parcel writes, paging over links. */

type Env = TestEnv;
const scopeOf = (env: Env, pf: 'A1' | 'A2' = 'A1') => ({
  orgId: env.demo.orgs.A.id,
  portfolioId: env.demo.orgs.A.portfolios[pf],
});

async function newProject(env: Env, name: string, pf: 'A1' | 'A2' = 'A1'): Promise<string> {
  const r = await env.as.alice.post(
    '/projects/v1',
    { properties: { name: { text: name } } },
    scopeOf(env, pf),
  );
  expect(r.status).toBe(200);
  return r.body.id;
}

async function newContact(env: Env, first: string, pf: 'A1' | 'A2' = 'A1'): Promise<string> {
  const r = await env.as.alice.post(
    '/contacts/v1',
    { properties: { first_name: { text: first } } },
    scopeOf(env, pf),
  );
  expect(r.status).toBe(200);
  return r.body.id;
}

/** Parcels can only come from cadastral data: import one small square. */
async function newParcel(env: Env, pf: 'A1' | 'A2' = 'A1'): Promise<string> {
  const s = scopeOf(env, pf);
  const res = await importParcels(
    env.database.db,
    {
      type: 'FeatureCollection',
      features: [{ type: 'Feature', geometry: square(-101.8, 33.5, 0.01), properties: {} }],
    },
    s,
  );
  return res.created[0];
}

const linkRows = (env: Env, table: 'project_contacts' | 'parcel_contacts', parent: string) =>
  linkedIds(env, table, parent);

const ids = (body: { items: { id: string }[] }) => body.items.map((i) => i.id);
/** A REST properties map without the `labels` reads add. */
const withoutLabels = (properties: Record<string, Record<string, unknown>>) =>
  Object.fromEntries(Object.entries(properties).map(([k, { labels: _, ...v }]) => [k, v]));

describe('project–contact and parcel–contact links over REST', () => {
  for (const kind of ['projects', 'parcels'] as const) {
    const table = kind === 'projects' ? 'project_contacts' : 'parcel_contacts';
    const back = kind === 'projects' ? 'projects' : 'parcels';

    test(`${kind}: POST links, both sides list it, DELETE unlinks and keeps both records`, async ({
      env,
    }) => {
      const s = scopeOf(env);
      const parent = kind === 'projects' ? await newProject(env, 'Link target') : await newParcel(env);
      const contact = await newContact(env, 'Linda');
      const other = kind === 'projects' ? await newProject(env, 'Other target') : await newParcel(env);

      const link = await env.as.bob.post(`/${kind}/v1/${parent}/contacts`, { contactId: contact }, s);
      expect(link.status).toBe(200);
      expect(link.raw).toBe('');
      expect((await env.as.bob.post(`/${kind}/v1/${other}/contacts`, { contactId: contact }, s)).status).toBe(
        200,
      );

      const fwd = await env.as.bob.get(`/${kind}/v1/${parent}/contacts`, s);
      expect(fwd.status).toBe(200);
      expect(fwd.body).toEqual({ items: [expect.objectContaining({ id: contact })], nextKey: null });
      expect(Object.keys(fwd.body.items[0]).sort()).toEqual(['created_at', 'id', 'properties', 'updated_at']);
      expect(fwd.body.items[0].properties.first_name).toEqual({ text: 'Linda' });

      const rev = await env.as.bob.get(`/contacts/v1/${contact}/${back}`, s);
      expect(rev.status).toBe(200);
      expect(new Set(ids(rev.body))).toEqual(new Set([parent, other]));

      const un = await env.as.bob.delete(`/${kind}/v1/${parent}/contacts/${contact}`, s);
      expect(un.status).toBe(200);
      expect(un.raw).toBe('');
      expect(await linkRows(env, table, parent)).toEqual([]);
      // Only the link went: the contact is still in the portfolio and still linked to `other`.
      expect(
        (await env.as.bob.get(`/contacts/v1/${contact}/${back}`, s)).body.items.map((i: any) => i.id),
      ).toEqual([other]);
      expect(await linkRows(env, table, other)).toEqual([contact]);
      const list = await env.as.bob.get('/contacts/v1', { ...s, limit: 5000 });
      expect(ids(list.body)).toContain(contact);
    });

    test(`${kind}: linking a linked pair answers 200 and keeps one row`, async ({ env }) => {
      const s = scopeOf(env);
      const parent = kind === 'projects' ? await newProject(env, 'Twice') : await newParcel(env);
      const contact = await newContact(env, 'Tess');
      for (let i = 0; i < 3; i++) {
        const r = await env.as.alice.post(`/${kind}/v1/${parent}/contacts`, { contactId: contact }, s);
        expect(r.status).toBe(200);
      }
      expect(await linkRows(env, table, parent)).toEqual([contact]);
      expect((await env.as.alice.get(`/${kind}/v1/${parent}/contacts`, s)).body.items).toHaveLength(1);
    });

    test(`${kind}: unlinking a pair that is not linked answers 200 and changes nothing`, async ({ env }) => {
      const s = scopeOf(env);
      const parent = kind === 'projects' ? await newProject(env, 'Never linked') : await newParcel(env);
      const contact = await newContact(env, 'Nell');
      const linked = await newContact(env, 'Lou');
      await env.as.alice.post(`/${kind}/v1/${parent}/contacts`, { contactId: linked }, s);
      const r = await env.as.alice.delete(`/${kind}/v1/${parent}/contacts/${contact}`, s);
      expect(r.status).toBe(200);
      expect(r.raw).toBe('');
      expect(await linkRows(env, table, parent)).toEqual([linked]);
      // Twice in a row too.
      expect((await env.as.alice.delete(`/${kind}/v1/${parent}/contacts/${linked}`, s)).status).toBe(200);
      expect((await env.as.alice.delete(`/${kind}/v1/${parent}/contacts/${linked}`, s)).status).toBe(200);
      expect(await linkRows(env, table, parent)).toEqual([]);
    });

    test(`${kind}: contactId must be a non-empty string (400, nothing linked)`, async ({ env }) => {
      const s = scopeOf(env);
      const parent = kind === 'projects' ? await newProject(env, 'Bad input') : await newParcel(env);
      const contact = await newContact(env, 'Vic');
      const bad: unknown[] = [
        { contactId: 123 },
        { contactId: '' },
        { contactId: '   ' },
        {},
        { contactId: null },
        { contactId: [contact] },
        { contactId: { id: contact } },
        { contactId: true },
        { contactId: contact, extra: 1 },
        [contact],
        JSON.stringify('just a string'),
      ];
      for (const body of bad) {
        const r = await env.as.alice.post(`/${kind}/v1/${parent}/contacts`, body, s);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error.code).toBe('VALIDATION_FAILED');
      }
      const numeric = await env.as.alice.post(`/${kind}/v1/${parent}/contacts`, { contactId: 123 }, s);
      expect(numeric.body.error.details).toEqual([
        { field: 'contactId', reason: expect.stringMatching(/non-empty string/) },
      ]);
      const noBody = await env.as.alice.send('POST', `/${kind}/v1/${parent}/contacts`, {
        query: s,
        headers: { 'content-type': 'application/json' },
      });
      expect(noBody.status).toBe(400);
      const broken = await env.as.alice.send('POST', `/${kind}/v1/${parent}/contacts`, {
        query: s,
        body: '{"contactId": ',
      });
      expect(broken.status).toBe(400);
      expect(await linkRows(env, table, parent)).toEqual([]);
    });

    test(`${kind}: a contact of another portfolio or tenant, or none at all, is 404 and links nothing`, async ({
      env,
    }) => {
      const s = scopeOf(env);
      const parent = kind === 'projects' ? await newProject(env, 'Cross') : await newParcel(env);
      const inA2 = await newContact(env, 'Ada', 'A2');
      const inB = (
        await env.as.nora.post(
          '/contacts/v1',
          { properties: { first_name: { text: 'Bea' } } },
          { orgId: env.demo.orgs.B.id, portfolioId: env.demo.orgs.B.portfolios.B1 },
        )
      ).body.id as string;
      expect(inB).toMatch(/^con_/);
      const project = await newProject(env, 'Not a contact');
      for (const contactId of [inA2, inB, 'con_doesnotexist000000000', project]) {
        const r = await env.as.alice.post(`/${kind}/v1/${parent}/contacts`, { contactId }, s);
        expect(r.status, contactId).toBe(404);
        expect(r.body.error.code).toBe('NOT_FOUND');
        expect(r.body.error.message).not.toMatch(/org_|pf_|Sunfield|Northwind/);
        const u = await env.as.alice.delete(`/${kind}/v1/${parent}/contacts/${contactId}`, s);
        expect(u.status, `unlink ${contactId}`).toBe(404);
      }
      expect(await linkRows(env, table, parent)).toEqual([]);
      // The same contact in another tenant and an id that does not exist answer alike.
      const a = await env.as.alice.post(`/${kind}/v1/${parent}/contacts`, { contactId: inB }, s);
      const b = await env.as.alice.post(
        `/${kind}/v1/${parent}/contacts`,
        { contactId: 'con_doesnotexist000000000' },
        s,
      );
      expect(a.body).toEqual(b.body);
    });

    test(`${kind}: the parent must be reachable and in the named portfolio (404)`, async ({ env }) => {
      const a2Parent =
        kind === 'projects' ? await newProject(env, 'In A2', 'A2') : await newParcel(env, 'A2');
      const a2Contact = await newContact(env, 'Ann', 'A2');
      // Named with the wrong portfolio.
      const wrong = await env.as.alice.post(
        `/${kind}/v1/${a2Parent}/contacts`,
        { contactId: a2Contact },
        scopeOf(env, 'A1'),
      );
      expect(wrong.status).toBe(404);
      // gina is a guest of A1 only: A2 does not exist for her, reads and writes alike.
      const gina = env.as.gina;
      expect(
        (await gina.post(`/${kind}/v1/${a2Parent}/contacts`, { contactId: a2Contact }, scopeOf(env, 'A2')))
          .status,
      ).toBe(404);
      expect((await gina.get(`/${kind}/v1/${a2Parent}/contacts`, scopeOf(env, 'A2'))).status).toBe(404);
      expect((await gina.get(`/contacts/v1/${a2Contact}/${back}`, scopeOf(env, 'A2'))).status).toBe(404);
      // nora (org B) cannot see any of it.
      const asB = { orgId: env.demo.orgs.A.id, portfolioId: env.demo.orgs.A.portfolios.A2 };
      expect((await env.as.nora.get(`/${kind}/v1/${a2Parent}/contacts`, asB)).status).toBe(404);
      expect(
        (await env.as.nora.post(`/${kind}/v1/${a2Parent}/contacts`, { contactId: a2Contact }, asB)).status,
      ).toBe(404);
      expect(await linkRows(env, table, a2Parent)).toEqual([]);
      // A missing parent.
      const none = await env.as.alice.get(`/${kind}/v1/nope/contacts`, scopeOf(env));
      expect(none.status).toBe(404);
    });

    test(`${kind}: the read-only role gets 403 on link and unlink, and can still read`, async ({ env }) => {
      const s = scopeOf(env);
      const parent = kind === 'projects' ? await newProject(env, 'Viewer') : await newParcel(env);
      const contact = await newContact(env, 'Val');
      const r = await env.as.vera.post(`/${kind}/v1/${parent}/contacts`, { contactId: contact }, s);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('FORBIDDEN');
      await env.as.alice.post(`/${kind}/v1/${parent}/contacts`, { contactId: contact }, s);
      expect((await env.as.vera.delete(`/${kind}/v1/${parent}/contacts/${contact}`, s)).status).toBe(403);
      expect(await linkRows(env, table, parent)).toEqual([contact]);
      expect(ids((await env.as.vera.get(`/${kind}/v1/${parent}/contacts`, s)).body)).toEqual([contact]);
    });

    test(`${kind}: the guest can link inside the portfolio granted to them`, async ({ env }) => {
      const s = scopeOf(env);
      const parent = kind === 'projects' ? await newProject(env, 'Guest') : await newParcel(env);
      const contact = await newContact(env, 'Gus');
      expect(
        (await env.as.gina.post(`/${kind}/v1/${parent}/contacts`, { contactId: contact }, s)).status,
      ).toBe(200);
      expect(await linkRows(env, table, parent)).toEqual([contact]);
    });
  }

  test('orgId and portfolioId are required on every link endpoint (400)', async ({ env }) => {
    const { orgId, portfolioId } = scopeOf(env);
    const p = await newProject(env, 'Params');
    const c = await newContact(env, 'Pam');
    const calls = [
      (q: object) => env.as.alice.get(`/projects/v1/${p}/contacts`, q as never),
      (q: object) => env.as.alice.post(`/projects/v1/${p}/contacts`, { contactId: c }, q as never),
      (q: object) => env.as.alice.delete(`/projects/v1/${p}/contacts/${c}`, q as never),
      (q: object) => env.as.alice.get(`/contacts/v1/${c}/projects`, q as never),
      (q: object) => env.as.alice.get(`/contacts/v1/${c}/parcels`, q as never),
      (q: object) => env.as.alice.get(`/projects/v1/${p}/parcels`, q as never),
    ];
    for (const call of calls) {
      for (const q of [{ orgId }, { portfolioId }, {}]) {
        const r = await call(q);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('VALIDATION_FAILED');
      }
    }
    expect(await linkRows(env, 'project_contacts', p)).toEqual([]);
  });

  test('a missing or bad key gets 401 on link endpoints', async ({ env }) => {
    const s = scopeOf(env);
    const p = await newProject(env, 'Anon');
    const c = await newContact(env, 'Ann');
    expect((await env.as.anon.post(`/projects/v1/${p}/contacts`, { contactId: c }, s)).status).toBe(401);
    expect((await env.as.anon.get(`/projects/v1/${p}/contacts`, s)).status).toBe(401);
    expect(await linkRows(env, 'project_contacts', p)).toEqual([]);
  });
});

describe('project–parcel links are read-only', () => {
  test('GET both directions match the link table', async ({ env }) => {
    const s = scopeOf(env);
    const { rows } = await sql<{ project_id: string; n: number }>`
      select project_id, count(*)::int as n from project_parcels
      where org_id = ${s.orgId} and portfolio_id = ${s.portfolioId}
      group by project_id order by n desc, project_id limit 1`.execute(env.database.db);
    const project = rows[0].project_id;
    const expected = await linkedIds(env, 'project_parcels', project);
    const r = await env.as.bob.get(`/projects/v1/${project}/parcels`, s);
    expect(r.status).toBe(200);
    expect(new Set(ids(r.body))).toEqual(new Set(expected));
    // Each item is the whole parcel as stored: its values (plus read labels) and its timestamps.
    for (const item of r.body.items) {
      const row = await stored(env, 'parcel', item.id);
      expect(Object.keys(item)).toEqual(['id', 'properties', 'created_at', 'updated_at']);
      expect(withoutLabels(item.properties)).toEqual(row.properties);
      expect(item.created_at).toBe(row.created_at.toISOString());
      expect(item.updated_at).toBe(row.updated_at.toISOString());
    }
    expect(r.body.items.every((i: { properties: object }) => 'name' in i.properties)).toBe(true);
    const back = await env.as.bob.get(`/parcels/v1/${expected[0]}/projects`, s);
    expect(ids(back.body)).toEqual([project]);
  });

  test('writes get 405 with Allow and the error body, and change nothing', async ({ env }) => {
    const s = scopeOf(env);
    const project = await newProject(env, '405');
    const parcel = await newParcel(env);
    const attempts: [string, string][] = [
      ['POST', `/projects/v1/${project}/parcels`],
      ['PUT', `/projects/v1/${project}/parcels`],
      ['DELETE', `/projects/v1/${project}/parcels`],
      ['PATCH', `/projects/v1/${project}/parcels`],
      ['POST', `/parcels/v1/${parcel}/projects`],
      ['DELETE', `/parcels/v1/${parcel}/projects`],
    ];
    for (const [method, url] of attempts) {
      const r = await env.as.alice.send(method, url, {
        query: s,
        body: { parcelId: parcel, projectId: project },
      });
      expect(r.status, `${method} ${url}`).toBe(405);
      expect(r.headers.allow).toBe('GET');
      expect(r.body.error.code).toBe('METHOD_NOT_ALLOWED');
      expect(r.body.error.message).toMatch(/read-only/);
    }
    expect(await linkedIds(env, 'project_parcels', project)).toEqual([]);
  });

  test('a delete of one project–parcel link by id is refused too (405), not a 404 route', async ({ env }) => {
    const s = scopeOf(env);
    const { rows } = await sql<{ project_id: string; parcel_id: string }>`
      select project_id, parcel_id from project_parcels
      where org_id = ${s.orgId} and portfolio_id = ${s.portfolioId} limit 1`.execute(env.database.db);
    const { project_id, parcel_id } = rows[0];
    for (const url of [
      `/projects/v1/${project_id}/parcels/${parcel_id}`,
      `/parcels/v1/${parcel_id}/projects/${project_id}`,
    ]) {
      const r = await env.as.alice.delete(url, s);
      expect(r.status, url).toBe(405);
      expect(r.body.error.code).toBe('METHOD_NOT_ALLOWED');
      // No method at all is allowed on one project–parcel link: an empty Allow (RFC 9110, 10.2.1).
      expect(r.headers.allow).toBe('');
    }
    const still = await env.database.db
      .selectFrom('project_parcels')
      .select('parcel_id')
      .where('org_id', '=', env.demo.orgs.A.id)
      .where('project_id', '=', project_id)
      .where('parcel_id', '=', parcel_id)
      .execute();
    expect(still).toHaveLength(1);
  });
});

describe('paging over links', () => {
  test('limit and startKey walk every link once, in link order, ending with nextKey null', async ({
    env,
  }) => {
    const s = scopeOf(env);
    const project = await newProject(env, 'Many contacts');
    const contacts: string[] = [];
    for (let i = 0; i < 7; i++) {
      const c = await newContact(env, `Page ${i}`);
      contacts.push(c);
      expect((await env.as.alice.post(`/projects/v1/${project}/contacts`, { contactId: c }, s)).status).toBe(
        200,
      );
    }
    for (const limit of [1, 2, 3, 7, 50]) {
      const seen: string[] = [];
      let startKey: string | undefined;
      let pages = 0;
      do {
        const r = await env.as.alice.get(`/projects/v1/${project}/contacts`, { ...s, limit, startKey });
        expect(r.status).toBe(200);
        expect(r.body.items.length).toBeLessThanOrEqual(limit);
        seen.push(...ids(r.body));
        startKey = r.body.nextKey ?? undefined;
        pages++;
      } while (startKey);
      expect(seen, `limit ${limit}`).toEqual(contacts);
      expect(pages).toBe(Math.max(1, Math.ceil(contacts.length / limit)));
    }
  });

  test('links made in the same millisecond still page without repeats or skips', async ({ env }) => {
    const s = scopeOf(env);
    const contact = await newContact(env, 'Same ms');
    // Link one contact to many demo parcels in one statement: every link_at is equal.
    const parcels = (
      await env.database.db
        .selectFrom('parcels')
        .select('id')
        .where('org_id', '=', env.demo.orgs.A.id)
        .where('portfolio_id', '=', s.portfolioId)
        .limit(23)
        .execute()
    ).map((r) => r.id);
    await sql`
      insert into parcel_contacts (org_id, portfolio_id, parcel_id, contact_id, linked_at)
      select ${s.orgId}, ${s.portfolioId}, id, ${contact}, '2026-01-01T00:00:00.000Z'::timestamptz
      from parcels where org_id = ${s.orgId} and id in (${sql.join(parcels)})`.execute(env.database.db);
    const seen: string[] = [];
    let startKey: string | undefined;
    do {
      const r = await env.as.bob.get(`/contacts/v1/${contact}/parcels`, { ...s, limit: 4, startKey });
      expect(r.status).toBe(200);
      seen.push(...ids(r.body));
      startKey = r.body.nextKey ?? undefined;
    } while (startKey);
    expect(seen).toHaveLength(parcels.length);
    expect(new Set(seen)).toEqual(new Set(parcels));
    expect(seen).toEqual([...parcels].sort());
  });

  test('every link list pages: demo data through all six GET endpoints', async ({ env }) => {
    const s = scopeOf(env);
    const db = env.database.db;
    const one = async (table: 'project_contacts' | 'parcel_contacts' | 'project_parcels', col: string) => {
      const { rows } = await sql<{ id: string; n: number }>`
        select ${sql.ref(col)} as id, count(*)::int as n from ${sql.table(table)}
        where org_id = ${s.orgId} and portfolio_id = ${s.portfolioId} group by 1 order by 2 desc, 1 limit 1`.execute(
        db,
      );
      return rows[0];
    };
    const cases = [
      ['projects', 'contacts', await one('project_contacts', 'project_id')],
      ['contacts', 'projects', await one('project_contacts', 'contact_id')],
      ['parcels', 'contacts', await one('parcel_contacts', 'parcel_id')],
      ['contacts', 'parcels', await one('parcel_contacts', 'contact_id')],
      ['projects', 'parcels', await one('project_parcels', 'project_id')],
      ['parcels', 'projects', await one('project_parcels', 'parcel_id')],
    ] as const;
    for (const [parent, child, { id, n }] of cases) {
      const all = await env.as.bob.get(`/${parent}/v1/${id}/${child}`, { ...s, limit: 5000 });
      expect(all.status).toBe(200);
      expect(all.body.items, `${parent}/${child}`).toHaveLength(n);
      expect(all.body.nextKey).toBeNull();
      const seen: string[] = [];
      let startKey: string | undefined;
      do {
        const r = await env.as.bob.get(`/${parent}/v1/${id}/${child}`, { ...s, limit: 1, startKey });
        seen.push(...ids(r.body));
        startKey = r.body.nextKey ?? undefined;
      } while (startKey);
      expect(seen, `${parent}/${child}`).toEqual(ids(all.body));
    }
  });

  test('bad limit or startKey is 400; a startKey from another list is 400', async ({ env }) => {
    const s = scopeOf(env);
    const p1 = await newProject(env, 'K1');
    const p2 = await newProject(env, 'K2');
    for (const p of [p1, p2]) {
      for (let i = 0; i < 2; i++) {
        const c = await newContact(env, `K${i}`);
        await env.as.alice.post(`/projects/v1/${p}/contacts`, { contactId: c }, s);
      }
    }
    for (const limit of ['0', '5001', '-1', 'abc', '1.5']) {
      const r = await env.as.alice.get(`/projects/v1/${p1}/contacts`, { ...s, limit });
      expect(r.status, limit).toBe(400);
    }
    const key = (await env.as.alice.get(`/projects/v1/${p1}/contacts`, { ...s, limit: 1 })).body.nextKey;
    expect(key).toEqual(expect.any(String));
    const replay = await env.as.alice.get(`/projects/v1/${p2}/contacts`, { ...s, limit: 1, startKey: key });
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe('INVALID_CURSOR');
    const forged = await env.as.alice.get(`/projects/v1/${p1}/contacts`, { ...s, startKey: 'garbage' });
    expect(forged.status).toBe(400);
  });
});

describe('deleting records removes their links', () => {
  test('deleting a project removes its contact links; the contacts and their other links stay', async ({
    env,
  }) => {
    const s = scopeOf(env);
    const doomed = await newProject(env, 'Doomed');
    const keeper = await newProject(env, 'Keeper');
    const c = await newContact(env, 'Cleo');
    for (const p of [doomed, keeper])
      expect((await env.as.alice.post(`/projects/v1/${p}/contacts`, { contactId: c }, s)).status).toBe(200);
    expect((await env.as.alice.delete(`/projects/v1/${doomed}`, s)).status).toBe(200);
    expect(await linkRows(env, 'project_contacts', doomed)).toEqual([]);
    expect(ids((await env.as.alice.get(`/contacts/v1/${c}/projects`, s)).body)).toEqual([keeper]);
    // A link to the deleted project cannot be made any more.
    const late = await env.as.alice.post(`/projects/v1/${doomed}/contacts`, { contactId: c }, s);
    expect(late.status).toBe(404);
    expect((await env.as.alice.get(`/projects/v1/${doomed}/contacts`, s)).status).toBe(404);
  });

  test('deleting a project removes its parcel links; the parcels stay', async ({ env }) => {
    const s = scopeOf(env);
    const project = await newProject(env, 'With parcels');
    const res = await importParcels(env.database.db, features({ geometry: TRIANGLE }), {
      ...s,
      projectId: project,
    });
    const parcel = res.created[0];
    expect(ids((await env.as.alice.get(`/parcels/v1/${parcel}/projects`, s)).body)).toEqual([project]);
    expect((await env.as.alice.delete(`/projects/v1/${project}`, s)).status).toBe(200);
    const r = await env.as.alice.get(`/parcels/v1/${parcel}/projects`, s);
    expect(r.body).toEqual({ items: [], nextKey: null });
  });

  test('deleting a contact removes its links; the projects and parcels stay', async ({ env }) => {
    const s = scopeOf(env);
    const p = await newProject(env, 'Loses contact');
    const parcel = await newParcel(env);
    const c = await newContact(env, 'Gone');
    const c2 = await newContact(env, 'Stays');
    for (const contactId of [c, c2]) {
      await env.as.alice.post(`/projects/v1/${p}/contacts`, { contactId }, s);
      await env.as.alice.post(`/parcels/v1/${parcel}/contacts`, { contactId }, s);
    }
    expect((await env.as.alice.delete(`/contacts/v1/${c}`, s)).status).toBe(200);
    expect(await linkRows(env, 'project_contacts', p)).toEqual([c2]);
    expect(await linkRows(env, 'parcel_contacts', parcel)).toEqual([c2]);
    expect((await env.as.alice.post(`/projects/v1/${p}/contacts`, { contactId: c }, s)).status).toBe(404);
    expect((await env.as.alice.delete(`/projects/v1/${p}/contacts/${c}`, s)).status).toBe(404);
  });
});
