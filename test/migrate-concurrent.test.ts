import { sql } from 'kysely';
import { afterAll, expect, test } from 'vitest';
import { migrations } from '../migrations/index.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { onCitus } from './helpers/citus.js';
import { createScratchDatabase } from './helpers/database.js';

/**
 * Replicas starting together all migrate, and so does `sdg migrate` beside running gateways. Behind
 * PgBouncer in transaction mode (`npm run test:pgbouncer`), Kysely's session-level migration lock
 * was taken on one server connection and released on another: the lock stayed with a pooled
 * connection, and the second replica waited until its statement timeout and failed to start
 * ("migration (unknown) failed: canceling statement due to statement timeout", seen in CI).
 * Postgres only: one PGlite folder is one process's database.
 */
const pgUrl = process.env.DATABASE_URL;
const scratches: Awaited<ReturnType<typeof createScratchDatabase>>[] = [];

/** A new empty database, dropped after the file. */
async function emptyDatabase(): Promise<string> {
  const scratch = await createScratchDatabase(pgUrl!);
  scratches.push(scratch);
  return scratch.url;
}
afterAll(async () => {
  await Promise.all(scratches.map((s) => s.drop()));
});

const open = (url: string, poolSize = 4) => createDatabase({ url, poolSize });

/** Advisory locks held in the scratch database, by any connection. */
async function advisoryLocks(database: Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_locks
    where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`.execute(
    database.db,
  );
  return rows[0].n;
}

test.skipIf(!pgUrl)(
  'a migration that fails rolls back all of its run and leaves no lock behind',
  { timeout: 120_000 },
  async () => {
    const database = await open(await emptyDatabase());
    try {
      // An object in the way of the first migration's fourth table.
      await sql`create table organizations (wrong int)`.execute(database.db);
      await expect(migrateToLatest(database.db)).rejects.toThrow(
        /^migration 0001_initial failed: .*organizations/,
      );
      const { rows } = await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(database.db);
      expect(rows.map((r) => r.name)).toEqual(['organizations']);
      expect(await advisoryLocks(database)).toBe(0);

      await sql`drop table organizations`.execute(database.db);
      expect(await migrateToLatest(database.db)).toContain('0001_initial');
      expect(await migrateToLatest(database.db)).toEqual([]);
    } finally {
      await database.close();
    }
  },
);

// Not on Citus: its coordinator is a direct connection, where the session lock was not the problem,
// and eight migrations of empty databases there are a burst of distributed DDL that slows the shared
// cluster for every file beside it. The test above runs the transaction on Citus.
test.skipIf(!pgUrl || onCitus)(
  'two processes migrating at once, among other traffic, both finish and leave no lock behind',
  { timeout: 120_000 },
  async () => {
    const url = await emptyDatabase();
    // Other clients' transactions keep the pooler's server connections changing hands.
    const traffic = await open(url, 8);
    let stop = false;
    const busy = Array.from({ length: 8 }, async () => {
      while (!stop) await sql`select pg_sleep(0.002)`.execute(traffic.db);
    });
    try {
      for (let round = 0; round < 4; round++) {
        const replicas = [await open(url), await open(url)];
        try {
          const applied = await Promise.all(replicas.map((r) => migrateToLatest(r.db)));
          // The first round migrates the empty database, once; the later ones find nothing to do.
          expect(applied.flat().sort(), `round ${round}`).toEqual(round === 0 ? Object.keys(migrations) : []);
          expect(await advisoryLocks(traffic), `round ${round}`).toBe(0);
        } finally {
          await Promise.all(replicas.map((r) => r.close()));
        }
      }
    } finally {
      stop = true;
      await Promise.all(busy);
      await traffic.close();
    }
  },
);
