import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll } from 'vitest';
import { buildApp } from '../src/app.js';
import { pruneIdempotencyKeys } from '../src/modules/sync/index.js';
import { fanOut, insertEndpoint } from '../src/modules/webhooks/repository.js';
import { WEBHOOK_EVENTS } from '../src/modules/webhooks/types.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { client } from './helpers/http.js';
import { countIn, freshPortfolio, type Scope } from './records-helpers.js';
import { box, declare, logOf, row, upsert } from './sync-helpers.js';

/**
 * Bulk upserts keyed by external id (issue 40): per-item outcomes, unchanged records left
 * untouched, allOrNone, idempotency keys, duplicates, limits, unknown sources and properties,
 * geometry, roles and tenants, and what the change feed and webhooks see.
 */

const name = (text: string) => ({ name: { text } });

const apps: FastifyInstance[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

async function scopeWithSource(env: TestEnv): Promise<Scope> {
  const scope = await freshPortfolio(env);
  await declare(env.as.alice, scope, 'crm');
  return scope;
}

describe('bulk upsert by external id', () => {
  test('creates, then answers UNCHANGED without writing, then UPDATED only what changed', async ({ env }) => {
    const scope = await scopeWithSource(env);
    const items = ['a', 'b', 'c'].map((x) => ({ externalId: x, properties: name(`P ${x}`) }));
    const first = await upsert(env.as.alice, 'project', scope, items);
    expect(first.r.status).toBe(200);
    expect(first.p.results.map((x: any) => [x.index, x.externalId, x.outcome])).toEqual([
      [0, 'a', 'CREATED'],
      [1, 'b', 'CREATED'],
      [2, 'c', 'CREATED'],
    ]);
    expect(first.p).toMatchObject({ created: 3, updated: 0, unchanged: 0, failed: 0, replayed: false });
    const ids = first.p.results.map((x: any) => x.id);
    expect(new Set(ids).size).toBe(3);
    const before = await Promise.all(ids.map((id: string) => row(env, 'projects', id)));
    const logged = (await logOf(env, scope.orgId)).length;

    const again = await upsert(env.as.alice, 'project', scope, items);
    expect(again.p.results.map((x: any) => [x.id, x.outcome])).toEqual(
      ids.map((id: string) => [id, 'UNCHANGED']),
    );
    expect(again.p).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
    const after = await Promise.all(ids.map((id: string) => row(env, 'projects', id)));
    expect(after.map((r) => r.updated_at)).toEqual(before.map((r) => r.updated_at));
    expect((await logOf(env, scope.orgId)).length).toBe(logged);

    // Only the property sent changes; the others stay as they are (a partial update).
    const changed = await upsert(env.as.alice, 'project', scope, [
      { externalId: 'a', properties: name('P a') },
      { externalId: 'b', properties: { capacity_mw: { number: 7 } } },
    ]);
    expect(changed.p.results.map((x: any) => x.outcome)).toEqual(['UNCHANGED', 'UPDATED']);
    const b = await row(env, 'projects', ids[1]);
    expect(b.properties).toEqual({ name: { text: 'P b' }, capacity_mw: { number: 7 } });
    expect(b.updated_at.getTime()).toBeGreaterThan(before[1].updated_at.getTime());
    const log = (await logOf(env, scope.orgId)).slice(logged);
    expect(log).toEqual([
      {
        record_id: ids[1],
        op: 'update',
        related_id: null,
        changes: { capacity_mw: { before: null, after: { number: 7 } } },
      },
    ]);
    // Counted in the portfolio: three records, no duplicates from the repeated calls.
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(3);
  });

  test('typed values work as in createProject; clear: true clears', async ({ env }) => {
    const scope = await scopeWithSource(env);
    const { p } = await upsert(env.as.alice, 'project', scope, [
      {
        externalId: 't1',
        values: [
          { propertyId: 'name', value: { text: 'Typed' } },
          { propertyId: 'capacity_mw', value: { number: 3 } },
        ],
      },
    ]);
    expect(p.results[0].outcome).toBe('CREATED');
    const cleared = await upsert(env.as.alice, 'project', scope, [
      { externalId: 't1', values: [{ propertyId: 'capacity_mw', value: { clear: true } }] },
    ]);
    expect(cleared.p.results[0].outcome).toBe('UPDATED');
    expect((await row(env, 'projects', p.results[0].id)).properties).toEqual({ name: { text: 'Typed' } });
  });

  test('per-item failures name the index and external id; the valid items are written', async ({ env }) => {
    const scope = await scopeWithSource(env);
    const { r, p } = await upsert(env.as.alice, 'project', scope, [
      { externalId: 'ok', properties: name('fine') },
      { externalId: 'bad', properties: { ...name('x'), nope: { text: 'y' } } },
      { externalId: 'dup', properties: name('one') },
      { externalId: 'dup', properties: name('two') },
      { externalId: 'noname', properties: {} },
    ]);
    expect(r.status).toBe(200);
    expect(p.results.map((x: any) => x.outcome)).toEqual(['CREATED', 'FAILED', 'FAILED', 'FAILED', 'FAILED']);
    expect(p.results[1].userErrors).toEqual([
      {
        code: 'UNKNOWN_PROPERTY',
        message: expect.stringMatching(/^Item 1 \(external id "bad"\): unknown property/),
        propertyId: 'nope',
        path: ['input', 'items', '1', 'properties', 'nope'],
      },
    ]);
    for (const i of [2, 3]) {
      expect(p.results[i].userErrors[0].code).toBe('DUPLICATE');
      expect(p.results[i].userErrors[0].message).toContain(`Item ${i} (external id "dup")`);
    }
    expect(p.results[4].userErrors[0]).toMatchObject({ code: 'REQUIRED', propertyId: 'name' });
    expect(p).toMatchObject({ created: 1, failed: 4 });
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(1);
  });

  test('allOrNone writes nothing when any item fails', async ({ env }) => {
    const scope = await scopeWithSource(env);
    const logged = (await logOf(env, scope.orgId)).length;
    const { p } = await upsert(
      env.as.alice,
      'project',
      scope,
      [
        { externalId: 'x1', properties: name('fine') },
        { externalId: 'x2', properties: { nope: { text: 'y' } } },
      ],
      { allOrNone: true },
    );
    expect(p.results.map((x: any) => x.outcome)).toEqual(['FAILED', 'FAILED']);
    expect(p.results[0].userErrors[0].code).toBe('NOT_WRITTEN');
    expect(p.results[0].id).toBeNull();
    expect(p).toMatchObject({ created: 0, failed: 2 });
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(0);
    expect((await logOf(env, scope.orgId)).length).toBe(logged);
  });

  test('an idempotency key replays the first answer without writing; another input under it is refused', async ({
    env,
  }) => {
    const scope = await scopeWithSource(env);
    const items = [{ externalId: 'k1', properties: name('first') }];
    const key = `key-${scope.portfolioId}`;
    const first = await upsert(env.as.alice, 'project', scope, items, { idempotencyKey: key });
    expect(first.p.replayed).toBe(false);
    expect(first.p.results[0].outcome).toBe('CREATED');
    const logged = (await logOf(env, scope.orgId)).length;

    const replay = await upsert(env.as.alice, 'project', scope, items, { idempotencyKey: key });
    expect(replay.p).toEqual({ ...first.p, replayed: true });
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(1);
    expect((await logOf(env, scope.orgId)).length).toBe(logged);

    const other = await upsert(
      env.as.alice,
      'project',
      scope,
      [{ externalId: 'k1', properties: name('changed') }],
      {
        idempotencyKey: key,
      },
    );
    expect(other.r.status).toBe(422);
    expect(other.r.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await row(env, 'projects', first.p.results[0].id)).properties).toEqual(name('first'));

    // Older than 24 hours, the key is free again: the call runs (and finds the record unchanged).
    await sql`update idempotency_keys set created_at = now() - interval '25 hours'
      where org_id = ${scope.orgId} and key = ${key}`.execute(env.database.db);
    const later = await upsert(env.as.alice, 'project', scope, items, { idempotencyKey: key });
    expect(later.p).toMatchObject({ replayed: false, unchanged: 1 });
    // Retention (src/retention.ts) deletes keys past their 24 hours, and only those.
    await sql`update idempotency_keys set created_at = now() - interval '25 hours'
      where org_id = ${scope.orgId} and key = ${key}`.execute(env.database.db);
    await upsert(env.as.alice, 'project', scope, items, { idempotencyKey: `${key}-fresh` });
    expect(await pruneIdempotencyKeys(env.database.db)).toBeGreaterThanOrEqual(1);
    const { rows } = await sql<{ key: string }>`
      select key from idempotency_keys where org_id = ${scope.orgId} and key like ${`${key}%`}`.execute(
      env.database.db,
    );
    expect(rows.map((r) => r.key)).toEqual([`${key}-fresh`]);
  });

  test('two calls at once with one idempotency key: one writes, the other replays its answer', async ({
    env,
  }) => {
    const scope = await scopeWithSource(env);
    const items = [{ externalId: 'race-1', properties: name('race') }];
    const key = `race-${scope.portfolioId}`;
    const [a, b] = await Promise.all([
      upsert(env.as.alice, 'project', scope, items, { idempotencyKey: key }),
      upsert(env.as.alice, 'project', scope, items, { idempotencyKey: key }),
    ]);
    expect([a.p.replayed, b.p.replayed].sort()).toEqual([false, true]);
    expect(a.p.results).toEqual(b.p.results);
    expect(a.p.results[0].outcome).toBe('CREATED');
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(1);
  });

  test('two calls at once creating one external id make one record', async ({ env }) => {
    const scope = await scopeWithSource(env);
    const items = Array.from({ length: 50 }, (_, i) => ({
      externalId: `twin-${i}`,
      properties: name(`t${i}`),
    }));
    const [a, b] = await Promise.all([
      upsert(env.as.alice, 'project', scope, items),
      upsert(env.as.alice, 'project', scope, items),
    ]);
    expect(a.p.failed + b.p.failed).toBe(0);
    expect(a.p.created + b.p.created).toBe(50);
    expect(a.p.unchanged + b.p.unchanged).toBe(50);
    expect(a.p.results.map((x: any) => x.id)).toEqual(b.p.results.map((x: any) => x.id));
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(50);
  });

  test('1,000 items pass the limits; 1,001 get a 400 stating the limit, before anything is written', async ({
    env,
  }) => {
    const scope = await scopeWithSource(env);
    const items = Array.from({ length: 1000 }, (_, i) => ({
      externalId: `c${i}`,
      properties: { first_name: { text: `C${i}` } },
    }));
    const ok = await upsert(env.as.alice, 'contact', scope, items);
    expect(ok.r.status).toBe(200);
    expect(ok.p.created).toBe(1000);
    const over = await upsert(env.as.alice, 'contact', scope, [
      ...items,
      { externalId: 'c1000', properties: { first_name: { text: 'one too many' } } },
    ]);
    expect(over.r.status).toBe(400);
    expect(over.r.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(over.r.body.errors[0].message).toMatch(/holds 1001 entries; at most 1000 are accepted per call/);
    expect(await countIn(env, 'contacts', scope.portfolioId)).toBe(1000);
  });

  test('an unknown source is refused naming it; a source is declared by owners and admins', async ({
    env,
  }) => {
    const scope = await scopeWithSource(env);
    const { r } = await upsert(env.as.alice, 'project', scope, [{ externalId: 'a', properties: name('a') }], {
      source: 'hubspto',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(r.body.errors[0].message).toContain('Unknown source "hubspto"');
    expect(r.body.errors[0].message).toContain('"crm"');
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(0);

    const member = await env.as.bob.gql(
      `mutation ($input: RegisterExternalSourceInput!) { registerExternalSource(input: $input) { sources } }`,
      { input: { orgId: scope.orgId, name: 'other' } },
    );
    expect(member.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const bad = await env.as.alice.gql(
      `mutation ($input: RegisterExternalSourceInput!) { registerExternalSource(input: $input) { sources } }`,
      { input: { orgId: scope.orgId, name: 'has space' } },
    );
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const listed = await env.as.vera.gql(`query ($id: ID!) { organization(id: $id) { externalSources } }`, {
      id: scope.orgId,
    });
    expect(listed.body.data.organization.externalSources).toContain('crm');
  });

  test('parcels: geometry with acres, a bad geometry refused by index, members forbidden', async ({
    env,
  }) => {
    const scope = await scopeWithSource(env);
    const bowtie = {
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [1, 1],
          [1, 0],
          [0, 1],
          [0, 0],
        ],
      ],
    };
    const { p } = await upsert(env.as.alice, 'parcel', scope, [
      { externalId: 'p1', properties: name('one'), geometry: box(-101.9, 33.5) },
      { externalId: 'p2', properties: name('two'), geometry: bowtie },
      { externalId: 'p3', properties: name('three') },
    ]);
    expect(p.results.map((x: any) => x.outcome)).toEqual(['CREATED', 'FAILED', 'CREATED']);
    expect(p.results[1].userErrors[0]).toMatchObject({
      code: 'INVALID_VALUE',
      path: ['input', 'items', '1', 'geometry'],
      message: expect.stringMatching(/^Item 1 \(external id "p2"\): geometry has edges that cross/),
    });
    const p1 = await row(env, 'parcels', p.results[0].id);
    expect(p1.geometry).toEqual(box(-101.9, 33.5));
    // A box of 0.001° at latitude 33.5: about 111 m × 93 m, 2.55 acres.
    expect(p1.acres).toBeCloseTo(2.55, 1);
    expect((await row(env, 'parcels', p.results[2].id)).geometry).toBeNull();

    // The same geometry again: unchanged. A new one: updated, with its acres. Absent: left as is.
    const same = await upsert(env.as.alice, 'parcel', scope, [
      { externalId: 'p1', geometry: box(-101.9, 33.5) },
      { externalId: 'p3', geometry: box(-101.8, 33.5, 0.002) },
    ]);
    expect(same.p.results.map((x: any) => x.outcome)).toEqual(['UNCHANGED', 'UPDATED']);
    const p3 = await row(env, 'parcels', p.results[2].id);
    // A geometry-only change is one update entry, with no property changes.
    const { rows: geoLog } = await sql<{ op: string; changes: unknown }>`
      select op, changes from change_log where org_id = ${scope.orgId} and record_id = ${p.results[2].id}
      order by seq`.execute(env.database.db);
    expect(geoLog).toEqual([
      { op: 'create', changes: { name: { before: null, after: { text: 'three' } } } },
      { op: 'update', changes: {} },
    ]);
    expect(p3.acres).toBeGreaterThan(4 * p1.acres! - 1);
    const untouched = await upsert(env.as.alice, 'parcel', scope, [
      { externalId: 'p3', properties: name('three') },
    ]);
    expect(untouched.p.results[0].outcome).toBe('UNCHANGED');
    expect((await row(env, 'parcels', p.results[2].id)).geometry).toEqual(box(-101.8, 33.5, 0.002));

    const member = await upsert(env.as.bob, 'parcel', scope, [{ externalId: 'p9', properties: name('m') }]);
    expect(member.r.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const viewer = await upsert(env.as.vera, 'project', scope, [{ externalId: 'v', properties: name('v') }]);
    expect(viewer.r.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // The refused calls wrote nothing.
    expect(await countIn(env, 'parcels', scope.portfolioId)).toBe(2);
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(0);
    // Members upsert projects and contacts.
    const ok = await upsert(env.as.bob, 'project', scope, [{ externalId: 'm1', properties: name('m') }]);
    expect(ok.p.results[0].outcome).toBe('CREATED');
    // Geometry is for parcels only.
    const geo = await upsert(env.as.alice, 'project', scope, [
      { externalId: 'g', properties: name('g'), geometry: box(0, 0) },
    ]);
    expect(geo.p.results[0].userErrors[0]).toMatchObject({
      code: 'INVALID_INPUT',
      path: ['input', 'items', '0', 'geometry'],
    });
  });

  test('a guest writes projects in a granted portfolio only, and no parcels or sources', async ({ env }) => {
    const A1 = { orgId: env.demo.orgs.A.id, portfolioId: env.demo.orgs.A.portfolios.A1 };
    const A2 = { orgId: env.demo.orgs.A.id, portfolioId: env.demo.orgs.A.portfolios.A2 };
    await declare(env.as.alice, A1, 'crm');
    const ok = await upsert(env.as.gina, 'project', A1, [{ externalId: 'guest-1', properties: name('g') }]);
    expect(ok.p.results[0].outcome).toBe('CREATED');
    const other = await upsert(env.as.gina, 'project', A2, [
      { externalId: 'guest-2', properties: name('g') },
    ]);
    expect(other.r.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const parcels = await upsert(env.as.gina, 'parcel', A1, [
      { externalId: 'guest-3', properties: name('g') },
    ]);
    expect(parcels.r.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const source = await env.as.gina.gql(
      `mutation ($input: RegisterExternalSourceInput!) { registerExternalSource(input: $input) { sources } }`,
      { input: { orgId: A1.orgId, name: 'guests' } },
    );
    expect(source.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  test('tenants: another org answers NOT_FOUND; the same external id in two orgs is two records', async ({
    env,
  }) => {
    const scope = await scopeWithSource(env);
    const B = { orgId: env.demo.orgs.B.id, portfolioId: env.demo.orgs.B.portfolios.B1 };
    const foreign = await upsert(env.as.nora, 'project', scope, [{ externalId: 'a', properties: name('a') }]);
    expect(foreign.r.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(await countIn(env, 'projects', scope.portfolioId)).toBe(0);
    const mixed = await upsert(env.as.alice, 'project', { orgId: scope.orgId, portfolioId: B.portfolioId }, [
      { externalId: 'a', properties: name('a') },
    ]);
    expect(mixed.r.body.errors[0].extensions.code).toBe('NOT_FOUND');

    await declare(env.as.nora, B, 'crm');
    const a = await upsert(env.as.alice, 'project', scope, [{ externalId: 'shared', properties: name('A') }]);
    const b = await upsert(env.as.nora, 'project', B, [{ externalId: 'shared', properties: name('B') }]);
    expect(a.p.results[0].outcome).toBe('CREATED');
    expect(b.p.results[0].outcome).toBe('CREATED');
    expect(a.p.results[0].id).not.toBe(b.p.results[0].id);
    // A record of another org named by id is not found, as if absent.
    const byId = await upsert(env.as.alice, 'project', scope, [
      { externalId: 'steal', id: b.p.results[0].id, properties: name('x') },
    ]);
    expect(byId.p.results[0].userErrors[0].code).toBe('NOT_FOUND');
    // The lookup across orgs answers null.
    const look = await env.as.alice.gql(
      `query ($o: ID!) { recordByExternalId(orgId: $o, source: "crm", externalId: "shared") { id } }`,
      { o: B.orgId },
    );
    expect(look.body.data.recordByExternalId).toBeNull();
  });

  test('an existing record gets an external id by id; an external id of another kind or portfolio is taken', async ({
    env,
  }) => {
    const scope = await scopeWithSource(env);
    const made = await env.as.alice.post('/projects/v1', { properties: name('by REST') }, scope);
    const id = made.body.id;
    const bound = await upsert(env.as.alice, 'project', scope, [
      { externalId: 'r1', id, properties: name('by REST') },
    ]);
    expect(bound.p.results[0]).toMatchObject({ id, outcome: 'UNCHANGED' });
    // Now found by its external id.
    const next = await upsert(env.as.alice, 'project', scope, [
      { externalId: 'r1', properties: name('renamed') },
    ]);
    expect(next.p.results[0]).toMatchObject({ id, outcome: 'UPDATED' });
    // One id per source on a record.
    const second = await upsert(env.as.alice, 'project', scope, [{ externalId: 'r2', id }]);
    expect(second.p.results[0].userErrors[0].code).toBe('EXTERNAL_ID_TAKEN');
    // A contact under a project's external id.
    const kind = await upsert(env.as.alice, 'contact', scope, [
      { externalId: 'r1', properties: { first_name: { text: 'x' } } },
    ]);
    expect(kind.p.results[0].userErrors[0]).toMatchObject({
      code: 'EXTERNAL_ID_TAKEN',
      message: expect.stringContaining('belongs to a project'),
    });
    const other = await freshPortfolio(env);
    const moved = await upsert(env.as.alice, 'project', other, [{ externalId: 'r1', properties: name('x') }]);
    expect(moved.p.results[0].userErrors[0].code).toBe('EXTERNAL_ID_TAKEN');
    // REST v1 answers exactly as before: no external ids in its records.
    const rest = await env.as.alice.get('/projects/v1', scope);
    expect(rest.body.items.map((x: object) => Object.keys(x).sort())).toEqual([
      ['created_at', 'id', 'properties', 'updated_at'],
    ]);
  });

  test('external ids are read on records, looked up, and filtered on, planned or not', async ({ env }) => {
    const scope = await scopeWithSource(env);
    await declare(env.as.alice, scope, 'county');
    const { p } = await upsert(env.as.alice, 'parcel', scope, [
      { externalId: 'e1', properties: name('one') },
      { externalId: 'e2', properties: name('two') },
    ]);
    const [id1] = p.results.map((x: any) => x.id);
    await upsert(env.as.alice, 'parcel', scope, [{ externalId: 'APN-1', id: id1 }], { source: 'county' });
    const list = await env.as.alice.gql(
      `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
        parcels(first: 10) { nodes { id externalIds { source id } } } } } }`,
      { o: scope.orgId, p: scope.portfolioId },
    );
    expect(list.body.errors).toBeUndefined();
    // One call's records share a creation time, so the list orders them by id: compare as a set.
    const nodes = list.body.data.organization.portfolio.parcels.nodes;
    expect(nodes).toHaveLength(2);
    expect(nodes).toEqual(
      expect.arrayContaining([
        {
          id: id1,
          externalIds: [
            { source: 'county', id: 'APN-1' },
            { source: 'crm', id: 'e1' },
          ],
        },
        { id: p.results[1].id, externalIds: [{ source: 'crm', id: 'e2' }] },
      ]),
    );
    // The same answer with the planned executor off (GRAPHQL_PLANS=0): the plan does not take it.
    const app = await buildApp({ database: env.database, graphqlPlans: false });
    apps.push(app);
    const unplanned = await client(app, env.demo.users.alice.apiKey).gql(
      `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
        parcels(first: 10) { nodes { id externalIds { source id } } } } } }`,
      { o: scope.orgId, p: scope.portfolioId },
    );
    expect(unplanned.body).toEqual(list.body);
    const look = await env.as.alice.gql(
      `query ($o: ID!) { recordByExternalId(orgId: $o, source: "county", externalId: "APN-1") { __typename id } }`,
      { o: scope.orgId },
    );
    expect(look.body.data.recordByExternalId).toEqual({ __typename: 'Parcel', id: id1 });
    const filtered = `query ($o: ID!, $p: ID!, $f: RecordFilter) { organization(id: $o) { portfolio(id: $p) {
      parcels(first: 10, filter: $f) { totalCount nodes { id } } } } }`;
    const f = await env.as.alice.gql(filtered, {
      o: scope.orgId,
      p: scope.portfolioId,
      f: { externalId: { source: 'crm', id: 'e2' } },
    });
    expect(f.body.data.organization.portfolio.parcels).toEqual({
      totalCount: 1,
      nodes: [{ id: p.results[1].id }],
    });
    // Written into the document rather than a variable (a shape the planner may take).
    const literal = await env.as.alice.gql(
      `query { organization(id: "${scope.orgId}") { portfolio(id: "${scope.portfolioId}") {
        parcels(first: 10, filter: { externalId: { source: "county", id: "APN-1" } }) { nodes { id externalIds { id } } } } } }`,
    );
    expect(literal.body.data.organization.portfolio.parcels.nodes).toEqual([
      { id: id1, externalIds: [{ id: 'APN-1' }, { id: 'e1' }] },
    ]);
  });

  test('a sync client reads exactly what a call changed from the feed cursor it took before', async ({
    env,
  }) => {
    const scope = await scopeWithSource(env);
    const { p } = await upsert(env.as.alice, 'project', scope, [
      { externalId: 'f1', properties: name('one') },
      { externalId: 'f2', properties: name('two') },
    ]);
    const FEED_PAGE = `query ($o: ID!, $p: ID!, $a: String) { organization(id: $o) { portfolio(id: $p) {
      changes(first: 100, after: $a) { nodes { operation recordId } pageInfo { endCursor } } } } }`;
    // Reads on from `after` until `done` holds: the feed holds back entries while an older
    // transaction may still commit (on a shared Postgres, another test's), as a sync client sees.
    const readUntil = async (after: string | null, done: (seen: any[]) => boolean) => {
      const seen: any[] = [];
      for (const end = Date.now() + 15_000; !done(seen) && Date.now() < end; ) {
        const page = await env.as.alice.gql(FEED_PAGE, { o: scope.orgId, p: scope.portfolioId, a: after });
        const changes = page.body.data.organization.portfolio.changes;
        seen.push(...changes.nodes);
        after = changes.pageInfo.endCursor ?? after;
        if (!done(seen)) await new Promise((r) => setTimeout(r, 100));
      }
      return { seen, cursor: after };
    };
    // The client's position: the end of what it has read, the first call included.
    const { cursor } = await readUntil(
      null,
      (seen) => seen.filter((c) => c.operation === 'CREATE').length >= 2,
    );
    const endpoint = await insertEndpoint(env.database.db, {
      orgId: scope.orgId,
      url: 'https://hooks.example.com/sync',
      events: [...WEBHOOK_EVENTS],
      portfolioIds: [scope.portfolioId],
      secret: 'whsec_test',
      createdBy: null,
    });
    const call = await upsert(env.as.alice, 'project', scope, [
      { externalId: 'f1', properties: name('one') },
      { externalId: 'f2', properties: name('two, renamed') },
      { externalId: 'f3', properties: name('three') },
    ]);
    expect(call.p.results.map((x: any) => x.outcome)).toEqual(['UNCHANGED', 'UPDATED', 'CREATED']);
    const { seen } = await readUntil(cursor, (x) => x.length >= 2);
    expect(seen).toEqual([
      { operation: 'CREATE', recordId: call.p.results[2].id },
      { operation: 'UPDATE', recordId: p.results[1].id },
    ]);
    // Webhooks are fed from the same log: one delivery per changed record, none for the unchanged one.
    while ((await fanOut(env.database.db, scope.orgId, 500)) > 0) {}
    const { rows } = await sql<{ body: string }>`
      select body from webhook_deliveries where org_id = ${scope.orgId} and endpoint_id = ${endpoint.id}`.execute(
      env.database.db,
    );
    const records = rows.map((r) => JSON.parse(r.body).data.recordId).sort();
    expect(rows.length).toBe(2);
    expect(records).toEqual([call.p.results[2].id, p.results[1].id].sort());
  });
});
