import { afterAll, beforeAll } from 'vitest';
import { TcpProxy } from '../../bench/tcp-proxy.js';
import { createDatabase, type Database, type DatabaseOptions } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createScratchDatabase } from './database.js';

/**
 * For the fault tests: a migrated scratch database on DATABASE_URL's server that the app reaches
 * through a TCP proxy the test can cut (cutting the shared cluster would break the other test files
 * running beside it). Opened before the file's tests, closed after them; nothing without DATABASE_URL.
 * Read `.database`, `.proxy` and `.url` (the direct URL, bypassing the proxy) inside the tests.
 */
export function proxiedDatabase(opts: Omit<DatabaseOptions, 'url' | 'dataDir'> = {}): {
  database: Database;
  proxy: TcpProxy;
  url: string;
} {
  const out = {} as { database: Database; proxy: TcpProxy; url: string };
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  beforeAll(async () => {
    const pgUrl = process.env.DATABASE_URL;
    if (!pgUrl) return;
    scratch = await createScratchDatabase(pgUrl);
    out.url = scratch.url;
    const target = new URL(scratch.url);
    out.proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(scratch.url);
    viaProxy.host = `127.0.0.1:${out.proxy.port}`;
    out.database = await createDatabase({ poolSize: 4, ...opts, url: viaProxy.toString() });
    await migrateToLatest(out.database.db);
  });
  afterAll(async () => {
    out.proxy?.restore();
    await out.database?.close().catch(() => {});
    await out.proxy?.down().catch(() => {});
    await scratch?.drop();
  });
  return out;
}
