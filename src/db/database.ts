import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, type LogEvent, PostgresDialect } from 'kysely';
import pg from 'pg';
import { tenantViolation } from './tenant-guard.js';
import type { DB } from './types.js';

/** Per-request statement counter: tests and benchmarks read it to prove there is no N+1. */
export const statementCounter = new AsyncLocalStorage<{ count: number }>();

export interface DatabaseOptions {
  /** postgres://… for a real server; when absent, embedded PGlite is used. */
  url?: string;
  /** PGlite data folder, or 'memory://' for an in-memory database. */
  dataDir?: string;
  /** Statement timeout in ms for every pooled connection (real Postgres). */
  statementTimeoutMs?: number;
  poolSize?: number;
  /** Fail every statement on a tenant table that does not filter on org_id (tests). */
  tenantGuard?: boolean;
}

export interface Database {
  db: Kysely<DB>;
  backend: 'postgres' | 'pglite';
  /** Where the data lives, for start-up messages (no credentials). */
  describe: string;
  /** Statements this database has run (all requests); tests compare pools with it. */
  stats: { statements: number };
  close(): Promise<void>;
}

function countStatements(event: LogEvent, stats: { statements: number }) {
  if (event.level === 'query') {
    stats.statements++;
    const store = statementCounter.getStore();
    if (store) store.count++;
  }
}

/**
 * Counting, plus the tenant guard when asked: a statement run while serving a request (inside the
 * request's counter) that does not filter on org_id fails. Admin tools and tests' own checks run
 * outside requests and are not guarded.
 */
function logger(tenantGuard: boolean, stats: { statements: number }) {
  return (event: LogEvent) => {
    countStatements(event, stats);
    if (!tenantGuard) return;
    if (event.level !== 'query' || !statementCounter.getStore()) return;
    const violation = tenantViolation(event.query.sql);
    if (violation) throw new Error(`tenant guard: ${violation}: ${event.query.sql}`);
  };
}

// Keep timestamps as Date and bigint counts as numbers; jsonb is parsed by pg already.
pg.types.setTypeParser(20, (v) => Number(v));

export async function createDatabase(opts: DatabaseOptions): Promise<Database> {
  const stats = { statements: 0 };
  if (opts.url) {
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      statement_timeout: opts.statementTimeoutMs ?? 10_000,
      connectionTimeoutMillis: 5_000,
    });
    // A client losing its server (Postgres restart, network cut) must not crash the process: idle
    // clients report through the pool, checked-out ones through their own 'error' event. The
    // failure still reaches the query that was running, which answers 503.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool }),
      log: logger(opts.tenantGuard ?? process.env.SDG_TENANT_GUARD === '1', stats),
    });
    const u = new URL(opts.url);
    return {
      db,
      backend: 'postgres',
      describe: `postgres://${u.host}${u.pathname}`,
      stats,
      close: () => db.destroy(),
    };
  }

  const dataDir = opts.dataDir ?? './.data/pglite';
  if (!dataDir.startsWith('memory://')) mkdirSync(resolve(dataDir), { recursive: true });
  // relaxedDurability stays off: each commit is flushed to disk before it is acknowledged.
  // pg_trgm backs the trigram index of list search (migrations/0002); loading it only makes it available.
  const pglite = await PGlite.create(dataDir.startsWith('memory://') ? undefined : resolve(dataDir), {
    extensions: { pg_trgm },
  });
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 });
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: logger(opts.tenantGuard ?? process.env.SDG_TENANT_GUARD === '1', stats),
  });
  return {
    db,
    backend: 'pglite',
    stats,
    describe: dataDir.startsWith('memory://')
      ? 'embedded PGlite (in memory)'
      : `embedded PGlite at ${resolve(dataDir)}`,
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}
