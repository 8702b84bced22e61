import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { onCitus } from './citus.js';
import { createScratchDatabase, seededSnapshot } from './database.js';

export interface ServerProcess {
  url: string;
  /** Demo keys: printed on the first start of an empty database, or those of the copied snapshot. */
  keys: Record<string, string>;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The node arguments that run a TypeScript entry of the package (`src/cli/cli.ts`) as a process:
 * the run's compiled copy (test/setup/server-build.ts) under plain node, or the source through tsx
 * when there is none. Relative to the package root, the working folder of the tests.
 */
export function sourceArgs(source: string): string[] {
  const compiled = inject('compiledSources');
  return compiled
    ? ['--enable-source-maps', join(compiled, source.replace(/\.ts$/, '.js'))]
    : ['--import', 'tsx', source];
}

/** Starts `src/server.ts` as its own process and waits until it listens. */
export async function startServer(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const child = spawn(process.execPath, sourceArgs('src/server.ts'), {
    env: {
      ...process.env,
      PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
      SDG_TENANT_GUARD: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // A first start migrates and seeds: on a Citus cluster that is many distributed DDL round trips.
  const deadline = Date.now() + (onCitus ? 240_000 : 60_000);
  while (!/GraphQL\s+(http\S+)\/graphql/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 50));
  const url = /GraphQL\s+(http\S+)\/graphql/.exec(out)![1];
  const keys = Object.fromEntries(
    [...out.matchAll(/^\s+(alice|bob|vera|gina|nora)\s+(sdg_\S+)$/gm)].map((m) => [m[1], m[2]]),
  );
  return { url, keys, child, output: () => out, exited };
}

/** Where a spawned server keeps its data for one test file, and how to start servers on it. */
export interface ServerStorage {
  env: Record<string, string>;
  /** Starts a server on this storage (with `extra` environment); its keys are the demo's. */
  start(extra?: Record<string, string>): Promise<ServerProcess>;
  /** Removes the data. */
  cleanup(): Promise<void>;
}

/**
 * A scratch database on DATABASE_URL's server, or a PGlite folder on disk, for one test file's
 * server processes. It starts as a copy of the run's seeded snapshot (test/setup/snapshots.ts), so
 * a server's first start does not migrate and seed again (about 10 s of CPU on PGlite); without
 * snapshots (Citus, or a file run on its own) the first start seeds and prints the keys.
 */
export async function serverStorage(): Promise<ServerStorage> {
  const snapshot = seededSnapshot();
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  if (process.env.DATABASE_URL) {
    const s = await createScratchDatabase(process.env.DATABASE_URL, snapshot?.seeded);
    env = { DATABASE_URL: s.url };
    cleanup = s.drop;
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'sdg-server-'));
    if (snapshot) cpSync(await seededFolder(snapshot.seeded), dir, { recursive: true });
    env = { DATABASE_URL: '', SDG_DATA_DIR: dir };
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  const demoKeys = snapshot
    ? Object.fromEntries(Object.entries(snapshot.demo.users).map(([name, u]) => [name, u.apiKey]))
    : undefined;
  // Without a snapshot to copy (Citus), the first start seeds the demo and prints its keys, and
  // later starts on the same database print none: they keep the first start's.
  let printed: Record<string, string> = {};
  return {
    env,
    cleanup,
    start: async (extra = {}) => {
      const server = await startServer({ ...env, ...extra });
      printed = { ...printed, ...server.keys };
      server.keys = { ...demoKeys, ...printed };
      return server;
    },
  };
}

/**
 * The seeded snapshot unpacked into a data folder and closed, once per worker process: every file
 * of the worker copies that folder (a plain file copy) instead of unpacking the dump through PGlite
 * again. It lives beside the snapshot, so the run's global teardown removes it.
 */
async function seededFolder(dump: string): Promise<string> {
  const folder = join(dirname(dump), `server-folder-${process.pid}`);
  if (!existsSync(folder)) {
    const making = `${folder}.making`;
    rmSync(making, { recursive: true, force: true });
    const db = await createDatabase({ dataDir: making, loadDataDir: new Blob([readFileSync(dump)]) });
    await db.close();
    renameSync(making, folder);
  }
  return folder;
}

/** One JSON request to a spawned server, with the API key. */
export async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const r = await fetch(base + path, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: (text ? JSON.parse(text) : undefined) as any };
}
