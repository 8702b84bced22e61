import type { Kysely } from 'kysely';
import type { DB } from './types.js';

/**
 * Runs a service's writes in one transaction, or in the caller's when `db` already is one (a
 * service called from another's transaction, or from the CLI's). Every write path goes through
 * here, so whatever must commit with a write (a change-log row) is one line inside `work`.
 * `work` must use only `tx`: on PGlite the pool has one connection, which the transaction holds.
 */
export function inTransaction<T>(db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
