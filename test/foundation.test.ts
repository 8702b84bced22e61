import { hashApiKey } from '../src/modules/auth/keys.js';
import { createApiKey, revokeApiKey } from '../src/modules/auth/repository.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { client } from './helpers/http.js';

describe('authentication', () => {
  test('a missing key gets 401: the JSON error body on REST, the GraphQL error shape on /graphql', async ({
    env,
  }) => {
    const rest = await env.as.anon.get('/organizations/v1');
    expect(rest.status).toBe(401);
    expect(rest.body.error.code).toBe('UNAUTHENTICATED');
    expect(rest.body.error.message).toMatch(/X-API-Key/);
    const gql = await env.as.anon.gql('{ viewer { user { id } } }');
    expect(gql.status).toBe(401);
    expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(gql.body.errors[0].message).toMatch(/X-API-Key/);
  });

  test('an unknown or malformed key gets 401', async ({ env }) => {
    for (const key of ['sdg_thisIsNotAKeyThatExistsAnywhere000000000000', 'short', "' or 1=1 --"]) {
      const r = await client(env.app, key).get('/organizations/v1');
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('UNAUTHENTICATED');
    }
  });

  test('a revoked key stops working at once; other keys of the user keep working', async ({ env }) => {
    const k1 = await createApiKey(env.database.db, env.demo.users.bob.uid, 'to revoke');
    const k2 = await createApiKey(env.database.db, env.demo.users.bob.uid, 'to keep');
    expect((await client(env.app, k1.apiKey).get('/organizations/v1')).status).toBe(200);
    expect(await revokeApiKey(env.database.db, k1.id)).toBe(true);
    expect((await client(env.app, k1.apiKey).get('/organizations/v1')).status).toBe(401);
    expect((await client(env.app, k2.apiKey).get('/organizations/v1')).status).toBe(200);
  });

  test('keys are stored only as a hash, and record when they were last used', async ({ env }) => {
    const k = await createApiKey(env.database.db, env.demo.users.bob.uid);
    expect(k.apiKey).toMatch(/^sdg_[A-Za-z0-9_-]{43}$/);
    const before = await env.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(before)).not.toContain(k.apiKey.slice(4));
    expect(before.key_hash).toBe(hashApiKey(k.apiKey));
    expect(before.last_used_at).toBeNull();
    await client(env.app, k.apiKey).get('/organizations/v1');
    const after = await env.database.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    expect(after.last_used_at).toBeInstanceOf(Date);
  });

  test('health endpoints need no key', async ({ env }) => {
    expect((await env.as.anon.get('/healthz')).status).toBe(200);
    const ready = await env.as.anon.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });
});

describe('what each role sees', () => {
  test('organizations: members see their org, the guest sees the org of their portfolio, nora sees only B', async ({
    env,
  }) => {
    const { A, B } = env.demo.orgs;
    for (const who of ['alice', 'bob', 'vera', 'gina'] as const) {
      const r = await env.as[who].get('/organizations/v1');
      expect(r.status).toBe(200);
      expect(r.body).toEqual([{ id: A.id, name: 'Sunfield Energy' }]);
    }
    expect((await env.as.nora.get('/organizations/v1')).body).toEqual([
      { id: B.id, name: 'Northwind Renewables' },
    ]);
  });

  test('portfolios: members see every portfolio, the guest only A1', async ({ env }) => {
    const { A } = env.demo.orgs;
    const ids = async (who: 'alice' | 'bob' | 'vera' | 'gina') =>
      (await env.as[who].get('/portfolios/v1', { orgId: A.id })).body.map((p: { id: string }) => p.id);
    // Portfolios created in the same millisecond order by id, so compare as sets.
    for (const who of ['alice', 'bob', 'vera'] as const)
      expect(new Set(await ids(who))).toEqual(new Set([A.portfolios.A1, A.portfolios.A2]));
    expect(await ids('gina')).toEqual([A.portfolios.A1]);
  });

  test('portfolio shape is the spec shape, snake_case', async ({ env }) => {
    const r = await env.as.alice.get('/portfolios/v1', { orgId: env.demo.orgs.A.id });
    expect(Object.keys(r.body[0]).sort()).toEqual(['created_at', 'id', 'name', 'org_id']);
    expect(r.body[0].org_id).toBe(env.demo.orgs.A.id);
    expect(r.body[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('users: members with their role, plus guests with portfolio access', async ({ env }) => {
    const r = await env.as.bob.get('/users/v1', { orgId: env.demo.orgs.A.id });
    expect(r.status).toBe(200);
    const byUid = Object.fromEntries(r.body.map((u: { uid: string; role: string }) => [u.uid, u.role]));
    const { alice, bob, vera, gina, nora } = env.demo.users;
    expect(byUid).toEqual({
      [alice.uid]: 'owner',
      [bob.uid]: 'member',
      [vera.uid]: 'viewer',
      [gina.uid]: 'guest',
    });
    expect(byUid[nora.uid]).toBeUndefined();
    expect(Object.keys(r.body[0]).sort()).toEqual(['email', 'name', 'role', 'uid']);
  });
});

describe('another tenant answers 404, never 403', () => {
  test('REST: org B is invisible to alice, and org A to nora', async ({ env }) => {
    const { A, B } = env.demo.orgs;
    for (const [who, org] of [
      ['alice', B.id],
      ['nora', A.id],
      ['gina', B.id],
    ] as const) {
      for (const path of ['/portfolios/v1', '/users/v1', '/projects/v1/schema']) {
        const r = await env.as[who].get(path, { orgId: org });
        expect(r.status, `${who} ${path}`).toBe(404);
        expect(r.body.error.code).toBe('NOT_FOUND');
      }
    }
  });

  test('an org id that does not exist answers exactly like another tenant`s', async ({ env }) => {
    const other = await env.as.alice.get('/portfolios/v1', { orgId: env.demo.orgs.B.id });
    const none = await env.as.alice.get('/portfolios/v1', { orgId: 'org_doesnotexist0000000000' });
    expect(none.status).toBe(other.status);
    expect(none.body).toEqual(other.body);
  });

  test('GraphQL: organization(id) and node(id) of another tenant are null', async ({ env }) => {
    const { B } = env.demo.orgs;
    const r = await env.as.alice.gql(
      'query($id: ID!, $pf: ID!) { organization(id: $id) { id } node(id: $pf) { id } }',
      {
        id: B.id,
        pf: B.portfolios.B1,
      },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data).toEqual({ organization: null, node: null });
  });

  test('the guest cannot reach A2, through the list or node(id)', async ({ env }) => {
    const { A } = env.demo.orgs;
    const r = await env.as.gina.gql(
      'query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) { id } } node(id: $pf) { id } }',
      {
        org: A.id,
        pf: A.portfolios.A2,
      },
    );
    expect(r.body.data).toEqual({ organization: { portfolio: null }, node: null });
    const rest = await env.as.gina.get('/projects/v1', { orgId: A.id, portfolioId: A.portfolios.A2 });
    expect(rest.status).toBe(404);
  });
});

describe('REST endpoints and their GraphQL twins return the same data', () => {
  test('organizations, portfolios and users', async ({ env }) => {
    const { A } = env.demo.orgs;
    const g = await env.as.bob.gql(
      'query($org: ID!) { organizations { id name } organization(id: $org) { id portfolios { id name createdAt } users { id email name role } } }',
      { org: A.id },
    );
    expect(g.body.errors).toBeUndefined();
    expect((await env.as.bob.get('/organizations/v1')).body).toEqual(g.body.data.organizations);
    expect((await env.as.bob.get('/portfolios/v1', { orgId: A.id })).body).toEqual(
      g.body.data.organization.portfolios.map((p: any) => ({
        org_id: A.id,
        id: p.id,
        name: p.name,
        created_at: p.createdAt,
      })),
    );
    expect((await env.as.bob.get('/users/v1', { orgId: A.id })).body).toEqual(
      g.body.data.organization.users.map((u: any) => ({
        uid: u.id,
        email: u.email,
        name: u.name,
        role: u.role.toLowerCase(),
      })),
    );
  });

  test('viewer and node(id) resolve ids from REST', async ({ env }) => {
    const { A } = env.demo.orgs;
    const r = await env.as.alice.gql(
      'query($o: ID!, $p: ID!, $u: ID!) { viewer { user { id email } } o: node(id: $o) { __typename id } p: node(id: $p) { __typename id } u: node(id: $u) { __typename id } }',
      {
        o: A.id,
        p: A.portfolios.A1,
        u: env.demo.users.bob.uid,
      },
    );
    expect(r.body.data).toEqual({
      viewer: { user: { id: env.demo.users.alice.uid, email: 'alice@sunfield.example' } },
      o: { __typename: 'Organization', id: A.id },
      p: { __typename: 'Portfolio', id: A.portfolios.A1 },
      u: { __typename: 'User', id: env.demo.users.bob.uid },
    });
  });

  test('a missing orgId gets 400 naming the parameter; a repeated one too', async ({ env }) => {
    for (const path of ['/portfolios/v1', '/users/v1']) {
      const r = await env.as.alice.get(path);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_FAILED');
      expect(r.body.error.details).toEqual([{ field: 'orgId', reason: expect.stringContaining('required') }]);
    }
    const dup = await env.as.alice.get('/portfolios/v1', { orgId: [env.demo.orgs.A.id, env.demo.orgs.A.id] });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details[0].reason).toMatch(/more than once/);
  });

  test('unknown routes get the JSON error body', async ({ env }) => {
    const r = await env.as.alice.get('/nope/v1');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
  });
});

describe('content types', () => {
  test('a text/plain body gets 415, not a 400 about its shape', async ({ env }) => {
    const { A } = env.demo.orgs;
    const r = await env.as.alice.send('POST', `/projects/v1?orgId=${A.id}&portfolioId=${A.portfolios.A1}`, {
      body: '{"properties":{"name":{"text":"x"}}}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});
