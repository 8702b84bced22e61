import { addMember, createPortfolio, createUser } from '../src/modules/org/repository.js';
import { defineProperty } from '../src/modules/schema/service.js';
import { onCitus } from './helpers/citus.js';
import { describe, expect, test } from './helpers/fixtures.js';

/**
 * The per-org process cache (schemas, user lists, portfolio lists) is keyed by the org's version,
 * which triggers bump on every change: the next request sees the change, with no TTL.
 */
describe('per-org cache', () => {
  test('a warm REST page costs the key lookup and the page: at most 3 statements', async ({ env }) => {
    const { A } = env.demo.orgs;
    const q = { orgId: A.id, portfolioId: A.portfolios.A1, limit: '100' };
    await env.as.bob.get('/projects/v1', q);
    const warm = await env.as.bob.get('/projects/v1', q);
    expect(warm.status).toBe(200);
    expect(
      warm.body.items.some(
        (p: { properties: Record<string, { labels?: string[] }> }) => p.properties.owner?.labels,
      ),
    ).toBe(true);
    expect(warm.sql).toBeLessThanOrEqual(3);
    const deep = await env.as.bob.get('/projects/v1', {
      ...q,
      limit: '2',
      startKey: warm.body.nextKey ?? undefined,
    });
    expect(deep.sql).toBe(warm.sql);
  });

  test('a new schema property is seen by the very next request', async ({ env }) => {
    const { A } = env.demo.orgs;
    const before = await env.as.alice.get('/contacts/v1/schema', { orgId: A.id });
    expect(before.body.properties.map((p: { id: string }) => p.id)).not.toContain('cache_probe');
    await defineProperty(env.database.db, A.id, 'contact', {
      id: 'cache_probe',
      name: 'Probe',
      type: 'number',
    });
    const after = await env.as.alice.get('/contacts/v1/schema', { orgId: A.id });
    expect(after.body.properties.map((p: { id: string }) => p.id)).toContain('cache_probe');
    // And writes validate against it at once.
    const r = await env.as.alice.post(
      '/contacts/v1',
      { properties: { first_name: { text: 'P' }, cache_probe: { number: 1 } } },
      { orgId: A.id, portfolioId: A.portfolios.A1 },
    );
    expect(r.status).toBe(200);
  });

  // A rename by hand in SQL is seen through the users trigger, which Citus cannot run (docs/scaling.md).
  test.skipIf(onCitus)('a renamed user shows in user lists and people labels at once', async ({ env }) => {
    const { A } = env.demo.orgs;
    const q = { orgId: A.id, portfolioId: A.portfolios.A1, limit: '100' };
    const labelsOf = async () => {
      const r = await env.as.alice.get('/projects/v1', q);
      return r.body.items.flatMap(
        (p: { properties: Record<string, { people?: string[]; labels?: string[] }> }) =>
          p.properties.owner?.people?.[0] === env.demo.users.bob.uid ? p.properties.owner.labels : [],
      );
    };
    expect(await labelsOf()).toContain('Bob Barrera');
    await env.database.db
      .updateTable('users')
      .set({ name: 'Robert Barrera' })
      .where('id', '=', env.demo.users.bob.uid)
      .execute();
    try {
      expect(await labelsOf()).toContain('Robert Barrera');
      const users = await env.as.alice.get('/users/v1', { orgId: A.id });
      expect(users.body.map((u: { name: string }) => u.name)).toContain('Robert Barrera');
    } finally {
      await env.database.db
        .updateTable('users')
        .set({ name: 'Bob Barrera' })
        .where('id', '=', env.demo.users.bob.uid)
        .execute();
    }
  });

  test('new members and portfolios are seen at once', async ({ env }) => {
    const { A } = env.demo.orgs;
    await env.as.alice.get('/users/v1', { orgId: A.id });
    await env.as.alice.get('/portfolios/v1', { orgId: A.id });
    const u = await createUser(env.database.db, 'newbie@sunfield.example', 'New Bie');
    await addMember(env.database.db, A.id, u.id, 'member');
    const p = await createPortfolio(env.database.db, A.id, 'Cache Portfolio');
    expect(
      (await env.as.alice.get('/users/v1', { orgId: A.id })).body.map((x: { uid: string }) => x.uid),
    ).toContain(u.id);
    expect(
      (await env.as.alice.get('/portfolios/v1', { orgId: A.id })).body.map((x: { id: string }) => x.id),
    ).toContain(p.id);
    // The new portfolio is usable at once (its existence comes from the cached list).
    expect((await env.as.alice.get('/projects/v1', { orgId: A.id, portfolioId: p.id })).status).toBe(200);
    // A people value may name the new member at once.
    const r = await env.as.alice.post(
      '/projects/v1',
      { properties: { name: { text: 'N' }, owner: { people: [u.id] } } },
      { orgId: A.id, portfolioId: p.id },
    );
    expect(r.status).toBe(200);
  });
});
