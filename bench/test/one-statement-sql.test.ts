import { CompiledQuery } from 'kysely';
import { hashApiKey } from '../../src/modules/auth/index.js';
import { CursorCodec } from '../../src/pagination/cursor.js';
import { describe, expect, type TestEnv, test } from '../../test/helpers/fixtures.js';
import {
  type Access,
  hmacPads,
  NESTED_SQL,
  nestedValues,
  PAGE_SQL,
  pageValues,
} from '../one-statement-sql.js';
import { NESTED_PROPERTIES_QUERY } from '../peers-equal.js';

/**
 * The one-statement floor (bench/one-statement.ts) is a floor only while its statements answer what
 * the gateway answers. Here they run on the demo data and must equal the gateway's answers exactly:
 * same ids, order, values, labels and cursors. A change to the gateway's answers or to the schema
 * that the floor's SQL does not follow fails here, before a benchmark compares different work.
 */

type Env = TestEnv;

async function secretOf(env: Env): Promise<string> {
  if (process.env.CURSOR_SECRET) return process.env.CURSOR_SECRET;
  const { rows } = await env.database.db.executeQuery<{ value: string }>(
    CompiledQuery.raw("select value from instance_settings where key = 'cursor_secret'"),
  );
  return rows[0].value;
}

async function run(env: Env, text: string, values: unknown[]): Promise<{ access: Access; body: any }> {
  const { rows } = await env.database.db.executeQuery<{ access: Access; body: string | null }>(
    CompiledQuery.raw(text, values),
  );
  expect(rows).toHaveLength(1);
  const [row] = rows;
  // The text as Postgres built it is what the floor sends: it must be JSON on its own.
  return { access: row.access, body: row.body === null ? null : JSON.parse(row.body) };
}

describe('the one-statement floor answers what the gateway answers', () => {
  test('the nested query with raw properties, at sizes that leave a next page at every level', async ({
    env,
  }) => {
    const pads = hmacPads(await secretOf(env));
    const { A } = env.demo.orgs;
    for (const [who, sizes] of [
      ['alice', { projects: 100, contacts: 10, parcels: 5 }],
      ['alice', { projects: 20, contacts: 1, parcels: 1 }],
      // A guest of the portfolio: the access check and the users a guest may see.
      ['gina', { projects: 7, contacts: 2, parcels: 1 }],
    ] as const) {
      const gateway = await env.as[who].gql(NESTED_PROPERTIES_QUERY, {
        orgId: A.id,
        portfolioId: A.portfolios.A1,
        ...sizes,
      });
      expect(gateway.status).toBe(200);
      expect(gateway.body.errors).toBeUndefined();
      const floor = await run(
        env,
        NESTED_SQL,
        nestedValues(hashApiKey(env.demo.users[who].apiKey), A.id, A.portfolios.A1, sizes, pads),
      );
      expect(floor.access).toBe('ok');
      expect(floor.body, `${who} ${JSON.stringify(sizes)}`).toEqual(gateway.body);

      // What makes the comparison worth something: every level has nodes, labels and cursors.
      const projects = gateway.body.data.organization.portfolio.projects;
      const contacts = projects.nodes.flatMap((p: any) => p.contacts.nodes);
      const parcels = contacts.flatMap((c: any) => c.parcels.nodes);
      expect(projects.nodes).toHaveLength(Math.min(sizes.projects, 50));
      expect(contacts.length).toBeGreaterThan(0);
      expect(parcels.length).toBeGreaterThan(0);
      expect(projects.pageInfo.endCursor).toMatch(/\./);
      if (sizes.contacts === 1)
        expect(projects.nodes.some((p: any) => p.contacts.pageInfo.hasNextPage)).toBe(true);
      const text = JSON.stringify(floor.body);
      for (const member of ['"labels"', '"people"', '"select"', '"location"', '"date"', '"number"'])
        expect(text).toContain(member);
    }
  });

  test('REST pages: the first, the next one from its nextKey, and the largest limit', async ({ env }) => {
    const secret = await secretOf(env);
    const pads = hmacPads(secret);
    const cursors = new CursorCodec(secret);
    const { A } = env.demo.orgs;
    const hash = hashApiKey(env.demo.users.alice.apiKey);
    const query = { orgId: A.id, portfolioId: A.portfolios.A1 };

    const first = await env.as.alice.get('/projects/v1', { ...query, limit: 20 });
    expect(first.status).toBe(200);
    expect(first.body.nextKey).toEqual(expect.any(String));
    const f1 = await run(env, PAGE_SQL, pageValues(hash, A.id, A.portfolios.A1, 20, undefined, pads));
    expect(f1).toEqual({ access: 'ok', body: first.body });

    // The deep page: the floor's server checks the startKey and sends its bound.
    const next = await env.as.alice.get('/projects/v1', {
      ...query,
      limit: 20,
      startKey: first.body.nextKey,
    });
    expect(next.status).toBe(200);
    const [ms, id] = cursors.decode(`portfolio-projects:${A.portfolios.A1}`, first.body.nextKey, 2);
    const after: [string, string] = [new Date(ms as number).toISOString(), id as string];
    const f2 = await run(env, PAGE_SQL, pageValues(hash, A.id, A.portfolios.A1, 20, after, pads));
    expect(f2).toEqual({ access: 'ok', body: next.body });
    expect(f2.body.items[0].id).not.toBe(f1.body.items[0].id);

    const all = await env.as.alice.get('/projects/v1', { ...query, limit: 5000 });
    expect(all.body.items).toHaveLength(50);
    expect(all.body.nextKey).toBeNull();
    const f3 = await run(env, PAGE_SQL, pageValues(hash, A.id, A.portfolios.A1, 5000, undefined, pads));
    expect(f3).toEqual({ access: 'ok', body: all.body });
  });

  test('an unknown key, a portfolio out of reach and one of another org are refused, with no body', async ({
    env,
  }) => {
    const pads = hmacPads(await secretOf(env));
    const { A, B } = env.demo.orgs;
    const sizes = { projects: 5, contacts: 1, parcels: 1 };
    const key = (who: 'alice' | 'gina') => hashApiKey(env.demo.users[who].apiKey);
    const cases: [string, unknown[], Access][] = [
      [
        'unknown key',
        nestedValues(hashApiKey('sdg_not_a_key_at_all'), A.id, A.portfolios.A1, sizes, pads),
        'unknown-key',
      ],
      [
        'a guest, another portfolio',
        nestedValues(key('gina'), A.id, A.portfolios.A2, sizes, pads),
        'not-found',
      ],
      [
        "another org's portfolio",
        nestedValues(key('alice'), A.id, B.portfolios.B1, sizes, pads),
        'not-found',
      ],
      [
        'an org the caller is not in',
        nestedValues(key('alice'), B.id, B.portfolios.B1, sizes, pads),
        'not-found',
      ],
    ];
    for (const [what, values, access] of cases)
      expect(await run(env, NESTED_SQL, values), what).toEqual({ access, body: null });
    expect(
      await run(env, PAGE_SQL, pageValues(key('gina'), A.id, A.portfolios.A2, 10, undefined, pads)),
    ).toEqual({ access: 'not-found', body: null });
  });

  test("the statement stamps a key's last use, as the gateway's lookup does, at most once a minute", async ({
    env,
  }) => {
    const pads = hmacPads(await secretOf(env));
    const { A } = env.demo.orgs;
    const hash = hashApiKey(env.demo.users.bob.apiKey);
    const stamp = async () =>
      (
        await env.database.db.executeQuery<{ at: Date | null }>(
          CompiledQuery.raw('select last_used_at as at from api_keys where key_hash = $1', [hash]),
        )
      ).rows[0].at;
    await env.database.db.executeQuery(
      CompiledQuery.raw(
        "update api_keys set last_used_at = now() - interval '2 minutes' where key_hash = $1",
        [hash],
      ),
    );
    const old = await stamp();
    await run(env, PAGE_SQL, pageValues(hash, A.id, A.portfolios.A1, 1, undefined, pads));
    const fresh = await stamp();
    expect(fresh!.getTime()).toBeGreaterThan(old!.getTime());
    await run(env, PAGE_SQL, pageValues(hash, A.id, A.portfolios.A1, 1, undefined, pads));
    expect(await stamp()).toEqual(fresh);
  });
});
