import { sql } from 'kysely';
import { expect, test } from 'vitest';
import { QUERY_TIMEOUT_GRACE_MS } from '../../src/db/database.js';
import { proxiedDatabase } from '../helpers/proxied-database.js';

/**
 * The fault tests give the app a short statement timeout. Their setup (migrations, the demo seed)
 * once ran under it too, and a Citus run failed: "migration 0001_initial failed: canceling statement
 * due to statement timeout". With a timeout no statement can meet, the setup must still succeed.
 */
const pgUrl = process.env.DATABASE_URL;
const proxied = proxiedDatabase({ statementTimeoutMs: 1, seed: true });

test.skipIf(!pgUrl)(
  'the migrations and the seed do not run under the timeout given for the app',
  async () => {
    expect(proxied.demo.users.alice.apiKey).toMatch(/\S{20,}/);
    // The app's connections do carry it: Postgres cancels the statement, or behind PgBouncer (which
    // cannot carry a session's statement_timeout) the client's own bound cuts it.
    const longer = (QUERY_TIMEOUT_GRACE_MS + 500) / 1000;
    await expect(sql`select pg_sleep(${longer})`.execute(proxied.database.db)).rejects.toThrow(/timeout/i);
  },
);
