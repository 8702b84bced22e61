import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { onCitus } from './helpers/citus.js';
import { createScratchDatabase } from './helpers/database.js';
import { type ServerProcess, startServer } from './helpers/server-process.js';

/**
 * What docs/operations.md ("Running it", "Configuration") says of a server process's start and stop:
 * SDG_SEED_DEMO=0 leaves an empty database empty, COMPRESSION=0 turns compression off, and SIGINT
 * stops the process as gracefully as SIGTERM (test/faults/shutdown.test.ts). Each server starts on
 * an empty database of its own (not the seeded snapshot), as a first install does.
 */

/**
 * Not on Citus: these options do not depend on the backend, and a first start there is a burst of
 * distributed DDL that slows the shared cluster for every test file running beside it.
 */
const skipped = onCitus;
const timeout = 60_000;
// Past startServer's own deadline (60 s on PGlite), so that a slow start fails with the server's output.
const startTimeout = timeout + 30_000;

interface EmptyDatabase {
  env: Record<string, string>;
  /** Opens the database from this process (once the server has stopped, for PGlite). */
  open: () => ReturnType<typeof createDatabase>;
  cleanup: () => Promise<void>;
}

/** A database with nothing in it: a scratch database on DATABASE_URL's server, or a new PGlite folder. */
async function emptyDatabase(): Promise<EmptyDatabase> {
  if (process.env.DATABASE_URL) {
    const s = await createScratchDatabase(process.env.DATABASE_URL);
    return {
      env: { DATABASE_URL: s.url },
      open: () => createDatabase({ url: s.url, tenantGuard: false }),
      cleanup: s.drop,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'sdg-empty-'));
  return {
    env: { DATABASE_URL: '', SDG_DATA_DIR: dir },
    open: () => createDatabase({ dataDir: dir, tenantGuard: false }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** GET without a key, offering br and gzip: the raw (undecoded) answer. */
function rawGet(base: string, path: string): Promise<{ status: number; encoding?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      new URL(path, base),
      { agent: false, headers: { 'accept-encoding': 'br, gzip' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            encoding: res.headers['content-encoding'],
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

async function stop(server: ServerProcess | undefined, signal: NodeJS.Signals = 'SIGTERM') {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill(signal);
  await server.exited;
}

test('compression defaults: br quality 1 and gzip level 1; COMPRESSION=0 turns it off', () => {
  expect(loadConfig({}).compression).toEqual({ brotliQuality: 1, gzipLevel: 1, syncMaxBytes: 524_288 });
  expect(loadConfig({ COMPRESSION: '0' }).compression).toBe(false);
  expect(loadConfig({ COMPRESSION: '1' }).compression).toMatchObject({ brotliQuality: 1, gzipLevel: 1 });
});

describe.skipIf(skipped)('a first start on an empty database with SDG_SEED_DEMO=0 and COMPRESSION=0', () => {
  let database: EmptyDatabase;
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    database = await emptyDatabase();
    server = await startServer({ ...database.env, SDG_SEED_DEMO: '0', COMPRESSION: '0' });
  }, startTimeout);
  afterAll(async () => {
    await stop(server);
    await database?.cleanup();
  });

  test('COMPRESSION=0: a large answer goes uncompressed to a client that accepts br and gzip', {
    timeout,
  }, async () => {
    const r = await rawGet(server!.url, '/openapi.json');
    expect(r.status).toBe(200);
    // Over the 1 KB threshold: only COMPRESSION=0 keeps it plain.
    expect(r.body.length).toBeGreaterThan(1024);
    expect(r.encoding).toBeUndefined();
    expect(JSON.parse(r.body.toString()).openapi).toBeTruthy();
  });

  test('SDG_SEED_DEMO=0: no demo data is seeded, no keys printed; the database has no users or organizations', {
    timeout,
  }, async () => {
    expect(server!.output()).not.toMatch(/Demo data/);
    expect(server!.keys).toEqual({});
    // PGlite is one process's: look inside once the server has let go of it.
    await stop(server);
    const db = await database.open();
    try {
      const count = async (table: 'users' | 'organizations') =>
        Number(
          (
            await db.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await count('users')).toBe(0);
      expect(await count('organizations')).toBe(0);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(skipped)('a first start on an empty database with neither set', () => {
  let database: EmptyDatabase;
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    database = await emptyDatabase();
    // LOG_LEVEL info: the shutdown handler's log line names the signal it handled.
    server = await startServer({ ...database.env, LOG_LEVEL: 'info' });
  }, startTimeout);
  afterAll(async () => {
    await stop(server);
    await database?.cleanup();
  });

  test('the demo is seeded and its keys are printed', { timeout }, async () => {
    expect(server!.output()).toMatch(/Demo data created/);
    expect(Object.keys(server!.keys).sort()).toEqual(['alice', 'bob', 'gina', 'nora', 'vera']);
    const r = await fetch(`${server!.url}/organizations/v1`, {
      headers: { 'x-api-key': server!.keys.alice },
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as unknown[]).length).toBeGreaterThan(0);
  });

  test('warns at start that LISTEN hears nothing exactly when it goes through PgBouncer', async () => {
    // `npm run test:pgbouncer` sets SDG_ADMIN_URL: DATABASE_URL is then PgBouncer in transaction mode.
    const behindPgBouncer = !!process.env.DATABASE_URL && !!process.env.SDG_ADMIN_URL;
    const warned = /LISTEN heard no NOTIFY within 2 s.*DATABASE_LISTEN_URL/.test(server!.output());
    expect(warned).toBe(behindPgBouncer);
  });

  test('compression on by default: the same large answer is br-compressed', { timeout }, async () => {
    const r = await rawGet(server!.url, '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.encoding).toBe('br');
  });

  test('SIGINT stops it gracefully: exit code 0 within 5 s, through the shutdown handler', {
    timeout,
  }, async () => {
    const s = server!;
    const started = Date.now();
    s.child.kill('SIGINT');
    const code = await Promise.race([
      s.exited,
      new Promise<'still running'>((r) => setTimeout(() => r('still running'), 5_000)),
    ]);
    // Without a SIGINT handler Node dies of the signal: exit code null, not 0.
    expect(code, s.output()).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(s.output()).toMatch(/"signal":"SIGINT"[^\n]*shutting down|shutting down[^\n]*"signal":"SIGINT"/);
    // The process let go of its database: this one opens it again.
    const db = await database.open();
    await db.close();
  });
});
