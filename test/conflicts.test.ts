import { describe, expect, test } from './helpers/fixtures.js';
import { freshPortfolio } from './records-helpers.js';

/** Issue 15: conflict-safe writes (GraphQL expectedUpdatedAt, REST If-Match and ETag). */

const UPDATE = `mutation ($input: UpdateRecordInput!) { updateProject(input: $input) {
  project { id updatedAt properties } userErrors { code message path } } }`;

describe('GraphQL expectedUpdatedAt', () => {
  test('a stale version gets a CONFLICT user error with the current record, and writes nothing', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    const made = (await env.as.alice.post('/projects/v1', { properties: { name: { text: 'v1' } } }, s)).body;
    const ok = await env.as.alice.gql(UPDATE, {
      input: { id: made.id, properties: { name: { text: 'v2' } }, expectedUpdatedAt: made.updated_at },
    });
    expect(ok.body.errors).toBeUndefined();
    const v2 = ok.body.data.updateProject;
    expect(v2.userErrors).toEqual([]);
    expect(v2.project.properties.name.text).toBe('v2');
    // Bob still holds v1's version.
    const stale = await env.as.bob.gql(UPDATE, {
      input: { id: made.id, properties: { name: { text: 'bob' } }, expectedUpdatedAt: made.updated_at },
    });
    expect(stale.body.errors).toBeUndefined();
    const c = stale.body.data.updateProject;
    expect(c.userErrors).toHaveLength(1);
    expect(c.userErrors[0]).toMatchObject({ code: 'CONFLICT', path: ['input', 'expectedUpdatedAt'] });
    expect(c.project).toEqual(v2.project);
    const list = await env.as.alice.get('/projects/v1', { ...s, limit: 5 });
    expect(list.body.items[0].properties.name.text).toBe('v2');
    expect(list.body.items[0].updated_at).toBe(v2.project.updatedAt);
    // No log entry for the refused write.
    const h = await env.as.alice.gql(
      `query ($id: ID!) { project(id: $id) { history { nodes { operation } } } }`,
      {
        id: made.id,
      },
    );
    expect(h.body.data.project.history.nodes.map((n: any) => n.operation)).toEqual(['UPDATE', 'CREATE']);
  });

  test('of two writers holding the same version, exactly one wins', async ({ env }) => {
    const s = await freshPortfolio(env);
    const made = (await env.as.alice.post('/projects/v1', { properties: { name: { text: 'race' } } }, s))
      .body;
    const tries = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        env.as.alice.gql(UPDATE, {
          input: { id: made.id, properties: { name: { text: `w${i}` } }, expectedUpdatedAt: made.updated_at },
        }),
      ),
    );
    const won = tries.filter((t) => t.body.data.updateProject.userErrors.length === 0);
    expect(won).toHaveLength(1);
    const final = await env.as.alice.get('/projects/v1', { ...s, limit: 5 });
    expect(final.body.items[0].properties.name.text).toBe(
      won[0].body.data.updateProject.project.properties.name.text,
    );
  });

  test('without expectedUpdatedAt an update behaves as before; a missing record is still NOT_FOUND', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    const made = (await env.as.alice.post('/projects/v1', { properties: { name: { text: 'free' } } }, s))
      .body;
    const r = await env.as.bob.gql(UPDATE, { input: { id: made.id, properties: { name: { text: 'x' } } } });
    expect(r.body.data.updateProject.userErrors).toEqual([]);
    await env.as.alice.delete(`/projects/v1/${made.id}`, s);
    const gone = await env.as.bob.gql(UPDATE, {
      input: { id: made.id, properties: { name: { text: 'y' } }, expectedUpdatedAt: made.updated_at },
    });
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('REST If-Match and ETag', () => {
  test('record responses carry an ETag; PUT with a matching If-Match succeeds, a stale one gets 412 and writes nothing', async ({
    env,
  }) => {
    const s = await freshPortfolio(env);
    const made = await env.as.alice.post('/contacts/v1', { properties: { first_name: { text: 'A' } } }, s);
    const etag = made.headers.etag as string;
    expect(etag).toBe(`"${Date.parse(made.body.updated_at)}"`);
    const put = (body: unknown, ifMatch?: string) =>
      env.as.alice.send('PUT', `/contacts/v1/${made.body.id}`, {
        body,
        query: s,
        headers: ifMatch ? { 'if-match': ifMatch } : {},
      });
    const ok = await put({ properties: { first_name: { text: 'B' } } }, etag);
    expect(ok.status).toBe(200);
    expect(ok.headers.etag).toBe(`"${Date.parse(ok.body.updated_at)}"`);
    expect(ok.headers.etag).not.toBe(etag);
    const stale = await put({ properties: { first_name: { text: 'C' } } }, etag);
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    expect(stale.body.error.message).toContain(ok.headers.etag as string);
    for (const bad of ['W/"1"', 'nonsense', `${etag}, ${ok.headers.etag}`]) {
      const r = await put({ properties: { first_name: { text: 'D' } } }, bad);
      expect(r.status, bad).toBe(412);
    }
    const list = await env.as.alice.get('/contacts/v1', { ...s, limit: 5 });
    expect(list.body.items[0].properties.first_name.text).toBe('B');
    // `*` and no header: exactly as the spec.
    const any = await put({ properties: { first_name: { text: 'E' } } }, '*');
    expect(any.status).toBe(200);
    const plain = await put({ properties: { first_name: { text: 'F' } } });
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body).sort()).toEqual(['created_at', 'id', 'properties', 'updated_at']);
  });
});
