import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { TestProject } from 'vitest/node';
import { createDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { seedDemo } from '../../src/seed/demo.js';
import { onCitus } from '../helpers/citus.js';
import { createScratchDatabase, type DatabaseSnapshots } from '../helpers/database.js';

/**
 * Global setup of the integration tests: migrates one database and seeds one demo, once per run, so
 * that each test file starts from a copy (a PGlite data folder dump, or a Postgres template
 * database) instead of paying for initdb, the migrations and the seed again. Copies are separate
 * databases: no test file sees another's writes.
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  // Citus databases cannot be template copies: every file then migrates and seeds its own.
  if (url && onCitus) return;
  const made = url ? await postgresSnapshots(url) : await pgliteSnapshots();
  // Every project of the run gets them, the isolated one too: its files (vi.mock) would otherwise
  // run initdb, the migrations and the seed in their own worker, the slowest file of the run for it.
  for (const p of project.vitest.projects) p.provide('databaseSnapshots', made.snapshots);
  return made.remove;
}

async function pgliteSnapshots() {
  const dir = mkdtempSync(join(tmpdir(), 'sdg-snapshots-'));
  const empty = await initdbDump();
  const database = await createDatabase({
    dataDir: 'memory://',
    loadDataDir: new Blob([readFileSync(empty)]),
  });
  try {
    await migrateToLatest(database.db);
    const migrated = await save(database, join(dir, 'migrated.tar'));
    const demo = await seedDemo(database.db);
    const seeded = await save(database, join(dir, 'seeded.tar'));
    const snapshots: DatabaseSnapshots = { backend: 'pglite', migrated, seeded, demo, empty };
    return { snapshots, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  } finally {
    await database.close();
  }
}

/**
 * A dump of the cluster initdb makes, kept between runs under node_modules/.cache for each PGlite
 * version: initdb is most of this setup's time, and what it writes depends on PGlite alone (no
 * database of ours exists yet, and extensions are only made available). Written whole, then
 * renamed, so a run side by side never reads half of it.
 */
async function initdbDump(): Promise<string> {
  const pkg = join(PACKAGE_ROOT, 'node_modules/@electric-sql/pglite/package.json');
  const { version } = JSON.parse(readFileSync(pkg, 'utf8')) as { version: string };
  const cache = join(PACKAGE_ROOT, 'node_modules/.cache');
  const file = join(cache, `sdg-test-pglite-initdb-${version}.tar`);
  if (existsSync(file)) return file;
  const pglite = await PGlite.create({ extensions: { pg_trgm, btree_gist } });
  try {
    const dump = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
    mkdirSync(cache, { recursive: true });
    const part = `${file}.${process.pid}`;
    writeFileSync(part, dump);
    renameSync(part, file);
  } finally {
    await pglite.close();
  }
  return file;
}

async function save(database: Database, file: string): Promise<string> {
  writeFileSync(file, Buffer.from(await (await database.dump!()).arrayBuffer()));
  return file;
}

/** Two template databases; CREATE DATABASE … TEMPLATE copies them while no one is connected to them. */
async function postgresSnapshots(url: string) {
  const migrated = await createScratchDatabase(url);
  const seeded = await createScratchDatabase(url);
  await prepare(migrated.direct, false);
  const demo = (await prepare(seeded.direct, true))!;
  const snapshots: DatabaseSnapshots = {
    backend: 'postgres',
    migrated: migrated.name,
    seeded: seeded.name,
    demo,
  };
  return { snapshots, remove: async () => void (await Promise.all([migrated.drop(), seeded.drop()])) };
}

async function prepare(url: string, seed: boolean) {
  const database = await createDatabase({ url, poolSize: 2 });
  try {
    await migrateToLatest(database.db);
    return seed ? await seedDemo(database.db) : undefined;
  } finally {
    await database.close();
  }
}
