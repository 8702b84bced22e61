import { afterAll, beforeAll } from 'vitest';
import { createDatabase, type Database, type DatabaseOptions } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { type DemoOutput, seedDemo } from '../../src/seed/demo.js';
import { createScratchDatabase } from './database.js';
import { TcpProxy } from './tcp-proxy.js';

/**
 * For the fault tests: a migrated scratch database on DATABASE_URL's server that the app reaches
 * through a TCP proxy the test can cut (cutting the shared cluster would break the other test files
 * running beside it). Opened before the file's tests, closed after them; nothing without DATABASE_URL.
 * Read `.database`, `.proxy`, `.url` (the direct URL, bypassing the proxy) and, with `seed`, `.demo`
 * inside the tests.
 *
 * The migrations and the seed run on a direct connection with the default timeouts, not on
 * `.database`: a test's short `statementTimeoutMs` is for the app under test, and on a busy Citus
 * cluster one distributed DDL statement can take longer than that.
 */
export function proxiedDatabase(opts: Omit<DatabaseOptions, 'url' | 'dataDir'> & { seed?: boolean } = {}): {
  database: Database;
  proxy: TcpProxy;
  url: string;
  demo: DemoOutput;
} {
  const { seed, ...databaseOptions } = opts;
  const out = {} as { database: Database; proxy: TcpProxy; url: string; demo: DemoOutput };
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  beforeAll(async () => {
    const pgUrl = process.env.DATABASE_URL;
    if (!pgUrl) return;
    scratch = await createScratchDatabase(pgUrl);
    out.url = scratch.url;
    const setup = await createDatabase({ url: scratch.url, poolSize: 1 });
    try {
      await migrateToLatest(setup.db);
      if (seed) out.demo = await seedDemo(setup.db);
    } finally {
      await setup.close();
    }
    const target = new URL(scratch.url);
    out.proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(scratch.url);
    viaProxy.host = `127.0.0.1:${out.proxy.port}`;
    out.database = await createDatabase({ poolSize: 4, ...databaseOptions, url: viaProxy.toString() });
  });
  afterAll(async () => {
    out.proxy?.restore();
    await out.database?.close().catch(() => {});
    await out.proxy?.down().catch(() => {});
    await scratch?.drop();
  });
  return out;
}
