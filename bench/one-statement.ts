/**
 * The one-statement floor: node:http + pg, no framework, no GraphQL, no Kysely, and one SQL
 * statement per request in which Postgres builds the whole response text (bench/one-statement-sql.ts,
 * Hasura's design). The text goes to the client as it came from Postgres, never parsed. It is the
 * nearest thing to the physical limit of these reads on this hardware: Node does HTTP and
 * parameters, Postgres does everything else on the other core.
 *
 *   GET /projects/v1?orgId&portfolioId&limit&startKey         REST v1 page (scenarios 1, 2, 3)
 *   GET /nested?orgId&portfolioId&projects&contacts&parcels   the nested query with raw `properties`
 *                                                             (NESTED_PROPERTIES_QUERY's answer)
 *
 * Authentication is the gateway's, folded into the statement: the key's SHA-256 is looked up on
 * every request (the gateway caches no key lookups either), and the stamp of last_used_at, at most
 * once a minute, is a data-modifying CTE of the same statement. The labels (option and user names),
 * which the gateway keeps in a per-org cache, are read by the statement each time: a few dozen rows,
 * which makes this floor a little slower than one with a cache, never faster than it should be.
 * A startKey's signature is checked here, in Node, as the gateway checks it, before the statement.
 * Statements are prepared once per connection (named) and run with their generic plan, as a
 * one-statement engine keeps its plans; without JIT (see main).
 *
 * Environment: PORT, HOST, DATABASE_URL (Postgres; PGlite is not served), CURSOR_SECRET (else the
 * database's), SDG_EXPOSE_SQL_COUNT=1 (x-sql-statements: always 1).
 */
import '../src/v8-flags.js';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { CursorCodec } from '../src/pagination/cursor.js';
import { HttpError, intParam, required } from './http-params.js';
import {
  type Access,
  hmacPads,
  NESTED_SQL,
  nestedValues,
  PAGE_SQL,
  pageValues,
} from './one-statement-sql.js';

/** The gateway's key shape (src/http/auth.ts KEY_SHAPE): anything else is refused without a lookup. */
const KEY_SHAPE = /^[A-Za-z0-9_-]{16,200}$/;

function keyHash(key: string | string[] | undefined): string {
  if (typeof key !== 'string' || key === '')
    throw new HttpError(401, 'UNAUTHENTICATED', 'Send your API key in the X-API-Key header.');
  if (!KEY_SHAPE.test(key))
    throw new HttpError(401, 'UNAUTHENTICATED', 'The API key in X-API-Key is unknown or revoked.');
  return createHash('sha256').update(key).digest('hex');
}

/** The bound a startKey names, checked as the gateway checks it (signature, scope, shape). */
function bound(cursors: CursorCodec, scope: string, startKey: string | null): [string, string] | undefined {
  if (startKey === null) return undefined;
  const bad = new HttpError(
    400,
    'INVALID_CURSOR',
    'The cursor (startKey) is malformed, was altered, or belongs to another list.',
  );
  let values: (string | number)[];
  try {
    values = cursors.decode(scope, startKey, 2);
  } catch {
    throw bad;
  }
  const [ms, id] = values;
  if (typeof ms !== 'number' || typeof id !== 'string') throw bad;
  return [new Date(ms).toISOString(), id];
}

/** A prepared statement (its name, text and parameters), or an HttpError for bad input, before any statement. */
function statementFor(
  path: string,
  q: URLSearchParams,
  key: string | string[] | undefined,
  cursors: CursorCodec,
  pads: { ipad: Buffer; opad: Buffer },
): pg.QueryConfig {
  if (path === '/projects/v1') {
    const orgId = required(q, 'orgId');
    const portfolioId = required(q, 'portfolioId');
    const limit = intParam(q, 'limit', 100, 5000);
    const after = bound(cursors, `portfolio-projects:${portfolioId}`, q.get('startKey'));
    return {
      name: 'page',
      text: PAGE_SQL,
      values: pageValues(keyHash(key), orgId, portfolioId, limit, after, pads),
    };
  }
  if (path === '/nested') {
    const orgId = required(q, 'orgId');
    const portfolioId = required(q, 'portfolioId');
    const sizes = {
      projects: intParam(q, 'projects', 100, 5000),
      contacts: intParam(q, 'contacts', 10, 5000),
      parcels: intParam(q, 'parcels', 5, 5000),
    };
    return {
      name: 'nested',
      text: NESTED_SQL,
      values: nestedValues(keyHash(key), orgId, portfolioId, sizes, pads),
    };
  }
  throw new HttpError(404, 'NOT_FOUND', 'no such route');
}

const REFUSED: Record<Exclude<Access, 'ok'>, HttpError> = {
  'unknown-key': new HttpError(401, 'UNAUTHENTICATED', 'The API key in X-API-Key is unknown or revoked.'),
  'not-found': new HttpError(404, 'NOT_FOUND', 'Not found, or your API key has no access to it.'),
};

async function main() {
  if (!process.env.DATABASE_URL) throw new Error('the one-statement floor needs DATABASE_URL (Postgres)');
  // The statements are planned once per connection. Left to choose, Postgres planned the nested
  // statement anew on every execution (its generic plan's estimate is higher than a custom plan's),
  // and planning cost more than running it; the generic plan reads through the same indexes.
  // No JIT: the planner's estimate for one statement holding every level is far above
  // jit_above_cost, and compiling it took seconds, for a statement that runs in milliseconds.
  // The gateway's statements, each small, never reach that threshold.
  // Startup options and named statements are Postgres's own: a transaction pooler (PgBouncer, which
  // the peers test also runs behind) refuses the options and may run the next execution of a name on
  // a server connection that never prepared it. Behind one, the floor sends unnamed statements with
  // the server's settings; its figures are measured against Postgres itself.
  let pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: 10,
    options: '-c jit=off -c plan_cache_mode=force_generic_plan',
  });
  pool.on('error', () => {});
  let pooled = false;
  try {
    await pool.query('select 1');
  } catch (err) {
    if (!/unsupported startup parameter/.test(String((err as Error)?.message))) throw err;
    await pool.end();
    pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    pool.on('error', () => {});
    pooled = true;
  }
  const secret =
    process.env.CURSOR_SECRET ||
    (await pool.query<{ value: string }>("select value from instance_settings where key = 'cursor_secret'"))
      .rows[0].value;
  const cursors = new CursorCodec(secret);
  const pads = hmacPads(secret);
  const expose = process.env.SDG_EXPOSE_SQL_COUNT === '1';

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let statements = 0;
    const send = (status: number, body: string) => {
      // One conversion to UTF-8, which also gives the length.
      const bytes = Buffer.from(body, 'utf8');
      const headers: Record<string, string | number> = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': bytes.length,
      };
      if (expose) headers['x-sql-statements'] = statements;
      res.writeHead(status, headers).end(bytes);
    };
    const fail = (err: unknown) =>
      err instanceof HttpError
        ? send(err.status, JSON.stringify({ error: { code: err.code, message: err.message } }))
        : send(
            500,
            JSON.stringify({ error: { code: 'INTERNAL', message: String((err as Error)?.message ?? err) } }),
          );
    if (req.method === 'GET' && url.pathname === '/healthz') return send(200, '{"status":"ok"}');
    if (req.method !== 'GET') return fail(new HttpError(404, 'NOT_FOUND', 'no such route'));
    let statement: pg.QueryConfig;
    try {
      statement = statementFor(url.pathname, url.searchParams, req.headers['x-api-key'], cursors, pads);
    } catch (err) {
      return fail(err);
    }
    statements++;
    if (pooled) statement = { text: statement.text, values: statement.values };
    pool.query<{ access: Access; body: string | null }>(statement).then(({ rows: [row] }) => {
      if (row.access === 'ok' && row.body !== null) send(200, row.body);
      else fail(row.access === 'unknown-key' ? REFUSED['unknown-key'] : REFUSED['not-found']);
    }, fail);
  });
  server.keepAliveTimeout = 72_000;
  const port = Number(process.env.PORT ?? 4300);
  const host = process.env.HOST ?? '127.0.0.1';
  server.listen(port, host, () =>
    process.stdout.write(`one-statement floor listening on http://${host}:${port}\n`),
  );
  const stop = () => {
    server.close();
    server.closeAllConnections();
    pool.end().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`one-statement floor failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
