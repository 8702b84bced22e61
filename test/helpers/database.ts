import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { type DemoOutput, seedDemo } from '../../src/seed/demo.js';
import { createCitusDatabase, onCitus } from './citus.js';

/**
 * Where test/setup/snapshots.ts left the migrated and the seeded database of this run: PGlite data
 * folder dumps, or template databases on the Postgres server. Absent when a test file runs without
 * that global setup; the helpers then migrate and seed as before.
 */
export interface DatabaseSnapshots {
  backend: 'pglite' | 'postgres';
  /** A dump file (PGlite) or a template database name (Postgres), per snapshot. */
  migrated: string;
  seeded: string;
  /** What seedDemo returned for the seeded snapshot (its keys and ids). */
  demo: DemoOutput;
  /** PGlite: a dump of the cluster initdb makes, before any migration. */
  empty?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseSnapshots: DatabaseSnapshots | undefined;
  }
}

const snapshots = (): DatabaseSnapshots | undefined => {
  const s = inject('databaseSnapshots');
  return s && s.backend === backend ? s : undefined;
};

/** The run's seeded snapshot (a dump file or a template name, and its demo), when there is one. */
export function seededSnapshot(): { seeded: string; demo: DemoOutput } | undefined {
  const s = snapshots();
  return s && { seeded: s.seeded, demo: s.demo };
}

/**
 * A snapshot dump file, read once per worker: a Blob cannot change, so every file the worker runs
 * starts from the same one instead of reading and copying 40 MB again.
 */
const dumps = new Map<string, Blob>();
function dump(file: string): Blob {
  const blob = dumps.get(file) ?? new Blob([readFileSync(file)]);
  dumps.set(file, blob);
  return blob;
}

/**
 * PGlite.create options that start from the run's dump of a new cluster (as initdb leaves it)
 * instead of running initdb again, when there is one; for tests that open PGlite themselves.
 */
export function emptyCluster(): { loadDataDir?: Blob } {
  const empty = snapshots()?.empty;
  return empty ? { loadDataDir: dump(empty) } : {};
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on
 * the Postgres server named by DATABASE_URL (dropped again on close). Both run the real migrations,
 * once per test run, and each file starts from a copy.
 */
export function openTestDatabase(): Promise<Database> {
  return openCopy('migrated');
}

/** Like openTestDatabase, with the demo seeded (a copy of one seed made per test run). */
export async function openSeededDatabase(): Promise<{ database: Database; demo: DemoOutput }> {
  const s = snapshots();
  const database = await openCopy('seeded');
  return { database, demo: s ? s.demo : await seedDemo(database.db) };
}

async function openCopy(which: 'migrated' | 'seeded'): Promise<Database> {
  const from = snapshots()?.[which];
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await createDatabase({
      dataDir: 'memory://',
      tenantGuard: true,
      ...(from ? { loadDataDir: dump(from) } : {}),
    });
    if (!from) await migrateToLatest(database.db);
    return database;
  }
  const scratch = await createScratchDatabase(url, from);
  const database = await createDatabase({ url: scratch.url, poolSize: 10, tenantGuard: true });
  if (!from) await migrateToLatest(database.db);
  return {
    ...database,
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

/** An empty database on the server of `adminUrl` (or a copy of `template`), for one test file or one spawned server. */
export async function createScratchDatabase(
  adminUrl: string,
  template?: string,
): Promise<{ url: string; name: string; direct: string; drop: () => Promise<void> }> {
  const name = `sdg_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  if (onCitus) {
    if (template) throw new Error('Citus databases cannot be copied from a template');
    return { url: u.toString(), name, direct: u.toString(), drop: await createCitusDatabase(adminUrl, name) };
  }
  // Behind PgBouncer (`npm run test:pgbouncer`): databases are made and dropped on the server
  // itself (SDG_ADMIN_URL); the app's URL is PgBouncer's.
  const direct = new URL(u);
  const server = process.env.SDG_ADMIN_URL;
  if (server && adminUrl === process.env.DATABASE_URL) {
    const d = new URL(server);
    direct.host = d.host;
    adminUrl = server;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    url: u.toString(),
    name,
    /** The database on the server itself, not through PgBouncer (template copies need that). */
    direct: direct.toString(),
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
    Object.assign(seeded, await openSeededDatabase());
  });
  afterAll(async () => {
    await seeded.database?.close();
  });
  return seeded;
}
