import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { freshPortfolio, linkedIds, type Scope } from './records-helpers.js';
import { declare, logOf, upsert } from './sync-helpers.js';

/** Bulk links and unlinks (issue 40): by id or external id, per-pair outcomes, one log entry per side. */

const LINK = `mutation ($input: BulkLinkInput!) { linkRecords(input: $input) {
  results { index fromId toId outcome userErrors { code message path } } changed unchanged failed } }`;
const UNLINK = LINK.replace('linkRecords', 'unlinkRecords');

/**
 * A fresh portfolio of org A with its own source (external ids are unique per org and source, and
 * every test of the file shares org A): two projects and three contacts.
 */
async function setup(env: TestEnv) {
  const scope = await freshPortfolio(env);
  const source = `crm-${scope.portfolioId.slice(-8)}`;
  await declare(env.as.alice, scope, source);
  const projects = await upsert(
    env.as.alice,
    'project',
    scope,
    ['p1', 'p2'].map((x) => ({ externalId: x, properties: { name: { text: x } } })),
    { source },
  );
  const contacts = await upsert(
    env.as.alice,
    'contact',
    scope,
    ['c1', 'c2', 'c3'].map((x) => ({ externalId: x, properties: { first_name: { text: x } } })),
    { source },
  );
  const ids = (p: any) => p.results.map((x: any) => x.id) as string[];
  return { scope, source, projects: ids(projects.p), contacts: ids(contacts.p) };
}

const link = (
  env: TestEnv,
  scope: Scope & { source: string },
  pairs: unknown[],
  extra: Record<string, unknown> = {},
  doc = LINK,
) =>
  env.as.alice.gql(doc, {
    input: {
      orgId: scope.orgId,
      portfolioId: scope.portfolioId,
      type: 'PROJECT_CONTACT',
      pairs,
      source: scope.source,
      ...extra,
    },
  });

describe('bulk links', () => {
  test('links by id and by external id; a linked pair is UNCHANGED; unlink removes; each change logged on both sides', async ({
    env,
  }) => {
    const { scope: s, source, projects, contacts } = await setup(env);
    const scope = { ...s, source };
    const logged = (await logOf(env, scope.orgId)).length;
    const r = await link(env, scope, [
      { from: { externalId: 'p1' }, to: { externalId: 'c1' } },
      { from: { id: projects[0] }, to: { id: contacts[1] } },
      { from: { externalId: 'p2' }, to: { id: contacts[2] } },
    ]);
    expect(r.body.errors).toBeUndefined();
    const out = r.body.data.linkRecords;
    expect(out.results.map((x: any) => [x.fromId, x.toId, x.outcome])).toEqual([
      [projects[0], contacts[0], 'CREATED'],
      [projects[0], contacts[1], 'CREATED'],
      [projects[1], contacts[2], 'CREATED'],
    ]);
    expect(out).toMatchObject({ changed: 3, unchanged: 0, failed: 0 });
    expect(await linkedIds(env, 'project_contacts', projects[0], scope.orgId)).toEqual(
      [contacts[0], contacts[1]].sort(),
    );
    const log = (await logOf(env, scope.orgId)).slice(logged);
    expect(log).toHaveLength(6);
    expect(
      log
        .filter((e) => e.op === 'link' && e.record_id === projects[0])
        .map((e) => e.related_id)
        .sort(),
    ).toEqual([contacts[0], contacts[1]].sort());

    const again = await link(env, scope, [{ from: { externalId: 'p1' }, to: { externalId: 'c1' } }]);
    expect(again.body.data.linkRecords.results[0].outcome).toBe('UNCHANGED');
    expect((await logOf(env, scope.orgId)).length).toBe(logged + 6);

    const un = await link(
      env,
      scope,
      [
        { from: { externalId: 'p1' }, to: { externalId: 'c1' } },
        { from: { externalId: 'p2' }, to: { externalId: 'c1' } },
      ],
      {},
      UNLINK,
    );
    expect(un.body.data.unlinkRecords.results.map((x: any) => x.outcome)).toEqual(['DELETED', 'UNCHANGED']);
    expect(await linkedIds(env, 'project_contacts', projects[0], scope.orgId)).toEqual([contacts[1]]);
    const after = (await logOf(env, scope.orgId)).slice(logged + 6);
    expect(after.map((e) => [e.op, e.record_id, e.related_id])).toEqual([
      ['unlink', projects[0], contacts[0]],
      ['unlink', contacts[0], projects[0]],
    ]);
  });

  test('unknown records, the wrong kind, duplicates and allOrNone', async ({ env }) => {
    const { scope: s, source, projects, contacts } = await setup(env);
    const scope = { ...s, source };
    const r = await link(env, scope, [
      { from: { externalId: 'nope' }, to: { externalId: 'c1' } },
      { from: { externalId: 'c2' }, to: { externalId: 'c1' } },
      { from: { id: projects[0] }, to: { id: projects[1] } },
      { from: { id: projects[0] }, to: { id: contacts[0] } },
      { from: { externalId: 'p1' }, to: { externalId: 'c1' } },
      { from: { id: projects[1] }, to: { id: contacts[2] } },
    ]);
    expect(r.body.errors).toBeUndefined();
    const res = r.body.data.linkRecords.results;
    expect(res.map((x: any) => x.outcome)).toEqual([
      'FAILED',
      'FAILED',
      'FAILED',
      'FAILED',
      'FAILED',
      'CREATED',
    ]);
    expect(res[0].userErrors[0]).toMatchObject({ code: 'NOT_FOUND', path: ['input', 'pairs', '0', 'from'] });
    expect(res[0].userErrors[0].message).toContain('external id "nope"');
    expect(res[1].userErrors[0].path).toEqual(['input', 'pairs', '1', 'from']);
    expect(res[2].userErrors[0].path).toEqual(['input', 'pairs', '2', 'to']);
    expect(res[3].userErrors[0].code).toBe('DUPLICATE');
    expect(res[4].userErrors[0].code).toBe('DUPLICATE');

    const none = await link(
      env,
      scope,
      [
        { from: { id: projects[0] }, to: { id: contacts[0] } },
        { from: { externalId: 'nope' }, to: { externalId: 'c1' } },
      ],
      { allOrNone: true },
    );
    expect(none.body.data.linkRecords.results.map((x: any) => x.userErrors[0].code)).toEqual([
      'NOT_WRITTEN',
      'NOT_FOUND',
    ]);
    expect(await linkedIds(env, 'project_contacts', projects[0], scope.orgId)).toEqual([]);
  });

  test('parcel–contact pairs; another org or portfolio is not found; limits and a missing source', async ({
    env,
  }) => {
    const { scope: s, source, contacts } = await setup(env);
    const scope = { ...s, source };
    const parcels = await upsert(env.as.alice, 'parcel', s, [{ externalId: 'a1', properties: {} }], {
      source,
    });
    const parcel = parcels.p.results[0].id;
    const r = await link(env, scope, [{ from: { externalId: 'a1' }, to: { externalId: 'c3' } }], {
      type: 'PARCEL_CONTACT',
    });
    expect(r.body.data.linkRecords.results[0]).toMatchObject({
      fromId: parcel,
      toId: contacts[2],
      outcome: 'CREATED',
    });
    expect(await linkedIds(env, 'parcel_contacts', parcel, scope.orgId)).toEqual([contacts[2]]);

    // A contact of another portfolio of the same org, and another org's caller.
    const other = await freshPortfolio(env);
    const moved = await link(env, { ...other, source }, [{ from: { id: parcel }, to: { id: contacts[0] } }], {
      type: 'PARCEL_CONTACT',
    });
    expect(moved.body.data.linkRecords.results[0].userErrors.map((e: any) => e.code)).toEqual([
      'NOT_FOUND',
      'NOT_FOUND',
    ]);
    const nora = await env.as.nora.gql(LINK, {
      input: { ...s, type: 'PARCEL_CONTACT', pairs: [{ from: { id: parcel }, to: { id: contacts[0] } }] },
    });
    expect(nora.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const vera = await env.as.vera.gql(LINK, {
      input: { ...s, type: 'PARCEL_CONTACT', pairs: [{ from: { id: parcel }, to: { id: contacts[0] } }] },
    });
    expect(vera.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const over = await link(
      env,
      scope,
      Array.from({ length: 1001 }, () => ({ from: { id: parcel }, to: { id: contacts[0] } })),
      { type: 'PARCEL_CONTACT' },
    );
    expect(over.status).toBe(400);
    expect(over.body.errors[0].message).toMatch(/pairs holds 1001 entries; at most 1000/);
    const noSource = await env.as.alice.gql(LINK, {
      input: {
        ...s,
        type: 'PARCEL_CONTACT',
        pairs: [{ from: { externalId: 'a1' }, to: { id: contacts[0] } }],
      },
    });
    expect(noSource.status).toBe(400);
    expect(noSource.body.errors[0].message).toMatch(/source is required/);
  });

  test('1,000 pairs in one call', async ({ env }) => {
    const s = await freshPortfolio(env);
    const scope = { ...s, source: `crm-${s.portfolioId.slice(-8)}` };
    await declare(env.as.alice, scope, scope.source);
    const contacts = await upsert(
      env.as.alice,
      'contact',
      scope,
      Array.from({ length: 1000 }, (_, i) => ({
        externalId: `c${i}`,
        properties: { first_name: { text: `C${i}` } },
      })),
      { source: scope.source },
    );
    expect(contacts.p.results.filter((x: any) => x.outcome === 'FAILED').slice(0, 2)).toEqual([]);
    expect(contacts.p.created).toBe(1000);
    await upsert(env.as.alice, 'project', scope, [{ externalId: 'p', properties: { name: { text: 'P' } } }], {
      source: scope.source,
    });
    const r = await link(
      env,
      scope,
      Array.from({ length: 1000 }, (_, i) => ({ from: { externalId: 'p' }, to: { externalId: `c${i}` } })),
    );
    expect(r.status).toBe(200);
    expect(r.body.data.linkRecords).toMatchObject({ changed: 1000, failed: 0 });
  });
});

describe('every demo user against sources, lookups and bulk links', () => {
  test('owner, member and guest write in reach; a viewer gets FORBIDDEN, the rest NOT_FOUND or null, writing nothing', async ({
    env,
  }) => {
    const A = env.demo.orgs.A;
    const A1 = { orgId: A.id, portfolioId: A.portfolios.A1 };
    const A2 = { orgId: A.id, portfolioId: A.portfolios.A2 };
    const source = 'who';
    await declare(env.as.alice, A1, source);
    const make = async (scope: Scope, tag: string) => {
      const p = await upsert(
        env.as.alice,
        'project',
        scope,
        [{ externalId: `p-${tag}`, properties: { name: { text: tag } } }],
        { source },
      );
      const c = await upsert(
        env.as.alice,
        'contact',
        scope,
        [{ externalId: `c-${tag}`, properties: { first_name: { text: tag } } }],
        { source },
      );
      return { project: p.p.results[0].id as string, contact: c.p.results[0].id as string };
    };
    const in1 = await make(A1, 'a1');
    const in2 = await make(A2, 'a2');

    const REGISTER = `mutation ($input: RegisterExternalSourceInput!) { registerExternalSource(input: $input) { sources } }`;
    for (const [user, code] of [
      ['vera', 'FORBIDDEN'],
      ['nora', 'NOT_FOUND'],
    ] as const) {
      const r = await env.as[user].gql(REGISTER, { input: { orgId: A.id, name: `by-${user}` } });
      expect(r.body.errors[0].extensions.code, user).toBe(code);
    }

    const LOOK = `query ($o: ID!) { recordByExternalId(orgId: $o, source: "who", externalId: "p-a2") { id } }`;
    for (const [user, found] of [
      ['alice', true],
      ['bob', true],
      ['vera', true],
      ['gina', false],
      ['nora', false],
    ] as const) {
      const r = await env.as[user].gql(LOOK, { o: A.id });
      expect(r.body.data.recordByExternalId, user).toEqual(found ? { id: in2.project } : null);
    }

    const pairs = [{ from: { externalId: 'p-a1' }, to: { externalId: 'c-a1' } }];
    const call = (
      user: 'alice' | 'bob' | 'vera' | 'gina' | 'nora',
      scope: Scope,
      linked: boolean,
      p = pairs,
    ) =>
      env.as[user].gql(linked ? LINK : UNLINK, {
        input: { ...scope, type: 'PROJECT_CONTACT', source, pairs: p },
      });
    const field = (linked: boolean) => (linked ? 'linkRecords' : 'unlinkRecords');
    for (const [user, linked] of [
      ['alice', true],
      ['bob', false],
      ['gina', true],
    ] as const) {
      const r = await call(user, A1, linked);
      expect(r.body.data[field(linked)].results[0].outcome, user).toBe(linked ? 'CREATED' : 'DELETED');
    }
    expect(await linkedIds(env, 'project_contacts', in1.project, A.id)).toEqual([in1.contact]);
    const a2pairs = [{ from: { externalId: 'p-a2' }, to: { externalId: 'c-a2' } }];
    for (const [user, scope, p, code] of [
      ['vera', A1, pairs, 'FORBIDDEN'],
      ['nora', A1, pairs, 'NOT_FOUND'],
      ['gina', A2, a2pairs, 'NOT_FOUND'],
    ] as const) {
      const r = await call(user, scope, false, p);
      expect(r.body.errors[0].extensions.code, user).toBe(code);
      const l = await call(user, scope, true, p);
      expect(l.body.errors[0].extensions.code, user).toBe(code);
    }
    expect(await linkedIds(env, 'project_contacts', in1.project, A.id)).toEqual([in1.contact]);
    expect(await linkedIds(env, 'project_contacts', in2.project, A.id)).toEqual([]);
  });
});
