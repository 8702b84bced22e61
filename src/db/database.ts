import { randomUUID } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import {
  CompiledQuery,
  Kysely,
  type KyselyPlugin,
  type LogEvent,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresDialect,
  PostgresQueryCompiler,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import type { PoolStats } from '../observability/metrics.js';
import { noteStatement, type RequestTrace, sqlSpan } from '../observability/tracing.js';
import { noteServerDatabase } from './citus.js';
import { acquireDataLock, type DataLock } from './data-lock.js';
import { tenantViolation } from './tenant-guard.js';
import { parseTimestamptz } from './timestamps.js';
import type { DB } from './types.js';

/** One request's SQL statements: tests and benchmarks read it to prove there is no N+1. */
export interface StatementCounter {
  count: number;
  /** With tracing on: where the request's statement spans hang (src/observability/tracing.ts). */
  trace?: RequestTrace;
}

export interface DatabaseOptions {
  /** postgres://… for a real server; when absent, embedded PGlite is used. */
  url?: string;
  /** PGlite data folder, or 'memory://' for an in-memory database. */
  dataDir?: string;
  /**
   * Real Postgres: where LISTEN connects, when not `url`. A pooler in transaction mode (PgBouncer)
   * hands each transaction any server connection, so a LISTEN made through it hears nothing.
   */
  listenUrl?: string;
  /** Statement timeout in ms for every pooled connection (real Postgres). */
  statementTimeoutMs?: number;
  poolSize?: number;
  /** Fail every statement on a tenant table that does not filter on org_id (tests). */
  tenantGuard?: boolean;
  /** PGlite only: start from this data folder dump (`dumpDataDir`) instead of an empty cluster. */
  loadDataDir?: Blob;
  /**
   * PGlite on disk: who opens the folder, named in its lock ('server', or the sdg command), so that
   * a process refused the folder is told who holds it.
   */
  holder?: string;
}

/** Calls `onNotify(payload)` for each NOTIFY on `channel`, and `onReconnect` after a lost listener is back. */
export type Listen = (
  channel: string,
  onNotify: (payload: string) => void,
  onReconnect?: () => void,
) => Promise<() => Promise<void>>;

export interface Database {
  db: Kysely<DB>;
  /** LISTEN on a connection of its own (Postgres) or on the embedded instance (PGlite). */
  listen: Listen;
  /** PGlite only: the whole data folder as a tar (test snapshots). */
  dump?: () => Promise<Blob>;
  /** PGlite on disk: this process's lock on the data folder (src/db/data-lock.ts), until close. */
  dataLock?: DataLock;
  backend: 'postgres' | 'pglite';
  /** Where the data lives, for start-up messages (no credentials). */
  describe: string;
  /** Statements this database has run (all requests); tests compare pools with it. */
  stats: { statements: number };
  /** Whether request-scoped handles refuse statements that do not filter on org_id. */
  tenantGuard: boolean;
  /** Runs `select 1` on a pooled connection; rejects if that takes longer than `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>;
  /** The pool's connections now (metrics). */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

const countStatements = (stats: { statements: number }) => (event: LogEvent) => {
  if (event.level === 'query') stats.statements++;
  // One span per statement when tracing is on (a no-op test otherwise).
  sqlSpan(event);
};

const poolStatsOf = (pool: pg.Pool) => (): PoolStats => ({
  total: pool.totalCount,
  idle: pool.idleCount,
  waiting: pool.waitingCount,
  max: pool.options.max ?? 10,
});

const guardCompiler = new PostgresQueryCompiler();

/**
 * Counts a request's statements and, with the tenant guard, fails every statement on a tenant table
 * that does not filter on org_id. A plugin on a per-request handle rather than AsyncLocalStorage,
 * which on Node 20 installs promise hooks that every promise of every request pays for. Kysely calls
 * transformQuery once for each statement it runs, raw `sql` included.
 */
class RequestPlugin implements KyselyPlugin {
  constructor(
    private readonly counter: StatementCounter,
    private readonly tenantGuard: boolean,
  ) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.tenantGuard) {
      const { sql } = guardCompiler.compileQuery(args.node, args.queryId);
      const violation = tenantViolation(sql);
      if (violation) throw new Error(`tenant guard: ${violation}: ${sql}`);
    }
    this.counter.count++;
    if (this.counter.trace) noteStatement(args.queryId, this.counter.trace);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/**
 * The handle one request uses: the same pool, its statements counted in `counter` and, in tests,
 * checked by the tenant guard. Admin tools, migrations and tests' own checks use `database.db`.
 */
export function forRequest(database: Database, counter: StatementCounter): Kysely<DB> {
  const handle = database.db.withPlugin(new RequestPlugin(counter, database.tenantGuard));
  roots.set(handle, database.db);
  if (counter.trace) traces.set(handle, counter.trace);
  return handle;
}

/**
 * Runs a statement compiled earlier (a kept text, this request's parameters) on a handle, through
 * the handle's plugins as a statement Kysely builds goes: a request's handle counts and traces it
 * and, in tests, checks it with the tenant guard. Kysely runs the plugins' transformQuery only when
 * it compiles, so that step is taken here; the plugins only look (RequestPlugin returns its node).
 * Async, as Kysely's execute is: a refused statement rejects, it does not throw.
 */
export async function executeCompiled<R>(
  db: Kysely<DB>,
  text: string,
  parameters: unknown[],
): Promise<QueryResult<R>> {
  const executor = db.getExecutor();
  const compiled = CompiledQuery.raw(text, parameters);
  executor.transformQuery(compiled.query, compiled.queryId);
  return await executor.executeQuery<R>(compiled);
}

const roots = new WeakMap<Kysely<DB>, Kysely<DB>>();
const traces = new WeakMap<Kysely<DB>, RequestTrace>();

/** With tracing on, the trace of the request a handle belongs to (its loaders' batches hang under it). */
export const requestTraceOf = (db: Kysely<DB>): RequestTrace | undefined => traces.get(db);

/** The process-wide handle behind a request's handle (or the handle itself): per-database caches key on it. */
export function rootHandle(db: Kysely<DB>): Kysely<DB> {
  return roots.get(db) ?? db;
}

// Keep timestamps as Date and bigint counts as numbers; jsonb is parsed by pg already.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz);

/**
 * How long a statement may go unanswered before the client gives up on its connection: the server's
 * statement_timeout plus this grace. A slow query is cancelled by the server first (503 TIMEOUT); no
 * answer at all means the path to the server is gone (packets dropped, no refusal), which TCP alone
 * notices only after many minutes.
 */
export const QUERY_TIMEOUT_GRACE_MS = 2_000;
/** Opening a connection, or waiting for a free one in the pool, longer than this answers 503. */
export const CONNECT_TIMEOUT_MS = 5_000;

const READ_TIMEOUT = 'Query read timeout';

/**
 * The pg client class of a pool. Queries run through pg's callback form: its promise form, and its
 * `query_timeout`, left every result reachable to V8's young-generation collections: results read
 * between two collections all survived them (copied, then promoted to the old generation, which only
 * a full collection frees); through this class they die young (test/perf/gc-survival.test.ts,
 * docs/decisions.md#finished-requests-die-young).
 *
 * With `readTimeoutMs` (a server's pool), a query nobody answers within it drops the socket, under
 * a timer that holds the client alone: that query fails (503), and so does anything queued behind
 * it, and the pool replaces the connection. Kept, the connection would still have the unanswered
 * query in flight, and every later query on it would hang too.
 */
function pgClient(readTimeoutMs?: number) {
  return class Client extends pg.Client {
    // pg's query() has a dozen overloads; a submittable query (a cursor) goes to pg as it is.
    override query(...args: any[]): any {
      const [config, values, callback] = args;
      if (typeof config?.submit === 'function')
        return (super.query as (...a: unknown[]) => unknown).apply(this, args);
      const done: QueryCallback | undefined = typeof values === 'function' ? values : callback;
      const params = typeof values === 'function' ? undefined : values;
      if (done) return super.query(config, params, this.watched(done));
      return new Promise((resolve, reject) => {
        super.query(
          config,
          params,
          this.watched((err, res) => (err ? reject(err) : resolve(res))),
        );
      });
    }

    /** `done`, called once the query is answered, unless the read timeout drops the socket first. */
    private watched(done: QueryCallback): QueryCallback {
      const timer = readTimeoutMs === undefined ? undefined : setTimeout(dropSocket, readTimeoutMs, this);
      return (err, res) => {
        clearTimeout(timer);
        // A per-query `query_timeout` (the readiness ping's) is pg's: it fails the query only.
        if (err?.message === READ_TIMEOUT) dropSocket(this);
        done(err, res);
      };
    }
  };
}

type QueryCallback = (err: Error | null, res: unknown) => void;

function dropSocket(client: pg.Client): void {
  const { stream } = (client as unknown as { connection: { stream: { destroy(err?: Error): void } } })
    .connection;
  stream.destroy(new Error(READ_TIMEOUT));
}

/** Rejects with `message` when `p` takes longer than `ms`; `onLate` gets the value if it comes later. */
function within<T>(p: Promise<T>, ms: number, message: string, onLate?: (v: T) => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(new Error(message));
    }, ms);
  });
  p.then((v) => late && onLate?.(v)).catch(() => {});
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A server's pool settings (SECURITY.md, "Slow queries and a silent database"). */
export function poolConfig(opts: DatabaseOptions): pg.PoolConfig {
  const statementTimeout = opts.statementTimeoutMs ?? 10_000;
  return {
    connectionString: opts.url,
    Client: pgClient(statementTimeout + QUERY_TIMEOUT_GRACE_MS),
    max: opts.poolSize ?? 10,
    statement_timeout: statementTimeout,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Keeps idle connections alive through NAT and firewalls, and lets the kernel notice a dead peer.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

export async function createDatabase(opts: DatabaseOptions): Promise<Database> {
  const stats = { statements: 0 };
  const tenantGuard = opts.tenantGuard ?? process.env.SDG_TENANT_GUARD === '1';
  if (opts.url) {
    const pool = new pg.Pool(poolConfig(opts));
    // A client losing its server (Postgres restart, network cut) must not crash the process: idle
    // clients report through the pool, checked-out ones through their own 'error' event. The
    // failure still reaches the query that was running, which answers 503.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool }),
      log: countStatements(stats),
    });
    noteServerDatabase(async () => {
      const { rows } = await pool.query<{ on: boolean }>(
        "select exists (select 1 from pg_extension where extname = 'citus') as on",
      );
      return rows[0]?.on === true;
    });
    const u = new URL(opts.url);
    const listenUrl = opts.listenUrl ?? opts.url;
    return {
      db,
      listen: (channel, onNotify, onReconnect) => listenPostgres(listenUrl, channel, onNotify, onReconnect),
      backend: 'postgres',
      describe: `postgres://${u.host}${u.pathname}`,
      stats,
      tenantGuard,
      ping: async (timeoutMs) => {
        const started = Date.now();
        const client = await within(
          pool.connect(),
          timeoutMs,
          'timeout exceeded when trying to connect',
          (late) => late.release(),
        );
        const left = Math.max(1, timeoutMs - (Date.now() - started));
        try {
          await client.query({ text: 'select 1', query_timeout: left } as pg.QueryConfig);
          client.release();
        } catch (err) {
          client.release(err as Error);
          throw err;
        }
      },
      poolStats: poolStatsOf(pool),
      close: () => db.destroy(),
    };
  }

  const dataDir = opts.dataDir ?? './.data/pglite';
  const onDisk = !dataDir.startsWith('memory://');
  if (onDisk) mkdirSync(resolve(dataDir), { recursive: true });
  // A second process on the same folder would corrupt it (data-lock.ts): the lock comes first.
  const dataLock = onDisk
    ? await acquireDataLock(realpathSync(resolve(dataDir)), opts.holder ?? defaultHolder())
    : undefined;
  let pglite: PGlite;
  try {
    // relaxedDurability stays off: each commit is flushed to disk before it is acknowledged.
    // pg_trgm backs the trigram index of list search (migrations/0002), btree_gist the portfolio-led
    // spatial index (0012); loading them only makes them available.
    pglite = await PGlite.create(onDisk ? resolve(dataDir) : undefined, {
      extensions: { pg_trgm, btree_gist },
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    });
  } catch (err) {
    dataLock?.release();
    throw err;
  }
  // A dump made from a folder on disk carries that folder's lock file, unpacked over this one's.
  if (opts.loadDataDir) dataLock?.rewrite();
  const pool = new pg.Pool({ ...createPgConfig(pglite), Client: pgClient(), max: 1 });
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: countStatements(stats),
  });
  return {
    db,
    backend: 'pglite',
    listen: async (channel, onNotify) => {
      const off = await pglite.listen(channel, onNotify);
      return async () => off();
    },
    stats,
    tenantGuard,
    describe: onDisk ? `embedded PGlite at ${resolve(dataDir)}` : 'embedded PGlite (in memory)',
    dump: () => pglite.dumpDataDir('none'),
    dataLock,
    poolStats: poolStatsOf(pool),
    ping: async (timeoutMs) => {
      await within(sql`select 1`.execute(db), timeoutMs, 'the database did not answer in time');
    },
    close: async () => {
      try {
        await db.destroy();
        await pglite.close();
      } finally {
        dataLock?.release();
      }
    },
  };
}

/**
 * Whether a NOTIFY sent through the pool reaches `listen` within `timeoutMs`. It does not when the
 * LISTEN went through a pooler in transaction mode (PgBouncer), which keeps no session for it: the
 * server then warns at start (DATABASE_LISTEN_URL; docs/scaling.md, "PgBouncer").
 */
export async function doorbellRings(database: Database, timeoutMs = 2_000): Promise<boolean> {
  const channel = 'sdg_doorbell_check';
  const token = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  let ring: () => void = () => {};
  const rang = new Promise<boolean>((resolve) => {
    ring = () => resolve(true);
    timer = setTimeout(resolve, timeoutMs, false);
  });
  const unlisten = await database.listen(channel, (payload) => payload === token && ring());
  try {
    await sql`select pg_notify(${channel}, ${token})`.execute(database.db);
    return await rang;
  } finally {
    clearTimeout(timer);
    await unlisten();
  }
}

/** The lock's holder when the caller names none: the script this process runs. */
const defaultHolder = () => `node ${process.argv[1] ?? ''}`.trim();

/**
 * LISTEN on a dedicated connection, reconnecting (every second) when it is lost. Notifications sent
 * while it was down are lost, so `onReconnect` tells the listener to catch up from its own record.
 */
async function listenPostgres(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
  onReconnect?: () => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (again: boolean) => {
    const c = new pg.Client({
      connectionString: url,
      keepAlive: true,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    c.on('notification', (m) => m.channel === channel && onNotify(m.payload ?? ''));
    c.on('error', () => retry());
    c.on('end', () => retry());
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      client = c;
      if (again) onReconnect?.();
    } catch {
      c.end().catch(() => {});
      retry();
    }
  };
  const retry = () => {
    if (closed || timer) return;
    client = undefined;
    timer = setTimeout(() => {
      timer = undefined;
      void connect(true);
    }, 1_000).unref();
  };
  await connect(false);
  return async () => {
    closed = true;
    if (timer) clearTimeout(timer);
    await client?.end().catch(() => {});
  };
}
