/**
 * The gateway in this process, on its own pool and a free local port, for the benches that time
 * one GraphQL request at a time against SQL read off the same process (bench/aggregates.ts,
 * bench/grids.ts): the client's share of the event loop is small beside the statements.
 */
import { buildApp } from '../src/app.js';
import { createDatabase, type Database } from '../src/db/database.js';

export interface Timed {
  ms: number;
  /** The GraphQL answer, read by each bench in its own shape. */
  json: any;
  /** The statements the request sent (the gateway's x-sql-statements). */
  sql: number;
}

export interface InProcessGateway {
  database: Database;
  /** POSTs `body` (a JSON GraphQL request) to /graphql as the key's user; throws unless it answered data. */
  ask(body: string): Promise<Timed>;
  close(): Promise<void>;
}

export async function inProcessGateway(url: string, apiKey: string): Promise<InProcessGateway> {
  const database = await createDatabase({ url, statementTimeoutMs: 60_000 });
  const app = await buildApp({ database, exposeStatementCount: true });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    database,
    async ask(body) {
      const t = performance.now();
      const r = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body,
      });
      const json: Timed['json'] = await r.json();
      const ms = performance.now() - t;
      if (r.status !== 200 || json.errors)
        throw new Error(`gateway: ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
      return { ms, json, sql: Number(r.headers.get('x-sql-statements')) };
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}
