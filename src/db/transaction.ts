import type { Kysely } from 'kysely';
import type { DB } from './types.js';

/**
 * Runs writes of several statements in one transaction, or in the caller's when `db` already is
 * one (a service called from another's transaction, or from the CLI's), so whatever must commit
 * with a write (a change-log row) is one line inside `work`. A write that is one statement (a
 * record's write and its entry in one CTE, on Postgres) needs none: BEGIN and COMMIT would be two
 * more round trips for every write. `work` must use only `tx`: on PGlite the pool has one
 * connection, which the transaction holds.
 */
export function inTransaction<T>(db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
