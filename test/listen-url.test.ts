import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDatabase, type Database, doorbellRings } from '../src/db/database.js';
import { createScratchDatabase } from './helpers/database.js';

/**
 * The doorbell of live updates and webhooks is a LISTEN on a connection of its own. Behind PgBouncer
 * in transaction mode (`npm run test:pgbouncer`) a LISTEN made through the pooler hears nothing,
 * since each transaction may get another server connection; DATABASE_LISTEN_URL sends that one
 * connection to the server itself. On plain Postgres and Citus the two URLs are the same server.
 */
const pgUrl = process.env.DATABASE_URL;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
let database: Database | undefined;

beforeAll(async () => {
  if (!pgUrl) return;
  scratch = await createScratchDatabase(pgUrl);
  database = await createDatabase({ url: scratch.url, listenUrl: scratch.direct, poolSize: 4 });
});
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
});

test.skipIf(!pgUrl)('a NOTIFY sent through the pool rings the listener on the listen URL', async () => {
  const heard: string[] = [];
  const unlisten = await database!.listen('sdg_listen_test', (payload) => heard.push(payload));
  try {
    // Sent the way writers ring (pg_notify in a statement of the pool), a few times, with pooled
    // traffic in between so that the pooler's server connections change hands.
    for (let i = 0; i < 3; i++) {
      await Promise.all(Array.from({ length: 6 }, () => sql`select pg_sleep(0.01)`.execute(database!.db)));
      await sql`select pg_notify('sdg_listen_test', ${`ring ${i}`})`.execute(database!.db);
    }
    for (const end = Date.now() + 5_000; heard.length < 3 && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 20));
    expect(heard).toEqual(['ring 0', 'ring 1', 'ring 2']);
  } finally {
    await unlisten();
  }
});

test.skipIf(!pgUrl)(
  'the start-up check hears its own NOTIFY, except through a pooler without the listen URL',
  async () => {
    expect(await doorbellRings(database!)).toBe(true);
    const pooled = await createDatabase({ url: scratch!.url, poolSize: 2 });
    try {
      // Behind PgBouncer (the app's URL is not the server's) the server warns at start on false.
      expect(await doorbellRings(pooled, 1_000)).toBe(scratch!.url === scratch!.direct);
    } finally {
      await pooled.close();
    }
  },
);
