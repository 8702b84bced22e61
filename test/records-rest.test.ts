import { sql } from 'kysely';
import { CLI_ACTOR } from '../src/modules/changes/types.js';
import { linkParcelsToProject } from '../src/modules/links/repository.js';
import { insertRecord } from '../src/modules/records/repository.js';
import { DEFAULT_PROPERTIES } from '../src/modules/schema/service.js';
import { DEMO_PROPERTIES } from '../src/seed/schema.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import {
  a1,
  countIn,
  freshOrg,
  freshPortfolio,
  INSPECT,
  ISO_MS,
  insertRecords,
  type Scope,
  stored,
} from './records-helpers.js';

/**
 * The REST v1 record endpoints: schema shape, record shape, create/update/delete responses, the
 * parcel 405s, atomic and concurrent writes, delete cascading to links only, and each role's rights.
 */

const createProject = (env: TestEnv, name: string, scope: Scope = a1(env), who: 'alice' | 'bob' = 'alice') =>
  env.as[who].post('/projects/v1', { properties: { name: { text: name } } }, scope);
const createContact = (env: TestEnv, first: string, scope: Scope = a1(env)) =>
  env.as.alice.post('/contacts/v1', { properties: { first_name: { text: first } } }, scope);

describe('schema endpoints', () => {
  test.for(['project', 'contact', 'parcel'] as const)(
    'GET /%ss/v1/schema has the exact shape',
    async (kind, { env }) => {
      const r = await env.as.bob.get(`/${kind}s/v1/schema`, { orgId: env.demo.orgs.A.id });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(['properties']);
      const expected = [...DEFAULT_PROPERTIES[kind], ...DEMO_PROPERTIES[kind]].map((p) => ({
        id: p.id,
        name: p.name,
        property_type: p.type,
        ...(p.type === 'select' || p.type === 'multi_select' ? { select: { options: p.options } } : {}),
        ...('required' in p && p.required ? { required: true } : {}),
      }));
      // toStrictEqual: no extra members (no `select` on other types, `required` only when true, no `position`).
      expect(r.body.properties).toStrictEqual(expected);
      for (const p of r.body.properties)
        for (const o of p.select?.options ?? []) {
          expect(Object.keys(o)).toEqual(['id', 'name', 'color']);
          expect(o.color).toMatch(/^#[0-9a-f]{6}$/i);
        }
    },
  );

  test('schema endpoints need only orgId; a missing orgId or another tenant`s org is refused', async ({
    env,
  }) => {
    expect((await env.as.gina.get('/contacts/v1/schema', { orgId: env.demo.orgs.A.id })).status).toBe(200);
    const none = await env.as.alice.get('/parcels/v1/schema');
    expect(none.status).toBe(400);
    expect(none.body.error.details).toEqual([{ field: 'orgId', reason: expect.stringMatching(/required/) }]);
    // A parameter the path does not take is ignored (issue 14), unless it is a near miss of orgId.
    const extra = await env.as.alice.get('/parcels/v1/schema', { orgId: env.demo.orgs.A.id, limit: 1 });
    expect(extra.status).toBe(200);
    const near = await env.as.alice.get('/parcels/v1/schema', { orgId: env.demo.orgs.A.id, org_id: 'x' });
    expect(near.status).toBe(400);
    expect(near.body.error.details).toEqual([
      { field: 'org_id', reason: expect.stringMatching(/takes orgId$/) },
    ]);
    const foreign = await env.as.nora.get('/parcels/v1/schema', { orgId: env.demo.orgs.A.id });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
  });
});

describe('record shape and the create, update and delete responses', () => {
  test('a listed record is exactly { id, properties, created_at, updated_at }', async ({ env }) => {
    const r = await env.as.bob.get('/contacts/v1', { ...a1(env), limit: 5 });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['items', 'nextKey']);
    for (const item of r.body.items) {
      expect(Object.keys(item)).toEqual(['id', 'properties', 'created_at', 'updated_at']);
      expect(item.id).toMatch(/^con_[0-9A-Za-z]{22}$/);
      expect(item.created_at).toMatch(ISO_MS);
      expect(item.updated_at).toMatch(ISO_MS);
      expect(typeof item.properties.first_name.text).toBe('string');
    }
  });

  test('a create returns the full record, with a new id', async ({ env }) => {
    const r = await env.as.bob.post(
      '/contacts/v1',
      { properties: { first_name: { text: 'Ada' }, contact_type: { select: ['broker'] } } },
      a1(env),
    );
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^con_/),
      properties: { first_name: { text: 'Ada' }, contact_type: { select: ['broker'], labels: ['Broker'] } },
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(r.body.updated_at).toBe(r.body.created_at);
    const row = await stored(env, 'contact', r.body.id);
    expect(row.created_at.toISOString()).toBe(r.body.created_at);
  });

  test('an update returns the full record: only the named properties change, new updated_at, same created_at', async ({
    env,
  }) => {
    const made = await env.as.bob.post(
      '/projects/v1',
      {
        properties: {
          name: { text: 'Before' },
          capacity_mw: { number: 10 },
          stage: { select: ['origination'] },
        },
      },
      a1(env),
    );
    const r = await env.as.bob.put(
      `/projects/v1/${made.body.id}`,
      { properties: { capacity_mw: { number: 20 } } },
      a1(env),
    );
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['id', 'properties', 'created_at', 'updated_at']);
    expect(r.body.id).toBe(made.body.id);
    expect(r.body.properties).toEqual({ ...made.body.properties, capacity_mw: { number: 20 } });
    expect(r.body.created_at).toBe(made.body.created_at);
    expect(Date.parse(r.body.updated_at)).toBeGreaterThan(Date.parse(made.body.updated_at));
    // What was returned is what is stored.
    const row = await stored(env, 'project', made.body.id);
    expect(row.updated_at.toISOString()).toBe(r.body.updated_at);
  });

  test('updated_at strictly increases on every update, even within one millisecond', async ({ env }) => {
    const made = await createProject(env, 'Ticker');
    let last = made.body.updated_at;
    for (let i = 0; i < 8; i++) {
      const r = await env.as.alice.put(
        `/projects/v1/${made.body.id}`,
        { properties: { capacity_mw: { number: i } } },
        a1(env),
      );
      expect(Date.parse(r.body.updated_at)).toBeGreaterThan(Date.parse(last));
      last = r.body.updated_at;
    }
    // An update that names no property is still an update.
    const empty = await env.as.alice.put(`/projects/v1/${made.body.id}`, { properties: {} }, a1(env));
    expect(empty.status).toBe(200);
    expect(Date.parse(empty.body.updated_at)).toBeGreaterThan(Date.parse(last));
  });

  test('a new record is stamped once: its updated_at equals its created_at', async ({ env }) => {
    const scope = await freshPortfolio(env);
    // The two column defaults each read the clock and could fall on two sides of a millisecond
    // (about 3 inserts in 1000 on PGlite); the insert now reads it once for both.
    const made = [];
    for (let i = 0; i < 1500; i++)
      made.push(
        await insertRecord(env.database.db, 'contact', scope.orgId, scope.portfolioId, {}, CLI_ACTOR),
      );
    expect(made.filter((r) => r!.createdAt.getTime() !== r!.updatedAt.getTime())).toEqual([]);
  });

  test('a delete answers 200 with an empty body; the record is gone', async ({ env }) => {
    const made = await createProject(env, 'Doomed');
    const r = await env.as.alice.delete(`/projects/v1/${made.body.id}`, a1(env));
    expect(r.status).toBe(200);
    expect(r.raw).toBe('');
    expect(await stored(env, 'project', made.body.id)).toBeUndefined();
    const again = await env.as.alice.delete(`/projects/v1/${made.body.id}`, a1(env));
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FOUND');
    const put = await env.as.alice.put(`/projects/v1/${made.body.id}`, { properties: {} }, a1(env));
    expect(put.status).toBe(404);
    const c = await createContact(env, 'Doomed');
    const dc = await env.as.alice.delete(`/contacts/v1/${c.body.id}`, a1(env));
    expect(dc.status).toBe(200);
    expect(dc.raw).toBe('');
  });

  test('parcels are updated with PUT', async ({ env }) => {
    const [id] = await insertRecords(env, 'parcel', a1(env), [{ name: { text: 'Lot 7' } }]);
    const r = await env.as.bob.put(
      `/parcels/v1/${id}`,
      { properties: { 'parcel-status': { select: ['negotiating'] }, acreage: { number: 80.5 } } },
      a1(env),
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id,
      properties: {
        name: { text: 'Lot 7' },
        'parcel-status': { select: ['negotiating'], labels: ['Negotiating'] },
        acreage: { number: 80.5 },
      },
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
  });

  test('a record answers 404 outside the portfolio or org named in the query', async ({ env }) => {
    const made = await createProject(env, 'Scoped');
    const before = await stored(env, 'project', made.body.id);
    const { A } = env.demo.orgs;
    for (const q of [
      { orgId: A.id, portfolioId: A.portfolios.A2 },
      { orgId: env.demo.orgs.B.id, portfolioId: A.portfolios.A1 },
    ]) {
      const put = await env.as.alice.put(
        `/projects/v1/${made.body.id}`,
        { properties: { name: { text: 'x' } } },
        q,
      );
      expect(put.status).toBe(404);
      expect((await env.as.alice.delete(`/projects/v1/${made.body.id}`, q)).status).toBe(404);
    }
    // A contact id on the project path is not a project.
    const c = await createContact(env, 'Wrong path');
    const contactBefore = await stored(env, 'contact', c.body.id);
    const rename = { properties: { first_name: { text: 'Renamed' } } };
    expect((await env.as.alice.put(`/projects/v1/${c.body.id}`, rename, a1(env))).status).toBe(404);
    expect((await env.as.alice.put(`/parcels/v1/${c.body.id}`, rename, a1(env))).status).toBe(404);
    // Refused writes changed nothing: not a value, not updated_at.
    expect(await stored(env, 'project', made.body.id)).toEqual(before);
    expect(await stored(env, 'contact', c.body.id)).toEqual(contactBefore);
  });

  test('a write needs orgId and portfolioId, and a JSON body', async ({ env }) => {
    const r = await env.as.alice.post('/projects/v1', { properties: { name: { text: 'x' } } });
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'orgId',
      'portfolioId',
    ]);
    const text = await env.as.alice.send('POST', '/projects/v1', {
      query: a1(env),
      body: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const broken = await env.as.alice.send('POST', '/projects/v1', {
      query: a1(env),
      body: '{"properties":',
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('BAD_REQUEST');
  });
});

describe('parcels: PUT only', () => {
  test('POST and DELETE on a parcel get 405 with Allow and the error body', async ({ env }) => {
    const [id] = await insertRecords(env, 'parcel', a1(env), [{ name: { text: 'Fixed' } }]);
    for (const [method, path, allow] of [
      ['POST', `/parcels/v1/${id}`, 'PUT'],
      ['DELETE', `/parcels/v1/${id}`, 'PUT'],
      ['PATCH', `/parcels/v1/${id}`, 'PUT'],
      ['POST', '/parcels/v1', ''],
      ['DELETE', '/parcels/v1', ''],
    ] as const) {
      const r = await env.as.alice.send(method, path, {
        query: a1(env),
        body: method === 'DELETE' ? undefined : {},
      });
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.allow).toBe(allow);
      expect(r.body.error.code).toBe('METHOD_NOT_ALLOWED');
      expect(r.body.error.message).toMatch(/cadastral/);
    }
    expect(await stored(env, 'parcel', id)).toBeDefined();
  });
});

describe('concurrent partial updates', () => {
  test('20 updates of different properties of one record, fired at once, all survive', async ({ env }) => {
    const N = 20;
    const props = Array.from({ length: N }, (_, i) => ({
      id: `f${i}`,
      name: `Field ${i}`,
      type: 'text' as const,
    }));
    const org = await freshOrg(env, { project: props });
    const scope = { orgId: org.orgId, portfolioId: org.portfolioId };
    const made = await org.owner.post('/projects/v1', { properties: { name: { text: 'Busy' } } }, scope);
    expect(made.status).toBe(200);
    const results = await Promise.all(
      props.map((p) =>
        org.owner.put(`/projects/v1/${made.body.id}`, { properties: { [p.id]: { text: p.name } } }, scope),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(N).fill(200));
    // Each update took its own updated_at: strictly increasing means no two are equal.
    expect(new Set(results.map((r) => r.body.updated_at)).size).toBe(N);
    const row = await stored(env, 'project', made.body.id);
    expect(row.properties).toEqual({
      name: { text: 'Busy' },
      ...Object.fromEntries(props.map((p) => [p.id, { text: p.name }])),
    });
    const latest = results
      .map((r) => r.body.updated_at)
      .sort()
      .at(-1);
    expect(row.updated_at.toISOString()).toBe(latest);
  });

  test('concurrent sets and clears of different properties all apply', async ({ env }) => {
    const made = await env.as.alice.post(
      '/projects/v1',
      {
        properties: {
          name: { text: 'Mixed' },
          website: { text: 'https://a.example' },
          capacity_mw: { number: 1 },
          cod: { date: { start: '2030-01-01' } },
        },
      },
      a1(env),
    );
    const changes = [
      { website: { text: null } },
      { capacity_mw: { number: 2 } },
      { cod: { date: null } },
      { stage: { select: ['permitting'] } },
      { offtake: { select: ['ppa', 'rec'] } },
      { developer_email: { text: 'x@example.com' } },
    ];
    const rs = await Promise.all(
      changes.map((properties) => env.as.alice.put(`/projects/v1/${made.body.id}`, { properties }, a1(env))),
    );
    expect(rs.map((r) => r.status)).toEqual(changes.map(() => 200));
    expect((await stored(env, 'project', made.body.id)).properties).toEqual({
      name: { text: 'Mixed' },
      capacity_mw: { number: 2 },
      stage: { select: ['permitting'] },
      offtake: { select: ['ppa', 'rec'] },
      developer_email: { text: 'x@example.com' },
    });
  });
});

describe('deleting a project or contact removes its links, not the linked records', () => {
  const linkCount = async (env: TestEnv, table: string, col: string, id: string) => {
    const { rows } = await sql<{
      n: number;
    }>`${INSPECT} select count(*)::int as n from ${sql.table(table)} where ${sql.ref(col)} = ${id}`.execute(
      env.database.db,
    );
    return rows[0].n;
  };

  test('a project: its contact and parcel links go; the contact, the parcel and their other links stay', async ({
    env,
  }) => {
    const scope = await freshPortfolio(env);
    const p = await createProject(env, 'Linked', scope);
    const other = await createProject(env, 'Other', scope);
    const c = await createContact(env, 'Linked', scope);
    const [parcel] = await insertRecords(env, 'parcel', scope, [{ name: { text: 'Linked parcel' } }]);
    for (const project of [p.body.id, other.body.id]) {
      expect(
        (await env.as.alice.post(`/projects/v1/${project}/contacts`, { contactId: c.body.id }, scope)).status,
      ).toBe(200);
      await linkParcelsToProject(env.database.db, { ...scope, projectId: project }, [parcel], CLI_ACTOR);
    }
    expect(
      (await env.as.alice.post(`/parcels/v1/${parcel}/contacts`, { contactId: c.body.id }, scope)).status,
    ).toBe(200);
    expect(await linkCount(env, 'project_contacts', 'project_id', p.body.id)).toBe(1);
    expect(await linkCount(env, 'project_parcels', 'project_id', p.body.id)).toBe(1);

    expect((await env.as.alice.delete(`/projects/v1/${p.body.id}`, scope)).status).toBe(200);

    expect(await linkCount(env, 'project_contacts', 'project_id', p.body.id)).toBe(0);
    expect(await linkCount(env, 'project_parcels', 'project_id', p.body.id)).toBe(0);
    expect(await stored(env, 'contact', c.body.id)).toBeDefined();
    expect(await stored(env, 'parcel', parcel)).toBeDefined();
    expect(await stored(env, 'project', other.body.id)).toBeDefined();
    expect(await linkCount(env, 'project_contacts', 'project_id', other.body.id)).toBe(1);
    expect(await linkCount(env, 'project_parcels', 'project_id', other.body.id)).toBe(1);
    expect(await linkCount(env, 'parcel_contacts', 'parcel_id', parcel)).toBe(1);
    // Over the API too: the contact now lists only the other project.
    const listed = await env.as.alice.get(`/contacts/v1/${c.body.id}/projects`, scope);
    expect(listed.body.items.map((i: { id: string }) => i.id)).toEqual([other.body.id]);
  });

  test('a contact: its project and parcel links go; the project and parcel stay', async ({ env }) => {
    const scope = await freshPortfolio(env);
    const p = await createProject(env, 'Stays', scope);
    const c = await createContact(env, 'Goes', scope);
    const keep = await createContact(env, 'Stays too', scope);
    const [parcel] = await insertRecords(env, 'parcel', scope, [{ name: { text: 'Stays' } }]);
    for (const contactId of [c.body.id, keep.body.id]) {
      await env.as.alice.post(`/projects/v1/${p.body.id}/contacts`, { contactId }, scope);
      await env.as.alice.post(`/parcels/v1/${parcel}/contacts`, { contactId }, scope);
    }
    expect((await env.as.alice.delete(`/contacts/v1/${c.body.id}`, scope)).status).toBe(200);
    expect(await linkCount(env, 'project_contacts', 'contact_id', c.body.id)).toBe(0);
    expect(await linkCount(env, 'parcel_contacts', 'contact_id', c.body.id)).toBe(0);
    expect(await stored(env, 'project', p.body.id)).toBeDefined();
    expect(await stored(env, 'parcel', parcel)).toBeDefined();
    const items = async (path: string) =>
      (await env.as.alice.get(path, scope)).body.items.map((i: { id: string }) => i.id);
    expect(await items(`/projects/v1/${p.body.id}/contacts`)).toEqual([keep.body.id]);
    expect(await items(`/parcels/v1/${parcel}/contacts`)).toEqual([keep.body.id]);
  });
});

describe('roles', () => {
  /** One of every write, against records of `scope`. */
  async function everyWrite(
    env: TestEnv,
    who: keyof TestEnv['as'],
    scope: Scope,
    ids: { project: string; contact: string; parcel: string },
  ) {
    const c = env.as[who];
    const body = (name: string) => ({ properties: { [name]: { text: 'changed' } } });
    return {
      'POST project': await c.post('/projects/v1', body('name'), scope),
      'PUT project': await c.put(`/projects/v1/${ids.project}`, body('name'), scope),
      'DELETE project': await c.delete(`/projects/v1/${ids.project}`, scope),
      'POST contact': await c.post('/contacts/v1', body('first_name'), scope),
      'PUT contact': await c.put(`/contacts/v1/${ids.contact}`, body('first_name'), scope),
      'DELETE contact': await c.delete(`/contacts/v1/${ids.contact}`, scope),
      'PUT parcel': await c.put(`/parcels/v1/${ids.parcel}`, body('name'), scope),
    };
  }

  async function recordsIn(env: TestEnv, scope: Scope) {
    const project = (await createProject(env, 'Target', scope)).body.id;
    const contact = (await createContact(env, 'Target', scope)).body.id;
    const [parcel] = await insertRecords(env, 'parcel', scope, [{ name: { text: 'Target' } }]);
    return { project, contact, parcel };
  }

  async function unchanged(env: TestEnv, ids: { project: string; contact: string; parcel: string }) {
    expect((await stored(env, 'project', ids.project)).properties).toEqual({ name: { text: 'Target' } });
    expect((await stored(env, 'contact', ids.contact)).properties).toEqual({
      first_name: { text: 'Target' },
    });
    expect((await stored(env, 'parcel', ids.parcel)).properties).toEqual({ name: { text: 'Target' } });
  }

  test('vera (viewer) reads, and gets 403 on every write; nothing changes', async ({ env }) => {
    const ids = await recordsIn(env, a1(env));
    expect((await env.as.vera.get('/projects/v1', a1(env))).status).toBe(200);
    const before = await countIn(env, 'projects', a1(env).portfolioId);
    for (const [what, r] of Object.entries(await everyWrite(env, 'vera', a1(env), ids))) {
      expect(r.status, what).toBe(403);
      expect(r.body.error.code).toBe('FORBIDDEN');
      expect(r.body.error.message).toMatch(/read-only/);
    }
    await unchanged(env, ids);
    expect(await countIn(env, 'projects', a1(env).portfolioId)).toBe(before);
  });

  test('gina (guest of A1) writes in A1, and gets 404 for everything in A2', async ({ env }) => {
    const { A } = env.demo.orgs;
    const a2 = { orgId: A.id, portfolioId: A.portfolios.A2 };
    const ids = await recordsIn(env, a2);
    expect((await env.as.gina.get('/projects/v1', a2)).status).toBe(404);
    expect((await env.as.gina.get('/contacts/v1', a2)).status).toBe(404);
    for (const [what, r] of Object.entries(await everyWrite(env, 'gina', a2, ids))) {
      expect(r.status, what).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
    // Naming A1 in the query does not reach A2's records either.
    for (const [what, r] of Object.entries(await everyWrite(env, 'gina', a1(env), ids)))
      if (!what.startsWith('POST')) expect(r.status, what).toBe(404);
    await unchanged(env, ids);
    const mine = await env.as.gina.post(
      '/projects/v1',
      { properties: { name: { text: 'Gina`s' } } },
      a1(env),
    );
    expect(mine.status).toBe(200);
    expect(
      (
        await env.as.gina.put(
          `/projects/v1/${mine.body.id}`,
          { properties: { capacity_mw: { number: 3 } } },
          a1(env),
        )
      ).status,
    ).toBe(200);
  });

  test('nora (owner of B) gets 404 on org A, exactly as for ids that do not exist', async ({ env }) => {
    const ids = await recordsIn(env, a1(env));
    const writes = await everyWrite(env, 'nora', a1(env), ids);
    const ghosts = await everyWrite(env, 'nora', a1(env), {
      project: 'prj_0',
      contact: 'con_0',
      parcel: 'par_0',
    });
    for (const [what, r] of Object.entries(writes)) {
      expect(r.status, what).toBe(404);
      expect(r.body, what).toEqual(ghosts[what as keyof typeof ghosts].body);
    }
    expect((await env.as.nora.get('/projects/v1', a1(env))).status).toBe(404);
    // With her own org in the query, A's records are still not found.
    const inB = { orgId: env.demo.orgs.B.id, portfolioId: env.demo.orgs.B.portfolios.B1 };
    for (const [what, r] of Object.entries(await everyWrite(env, 'nora', inB, ids)))
      if (!what.startsWith('POST')) expect(r.status, what).toBe(404);
    await unchanged(env, ids);
  });

  test('a member creates in a portfolio of another org only by 404', async ({ env }) => {
    const { B } = env.demo.orgs;
    const r = await env.as.bob.post(
      '/projects/v1',
      { properties: { name: { text: 'Sneaky' } } },
      { orgId: env.demo.orgs.A.id, portfolioId: B.portfolios.B1 },
    );
    expect(r.status).toBe(404);
    const { rows } = await sql<{
      n: number;
    }>`${INSPECT} select count(*)::int as n from projects where properties->'name'->>'text' = 'Sneaky'`.execute(
      env.database.db,
    );
    expect(rows[0].n).toBe(0);
  });
});
