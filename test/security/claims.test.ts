import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { describe, expect, test, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { startRetention } from '../../src/retention.js';
import { seededDatabase } from '../helpers/database.js';
import { client } from '../helpers/http.js';

/**
 * Claims of SECURITY.md and docs/ that no other test proved: the link tables' foreign keys refuse a
 * cross-portfolio link, a CORS preflight does no database work, CURSOR_SECRET overrides the stored
 * cursor secret, and change-log retention (hourly; 0 days keeps everything).
 */
const seeded = seededDatabase();

// The real one, kept before a test replaces it.
const realSetTimeout = globalThis.setTimeout;

describe('SECURITY.md: link foreign keys include the portfolio', () => {
  const links = [
    ['project_contacts', 'project_id', 'projects', 'contact_id', 'contacts'],
    ['parcel_contacts', 'parcel_id', 'parcels', 'contact_id', 'contacts'],
    ['project_parcels', 'project_id', 'projects', 'parcel_id', 'parcels'],
  ] as const;

  test('the database refuses a link between two portfolios of one organization (23503), and writes nothing', async () => {
    const { database, demo } = seeded;
    const { db } = database;
    const org = demo.orgs.A.id;
    const { A1, A2 } = demo.orgs.A.portfolios;
    const oneOf = async (table: string, portfolio: string) => {
      const { rows } = await sql<{ id: string }>`select id from ${sql.table(table)}
        where org_id = ${org} and portfolio_id = ${portfolio} order by id limit 1`.execute(db);
      expect(rows, `${table} in ${portfolio}`).toHaveLength(1);
      return rows[0].id;
    };
    const count = async (table: string, a: string, aId: string, b: string, bId: string) => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}
        where org_id = ${org} and ${sql.ref(a)} = ${aId} and ${sql.ref(b)} = ${bId}`.execute(db);
      return rows[0].n;
    };
    for (const [table, a, aTable, b, bTable] of links) {
      const aId = await oneOf(aTable, A1);
      const bId = await oneOf(bTable, A2);
      // Either portfolio named on the link row: the record of the other one is not in it.
      for (const [portfolio, fk] of [
        [A1, `${table}_${b}_fk`],
        [A2, `${table}_${a}_fk`],
      ]) {
        const err =
          await sql`insert into ${sql.table(table)} (org_id, portfolio_id, ${sql.ref(a)}, ${sql.ref(b)})
          values (${org}, ${portfolio}, ${aId}, ${bId})`
            .execute(db)
            .then(
              () => undefined,
              (e: { code?: string; constraint?: string }) => e,
            );
        // The message names the key (on Citus, the shard's copy of it; its error has no constraint field).
        expect(err, `${table} in ${portfolio}`).toMatchObject({
          code: '23503',
          message: expect.stringContaining(`foreign key constraint "${fk}`),
        });
      }
      expect(await count(table, a, aId, b, bId), table).toBe(0);
    }
  });
});

describe('SECURITY.md: a CORS preflight does no database work', () => {
  const ORIGIN = 'http://localhost:5173';

  test('a preflight carrying an API key is answered 204 with no SQL statement', async () => {
    const { database, demo } = seeded;
    const app = await buildApp({ database, exposeStatementCount: true, corsOrigins: [ORIGIN] });
    try {
      for (const [url, method] of [
        ['/graphql', 'POST'],
        [`/projects/v1?orgId=${demo.orgs.A.id}&portfolioId=${demo.orgs.A.portfolios.A1}`, 'GET'],
      ]) {
        const before = database.stats.statements;
        const r = await app.inject({
          method: 'OPTIONS',
          url,
          headers: {
            origin: ORIGIN,
            'access-control-request-method': method,
            'access-control-request-headers': 'x-api-key,content-type',
            'x-api-key': demo.users.alice.apiKey,
          },
        });
        expect(r.statusCode, url).toBe(204);
        expect(r.headers['access-control-allow-origin'], url).toBe(ORIGIN);
        expect(r.headers['x-sql-statements'], url).toBe('0');
        expect(database.stats.statements - before, url).toBe(0);
      }
      // The same key on a real request does run SQL: the count above is not zero by accident.
      const real = await client(app, demo.users.alice.apiKey).get('/organizations/v1');
      expect(real.status).toBe(200);
      expect(real.sql).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});

describe('docs/operations.md: CURSOR_SECRET overrides the stored secret', () => {
  /** An app built with CURSOR_SECRET set to `secret` (unset when undefined); the variable is restored. */
  async function appWith(secret: string | undefined): Promise<FastifyInstance> {
    const saved = process.env.CURSOR_SECRET;
    if (secret === undefined) delete process.env.CURSOR_SECRET;
    else process.env.CURSOR_SECRET = secret;
    try {
      return await buildApp({ database: seeded.database });
    } finally {
      if (saved === undefined) delete process.env.CURSOR_SECRET;
      else process.env.CURSOR_SECRET = saved;
    }
  }

  test('a startKey signed with one secret is refused (400 INVALID_CURSOR) by an app with another, on the same database', async () => {
    const { demo } = seeded;
    const scope = { orgId: demo.orgs.A.id, portfolioId: demo.orgs.A.portfolios.A1, limit: 2 };
    const key = demo.users.alice.apiKey;
    const apps = {
      stored: await appWith(undefined),
      one: await appWith('first-secret-for-this-test'),
      oneAgain: await appWith('first-secret-for-this-test'),
      two: await appWith('second-secret-for-this-test'),
    };
    try {
      const as = Object.fromEntries(Object.entries(apps).map(([k, app]) => [k, client(app, key)])) as Record<
        keyof typeof apps,
        ReturnType<typeof client>
      >;
      const nextKey = async (c: ReturnType<typeof client>) => {
        const r = await c.get('/projects/v1', scope);
        expect(r.status).toBe(200);
        expect(r.body.nextKey).toEqual(expect.any(String));
        return r.body.nextKey as string;
      };
      const page = (c: ReturnType<typeof client>, startKey: string) =>
        c.get('/projects/v1', { ...scope, startKey });
      const refused = (r: { status: number; body: any }) => {
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('INVALID_CURSOR');
      };

      const signedByOne = await nextKey(as.one);
      // The same secret on another app (another replica): accepted, and the page goes on.
      const ok = await page(as.oneAgain, signedByOne);
      expect(ok.status).toBe(200);
      expect(ok.body.items.length).toBeGreaterThan(0);
      // Another secret, or the stored one: refused.
      refused(await page(as.two, signedByOne));
      refused(await page(as.stored, signedByOne));
      // And the other way: the stored secret's cursor is refused once CURSOR_SECRET overrides it.
      const signedByStored = await nextKey(as.stored);
      expect((await page(as.stored, signedByStored)).status).toBe(200);
      refused(await page(as.one, signedByStored));
    } finally {
      await Promise.all(Object.values(apps).map((app) => app.close()));
    }
  });
});

describe('docs/operations.md: change-log retention runs hourly, and 0 days keeps everything', () => {
  const HOUR_MS = 3_600_000;
  type Run = () => Promise<void>;

  /**
   * startRetention with its two timers caught instead of set: what each would run and after how
   * long. Fake timers would also hold the database pool's own timers, so the runs are called here
   * and awaited instead.
   */
  function startCaught(days: number, log: ReturnType<typeof logger>) {
    const caught: { first?: { run: Run; ms: number }; every?: { run: Run; ms: number } } = {};
    const inert = () => realSetTimeout(() => {}, 0);
    const t = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((run: Run, ms: number) => {
      caught.first = { run, ms };
      return inert();
    }) as unknown as typeof setTimeout);
    const i = vi.spyOn(globalThis, 'setInterval').mockImplementation(((run: Run, ms: number) => {
      caught.every = { run, ms };
      return inert();
    }) as unknown as typeof setInterval);
    let retention: ReturnType<typeof startRetention>;
    try {
      retention = startRetention(seeded.database.db, days, log);
    } finally {
      t.mockRestore();
      i.mockRestore();
    }
    if (!caught.first || !caught.every) throw new Error('startRetention set no timeout and interval');
    return { first: caught.first, every: caught.every, stop: retention.stop };
  }

  /** A change-log entry of org A, `daysOld` days old; returns its record id. */
  async function logEntry(recordId: string, daysOld: number) {
    const { database, demo } = seeded;
    await sql`insert into change_log (org_id, portfolio_id, record_kind, record_id, op, at)
      values (${demo.orgs.A.id}, ${demo.orgs.A.portfolios.A1}, 'project', ${recordId}, 'update',
        now() - make_interval(days => ${daysOld}::int))`.execute(database.db);
    return recordId;
  }
  async function present(recordId: string): Promise<boolean> {
    const { database, demo } = seeded;
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from change_log
      where org_id = ${demo.orgs.A.id} and record_id = ${recordId}`.execute(database.db);
    return rows[0].n > 0;
  }
  async function removeEntries(...recordIds: string[]) {
    const { database, demo } = seeded;
    await sql`delete from change_log where org_id = ${demo.orgs.A.id}
      and record_id in (${sql.join(recordIds)})`.execute(database.db);
  }
  const logger = () => ({ info: vi.fn(), warn: vi.fn() });
  const deletions = (log: ReturnType<typeof logger>) =>
    log.info.mock.calls.filter((c) => c[1] === 'change log: old entries deleted').map((c) => c[0]);

  test('the run is set for a minute after start and then every hour', () => {
    const r = startCaught(7, logger());
    r.stop();
    expect(r.first.ms).toBe(60_000);
    expect(r.every.ms).toBe(HOUR_MS);
    // The hourly run is the same run as the first.
    expect(r.every.run).toBe(r.first.run);
  });

  test('with 0 days, a run deletes no change-log entry, however old', async () => {
    const old = await logEntry('prj_retention_zero', 400);
    const log = logger();
    const r = startCaught(0, log);
    try {
      await r.first.run();
      await r.every.run();
      expect(await present(old)).toBe(true);
      expect(deletions(log)).toEqual([]);
      expect(log.warn).not.toHaveBeenCalled();
    } finally {
      r.stop();
      await removeEntries(old);
    }
  });

  test('with N days, each run deletes the entries older than N days and keeps newer ones', async () => {
    const old = await logEntry('prj_retention_old', 10);
    const recent = await logEntry('prj_retention_recent', 2);
    const log = logger();
    const r = startCaught(7, log);
    try {
      await r.first.run();
      expect(await present(old)).toBe(false);
      expect(await present(recent)).toBe(true);
      expect(deletions(log)).toEqual([{ deleted: 1, days: 7 }]);
      // An entry that is old by the next hourly run goes then.
      const later = await logEntry('prj_retention_later', 30);
      await r.every.run();
      expect(await present(later)).toBe(false);
      expect(await present(recent)).toBe(true);
      expect(deletions(log)).toEqual([
        { deleted: 1, days: 7 },
        { deleted: 1, days: 7 },
      ]);
      expect(log.warn).not.toHaveBeenCalled();
    } finally {
      r.stop();
      await removeEntries(old, recent, 'prj_retention_later');
    }
  });
});
