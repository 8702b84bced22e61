/**
 * The measuring half of test/perf/gc-survival.test.ts, in a process started with --expose-gc: what of
 * finished work V8's young-generation collector still finds alive. Prints one JSON line.
 *
 *   node --expose-gc --import tsx test/perf/gc-survival-child.ts '<json: DATABASE_URL or PGlite dump, key, org, portfolio>'
 */
import { readFileSync } from 'node:fs';
import { Agent, type RequestOptions, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getHeapSpaceStatistics } from 'node:v8';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { createDatabase } from '../../src/db/database.js';
import { Admission } from '../../src/http/admission.js';
import { FIRST_PAGE_QUERY, NESTED_QUERY } from '../helpers/queries.js';

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
// Large operations (the nested query) take turns one at a time, so that they can be made to wait.
const large = new Admission({ slots: 1, maxWaitMs: 60_000 }, 'large');
const app = await buildApp({ database, largeAdmission: large });
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as AddressInfo;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request over a real socket; resolves with the body's length once all of it has arrived. */
const send = (options: RequestOptions, body?: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request({ port, agent, ...options }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
      });
      res.on('end', () =>
        res.statusCode === 200 ? resolve(n) : reject(new Error(`status ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });

/** A REST page of 100 projects. */
const page = () =>
  send({
    path: `/projects/v1?orgId=${args.orgId}&portfolioId=${args.portfolioId}&limit=100`,
    headers: { 'x-api-key': args.apiKey },
  });

/** The same 100 projects through /graphql, with their typed values (Apollo, then the Executor). */
const graphqlBody = JSON.stringify({
  query: FIRST_PAGE_QUERY,
  variables: { orgId: args.orgId, portfolioId: args.portfolioId, first: 100 },
});
const graphql = () =>
  send(
    {
      method: 'POST',
      path: '/graphql',
      headers: { 'x-api-key': args.apiKey, 'content-type': 'application/json' },
    },
    graphqlBody,
  );

/** The nested query (cost 6,100: a large operation), on sockets of its own so that several can wait at once. */
const nestedAgent = new Agent({ keepAlive: true, maxSockets: 8 });
const nestedBody = JSON.stringify({
  query: NESTED_QUERY,
  variables: { orgId: args.orgId, portfolioId: args.portfolioId, projects: 100, contacts: 10, parcels: 5 },
});
const nested = () =>
  send(
    {
      method: 'POST',
      path: '/graphql',
      agent: nestedAgent,
      headers: { 'x-api-key': args.apiKey, 'content-type': 'application/json' },
    },
    nestedBody,
  );

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

/**
 * As `survivors`, for `times` nested queries that waited for the large slot while two young
 * collections put what they had made so far (their contexts, the frames that wait) in the old
 * generation, then ran one after another.
 */
async function survivorsAfterWaiting(times: number): Promise<number> {
  for (let i = 0; i < 10; i++) await nested();
  gc!();
  const kept: number[] = [];
  for (let round = 0; round < 8; round++) {
    const release = await large.acquire();
    const pending = Array.from({ length: times }, () => nested());
    while (large.load.waiting < times) await new Promise((r) => setTimeout(r, 5));
    gc!({ type: 'minor' });
    gc!({ type: 'minor' });
    release();
    await Promise.all(pending);
    await tick();
    gc!({ type: 'minor' });
    kept.push(youngBytes());
  }
  return kept.sort((a, b) => a - b)[4];
}

const pageBytes = await page();
const graphqlBytes = await graphql();
const out = {
  pageBytes,
  graphqlBytes,
  page: { once: await survivors(page, 1), tenTimes: await survivors(page, 10) },
  graphql: { once: await survivors(graphql, 1), tenTimes: await survivors(graphql, 10) },
  rows: { once: await survivors(rows, 1), tenTimes: await survivors(rows, 10) },
  nestedBytes: await nested(),
  nested: { once: await survivors(nested, 1), waitedEight: await survivorsAfterWaiting(8) },
};
nestedAgent.destroy();
agent.destroy();
await app.close();
await database.close();
console.log(JSON.stringify(out));
