/**
 * The measuring half of test/gc-survival.test.ts, in a process started with --expose-gc: what of
 * finished work V8's young-generation collector still finds alive. Prints one JSON line.
 *
 *   node --expose-gc --import tsx test/helpers/gc-survival-child.ts '<json: DATABASE_URL or PGlite dump, key, org, portfolio>'
 */
import { readFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getHeapSpaceStatistics } from 'node:v8';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { createDatabase } from '../../src/db/database.js';

const args = JSON.parse(process.argv[2]) as {
  url?: string;
  dump?: string;
  apiKey: string;
  orgId: string;
  portfolioId: string;
};
const gc = (globalThis as { gc?: (o?: { type: 'minor' | 'major' }) => void }).gc;
if (!gc) throw new Error('start this with node --expose-gc');

const database = args.url
  ? await createDatabase({ url: args.url })
  : await createDatabase({ dataDir: 'memory://', loadDataDir: new Blob([readFileSync(args.dump!)]) });
const app = await buildApp({ database });
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as AddressInfo;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One REST page over a real socket; resolves with its length once the whole body has arrived. */
const page = () =>
  new Promise<number>((resolve, reject) => {
    const path = `/projects/v1?orgId=${args.orgId}&portfolioId=${args.portfolioId}&limit=100`;
    get({ port, path, agent, headers: { 'x-api-key': args.apiKey } }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
      });
      res.on('end', () =>
        res.statusCode === 200 ? resolve(n) : reject(new Error(`status ${res.statusCode}`)),
      );
    }).on('error', reject);
  });

/** 1000 rows of about 130 bytes each, read through the app's database handle (pg on Postgres). */
const rows = async () =>
  (
    await sql`select g, repeat('x', 100) as s, now() as t from generate_series(1, 1000) g`.execute(
      database.db,
    )
  ).rows.length;

const tick = () => new Promise((r) => setImmediate(r));
const youngBytes = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;

/**
 * Bytes in the young generation after `work` ran `times` times and finished, and one
 * young-generation collection: what that collector kept of work nobody holds any more (median of 8
 * rounds).
 */
async function survivors(work: () => Promise<number>, times: number): Promise<number> {
  for (let i = 0; i < 30; i++) await work();
  gc!();
  const kept: number[] = [];
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < times; i++) await work();
    await tick();
    gc!({ type: 'minor' });
    kept.push(youngBytes());
  }
  return kept.sort((a, b) => a - b)[4];
}

const pageBytes = await page();
const out = {
  pageBytes,
  page: { once: await survivors(page, 1), tenTimes: await survivors(page, 10) },
  rows: { once: await survivors(rows, 1), tenTimes: await survivors(rows, 10) },
};
agent.destroy();
await app.close();
await database.close();
console.log(JSON.stringify(out));
