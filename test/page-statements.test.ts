import { sql } from 'kysely';
import { forRequest } from '../src/db/database.js';
import { PLAIN_QUERY } from '../src/modules/records/filter.js';
import { LISTS, type ListName } from '../src/modules/records/lists.js';
import { createRecordLoaders } from '../src/modules/records/loaders.js';
import { type PageRequest, pagesFor } from '../src/modules/records/repository.js';
import { capturePages } from './helpers/capture.js';
import { describe, expect, test } from './helpers/fixtures.js';

/**
 * A plain page statement (no filter, order or search) is compiled once per list and direction and
 * kept (repository.ts plainPageStatement). It must stay the statement Kysely builds for the same
 * pages, and still be counted and guarded as a request's statement.
 */
describe('kept page statements', () => {
  test('are, for every list and direction, the statement Kysely builds, parameters and all', async ({
    env,
  }) => {
    const db = env.database.db;
    const org = env.demo.orgs.A.id;
    const pf = env.demo.orgs.A.portfolios.A1;
    // A parent of every kind, with a cursor on one of the two parents.
    const parentOf = async (kind: 'portfolio' | 'project' | 'parcel' | 'contact') => {
      if (kind === 'portfolio') return pf;
      const table = `${kind}s`;
      const { rows } = await sql<{ id: string }>`
        select id from ${sql.table(table)} where org_id = ${org} and portfolio_id = ${pf}
        order by created_at, id limit 1`.execute(db);
      return rows[0].id;
    };
    const bound = [Date.now(), 'zz'];
    for (const list of Object.keys(LISTS) as ListName[]) {
      const parentKind = list.split('-')[0] as 'portfolio' | 'project' | 'parcel' | 'contact';
      const parent = await parentOf(parentKind);
      for (const direction of ['forward', 'backward'] as const) {
        const reqs = (query: PageRequest['query']): PageRequest[] => [
          { list, orgId: org, parentId: parent, limit: 4, direction, query },
          { list, orgId: org, parentId: parent, limit: 3, direction, query, bound },
        ];
        // Twice: the first compiles and keeps the statement, the second runs the kept one.
        await capturePages(db, reqs(PLAIN_QUERY));
        const kept = await capturePages(db, reqs(PLAIN_QUERY));
        // Any query but PLAIN_QUERY itself is built by Kysely every time; this one filters nothing.
        const built = await capturePages(db, reqs({ ...PLAIN_QUERY, sig: 'built' }));
        const label = `${list} ${direction}`;
        expect(kept.sent[0].sql, label).toBe(built.sent[0].sql);
        expect(kept.sent[0].parameters, label).toEqual(built.sent[0].parameters);
        expect(kept.pages, label).toEqual(built.pages);
      }
    }
  });

  test("are counted as the request's statements", async ({ env }) => {
    const counter = { count: 0 };
    const db = forRequest(env.database, counter);
    const req: PageRequest = {
      list: 'portfolio-projects',
      orgId: env.demo.orgs.A.id,
      parentId: env.demo.orgs.A.portfolios.A1,
      limit: 2,
      direction: 'forward',
    };
    const first = await pagesFor(db, [req]);
    const second = await pagesFor(db, [req]);
    expect(second).toEqual(first);
    expect(first[0]).toHaveLength(2);
    expect(counter.count).toBe(2);
  });

  test("a plan's level asks for each parent once, and answers every request", async ({ env }) => {
    const counter = { count: 0 };
    const db = forRequest(env.database, counter);
    const org = env.demo.orgs.A.id;
    const req = (parentId: string): PageRequest => ({
      list: 'portfolio-projects',
      orgId: org,
      parentId,
      limit: 2,
      direction: 'forward',
    });
    const [a, b] = [env.demo.orgs.A.portfolios.A1, env.demo.orgs.A.portfolios.A2];
    const pages = await createRecordLoaders(db, [org]).level([req(a), req(b), req(a)]);
    expect(counter.count).toBe(1);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
    expect(pages[2]).toBe(pages[0]);
    expect(pages[1]).not.toEqual(pages[0]);
  });
});
