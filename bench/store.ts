import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DB } from '../src/db/types.js';
import { createCitusDatabase, dropCitusDatabase } from '../test/helpers/citus-cluster.js';

/** Where the benchmark data lives: a dedicated database on a Postgres server, or a PGlite folder. */
export type StoreTarget =
  /** `citus`: serverUrl is a Citus coordinator; the database is made on every node (bench/citus.ts). */
  | { backend: 'postgres'; serverUrl: string; dbName: string; citus?: boolean }
  | { backend: 'pglite'; dataDir: string };

/** An open benchmark database: Kysely for ordinary statements, plus a bulk COPY path. */
export interface BenchStore {
  backend: 'postgres' | 'pglite';
  db: Kysely<DB>;
  /** Environment that points a server process (gateway, baseline) at this database. */
  serverEnv: Record<string, string>;
  /** Human-readable location, no credentials. */
  describe: string;
  /** Bulk-loads rows given as COPY text-format lines (tab-separated, already escaped). */
  copy(table: string, columns: readonly string[], lines: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** The bench database's URL on the server that `serverUrl` names. */
export function benchDatabaseUrl(serverUrl: string, dbName: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
}

const SAFE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

async function withAdmin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Whether the bench database (or PGlite folder) exists at all. */
export async function storeExists(target: StoreTarget): Promise<boolean> {
  if (target.backend === 'pglite') return existsSync(resolve(target.dataDir));
  return withAdmin(target.serverUrl, async (c) => {
    const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [target.dbName]);
    return !!rowCount;
  });
}

/** Drops the bench database or folder, so the next open starts empty. */
export async function dropStore(target: StoreTarget): Promise<void> {
  if (target.backend === 'pglite') {
    rmSync(resolve(target.dataDir), { recursive: true, force: true });
    return;
  }
  if (!SAFE_NAME.test(target.dbName)) throw new Error(`bad database name "${target.dbName}"`);
  if (target.citus) return dropCitusDatabase(target.serverUrl, target.dbName);
  await withAdmin(target.serverUrl, (c) => c.query(`drop database if exists ${target.dbName} with (force)`));
}

/** Opens (creating when missing) the bench database. */
export async function openStore(target: StoreTarget): Promise<BenchStore> {
  if (target.backend === 'postgres') {
    if (!SAFE_NAME.test(target.dbName)) throw new Error(`bad database name "${target.dbName}"`);
    const exists = await withAdmin(target.serverUrl, async (c) => {
      const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [target.dbName]);
      if (!rowCount && !target.citus) await c.query(`create database ${target.dbName}`);
      return !!rowCount;
    });
    // Migrations then see the extension and distribute each table as they create it.
    if (!exists && target.citus) await createCitusDatabase(target.serverUrl, target.dbName);
    const url = benchDatabaseUrl(target.serverUrl, target.dbName);
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    const u = new URL(url);
    return {
      backend: 'postgres',
      db,
      serverEnv: { DATABASE_URL: url },
      describe: `postgres://${u.host}${u.pathname}`,
      async copy(table, columns, lines) {
        const client = await pool.connect();
        try {
          await new Promise<void>((ok, fail) => {
            const stream = client.query(copyFrom(`copy ${table} (${columns.join(', ')}) from stdin`));
            stream.on('error', fail);
            stream.on('finish', () => ok());
            stream.end(`${lines.join('\n')}\n`);
          });
        } finally {
          client.release();
        }
      },
      close: () => db.destroy(),
    };
  }
  const dir = resolve(target.dataDir);
  const pglite = await PGlite.create(dir);
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    backend: 'pglite',
    db,
    serverEnv: { SDG_DATA_DIR: dir },
    describe: `PGlite at ${dir}`,
    async copy(table, columns, lines) {
      await pglite.query(`copy ${table} (${columns.join(', ')}) from '/dev/blob'`, [], {
        blob: new Blob([`${lines.join('\n')}\n`]),
      });
    },
    async close() {
      await db.destroy();
      await pglite.close();
    },
  };
}
