import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { type DemoOutput, seedDemo } from '../../src/seed/demo.js';

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on
 * the Postgres server named by DATABASE_URL (dropped again on close). Both run the real migrations.
 */
export async function openTestDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await createDatabase({ dataDir: 'memory://', tenantGuard: true });
    await migrateToLatest(database.db);
    return database;
  }
  const scratch = await createScratchDatabase(url);
  const database = await createDatabase({ url: scratch.url, poolSize: 10, tenantGuard: true });
  await migrateToLatest(database.db);
  return {
    ...database,
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

/** An empty database on the server of `adminUrl`, for one test file or one spawned server. */
export async function createScratchDatabase(
  adminUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `sdg_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

export const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A migrated database with the demo seeded, for test files that build their own apps: opened
 * before the file's tests, closed after them. Read `.database` and `.demo` inside the tests.
 */
export function seededDatabase(): { database: Database; demo: DemoOutput } {
  const seeded = {} as { database: Database; demo: DemoOutput };
  beforeAll(async () => {
    seeded.database = await openTestDatabase();
    seeded.demo = await seedDemo(seeded.database.db);
  });
  afterAll(async () => {
    await seeded.database?.close();
  });
  return seeded;
}
