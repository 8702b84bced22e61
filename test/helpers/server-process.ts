import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCitus } from './citus.js';
import { createScratchDatabase } from './database.js';

export interface ServerProcess {
  url: string;
  /** Demo keys printed on the first start of an empty database. */
  keys: Record<string, string>;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `src/server.ts` as its own process (tsx) and waits until it listens. */
export async function startServer(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
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

/**
 * Where a spawned server keeps its data for one test file: a scratch database on DATABASE_URL's
 * server, or a PGlite folder on disk. `cleanup` removes it.
 */
export async function serverStorage(): Promise<{
  env: Record<string, string>;
  cleanup: () => Promise<void>;
}> {
  if (process.env.DATABASE_URL) {
    const s = await createScratchDatabase(process.env.DATABASE_URL);
    return { env: { DATABASE_URL: s.url }, cleanup: s.drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'sdg-server-'));
  return {
    env: { DATABASE_URL: '', SDG_DATA_DIR: dir },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
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
