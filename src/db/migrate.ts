import { type Kysely, Migrator, sql, type Transaction } from 'kysely';
import { migrationProvider } from '../../migrations/index.js';

/**
 * The key of the migration lock: Kysely's own, so that a process of an older build (which takes
 * Kysely's session lock) and one of this build still wait for each other during a rolling deploy.
 */
const MIGRATION_LOCK = 3853314791062309107n;

/**
 * Applies every pending migration; throws with the failing migration's name. On a database with the
 * citus extension (or with `citus: true`, which creates it) each migration distributes its tables
 * (src/db/citus.ts). Distribute a fresh database: tables made before the extension stay local.
 *
 * Everything runs in one transaction that first takes a transaction-level advisory lock. Kysely's
 * migrator takes a session-level lock and releases it in a later statement; behind PgBouncer in
 * transaction mode the two statements can run on different server connections, so the release
 * misses and the lock stays held by a pooled connection. The next process to migrate (a second
 * replica starting) then waits until the statement timeout and fails to start
 * (test/migrate-concurrent.test.ts). A transaction keeps one server connection to its end, and its
 * lock ends with it, also when a migration fails.
 */
export async function migrateToLatest(db: Kysely<any>, opts: { citus?: boolean } = {}): Promise<string[]> {
  if (opts.citus) await sql`create extension if not exists citus`.execute(db);
  const results = await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK)})`.execute(trx);
    const migrator = new Migrator({
      db: withoutAdapterLock(trx),
      provider: migrationProvider,
      // The transaction is this one.
      disableTransactions: true,
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error');
      const msg = error instanceof Error ? error.message : String(error);
      // Thrown, so that the transaction rolls back every migration of this run.
      throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${msg}`);
    }
    return results ?? [];
  });
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * `trx` as the migrator sees it: its dialect adapter takes no lock of its own, because the
 * transaction holds one already. (The adapter's session lock would also outlive a failed
 * migration: its release cannot run in an aborted transaction.)
 */
function withoutAdapterLock(trx: Transaction<any>): Kysely<any> {
  const executor = trx.getExecutor();
  const adapter = forward(executor.adapter, {
    acquireMigrationLock: async () => {},
    releaseMigrationLock: async () => {},
  });
  const lockless = forward(executor, { adapter });
  const db: Kysely<any> = forward(trx, {
    getExecutor: () => lockless,
    // A transaction has its one connection: the migrator's request for one gets that.
    connection: () => ({ execute: <R>(fn: (conn: Kysely<any>) => Promise<R>) => fn(db) }),
  });
  return db;
}

/**
 * `target` with some members replaced. Methods stay bound to `target`, whose private fields a
 * proxy as `this` could not reach.
 */
function forward<T extends object>(target: T, replaced: Record<string, unknown>): T {
  return new Proxy(target, {
    get(t, key) {
      if (typeof key === 'string' && key in replaced) return replaced[key];
      const value = Reflect.get(t, key, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
}
