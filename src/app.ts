import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { type Database, forRequest, type StatementCounter } from './db/database.js';
import { orgCacheFor } from './db/org-cache.js';
import { GRAPHIQL_PUBLIC_PATHS, registerGraphiQL } from './graphiql/routes.js';
import { Executor } from './graphql/executor.js';
import { DEFAULT_LIMITS, type GraphQLLimits } from './graphql/limits.js';
import { buildSchema } from './graphql/schema.js';
import { registerGraphQL } from './graphql/server.js';
import { registerSubscriptions } from './graphql/subscriptions.js';
import { Admission, type AdmissionConfig, DEFAULT_ADMISSION, installAdmission } from './http/admission.js';
import { installAuth } from './http/auth.js';
import { clientErrorHandler } from './http/client-errors.js';
import { frameworkErrors, installErrorHandling } from './http/errors.js';
import { READY_TIMEOUT_MS, type ReadinessCheck, registerHealth } from './http/health.js';
import { installLingeringClose } from './http/lingering-close.js';
import {
  installRateLimit,
  type RateLimitConfig,
  type RateLimitStore,
  trustedProxies,
} from './http/rate-limit.js';
import { ChangeHub, DEFAULT_HUB_LIMITS, type HubLimits } from './modules/changes/hub.js';
import { installObservability } from './observability/http.js';
import { Metrics } from './observability/metrics.js';
import { OPENAPI_PUBLIC_PATHS, registerOpenApi } from './openapi/routes.js';
import { CursorCodec } from './pagination/cursor.js';
import { registerRest } from './rest/adapter.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** SQL statements this request has run so far. */
    statements: StatementCounter;
  }
  interface FastifyInstance {
    /** This app's Prometheus metrics (served on METRICS_PORT by server.ts, never on the API port). */
    metrics: Metrics;
  }
}

export interface AppOptions {
  database: Database;
  /** A pino logger (with the API-key redaction of src/logger.ts); none logs nothing. */
  logger?: FastifyBaseLogger;
  bodyLimit?: number;
  /** Time allowed to receive a whole request. */
  requestTimeoutMs?: number;
  /** Adds an `x-sql-statements` response header (tests, benchmarks). */
  exposeStatementCount?: boolean;
  /** Proxies whose X-Forwarded-For is believed (TRUST_PROXY); none unless given. */
  trustProxy?: string | number;
  /** Per-key rate limiting; off unless given (the server turns it on from the environment). */
  rateLimit?: { store: RateLimitStore; config: RateLimitConfig };
  /** A read pool (DATABASE_READ_URL) for read-only requests. */
  readDatabase?: Database;
  /** GraphQL abuse limits; DEFAULT_LIMITS unless given. */
  graphqlLimits?: GraphQLLimits;
  /** How many heavy requests (big pages) run at once; DEFAULT_ADMISSION unless given (tests pass their own). */
  admission?: AdmissionConfig | Admission;
  /** Where metrics go; a fresh registry unless given. */
  metrics?: Metrics;
  /** Checked by /readyz beside the databases (Redis of the shared rate limit). */
  readinessChecks?: ReadinessCheck[];
  /** How long /readyz waits for each dependency. */
  readyTimeoutMs?: number;
  /** Bounds of live subscriptions (graphql-ws on /graphql); DEFAULT_HUB_LIMITS unless given. */
  subscriptions?: Partial<HubLimits>;
}

/** Routes that need no API key. */
const PUBLIC = new Set(['/healthz', '/readyz', ...GRAPHIQL_PUBLIC_PATHS, ...OPENAPI_PUBLIC_PATHS]);

/**
 * Builds the whole HTTP app without listening, so tests can use `inject()`. A request passes, in
 * order: the rate limit, authentication (which builds its context), admission, then a transport
 * (REST v1 or /graphql), both of which run operations through the one Executor.
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const metrics = opts.metrics ?? new Metrics();
  const app = createServer(opts, metrics);
  const limits = opts.graphqlLimits ?? DEFAULT_LIMITS;
  const executor = new Executor(buildSchema(), limits, {}, metrics.operations);
  const cursors = new CursorCodec(await loadCursorSecret(opts.database));
  const { database, readDatabase } = opts;
  installAuth(
    app,
    cursors,
    (req) => PUBLIC.has(req.routeOptions.url ?? ''),
    (req) => ({
      db: forRequest(database, req.statements),
      readDb: readDatabase && forRequest(readDatabase, req.statements),
    }),
  );
  // After auth: heavy requests get `ctx.admit()`.
  const admission =
    opts.admission instanceof Admission ? opts.admission : new Admission(opts.admission ?? DEFAULT_ADMISSION);
  installAdmission(app, admission, (s) => metrics.admissionWait.observe(s));
  metrics.watch({
    pools: { primary: () => database.poolStats(), read: readDatabase && (() => readDatabase.poolStats()) },
    admission: () => admission.load,
    caches: { org: () => orgCacheFor(database.db).stats, compiledOperation: () => executor.jit.stats },
  });
  registerHealth(
    app,
    [
      { name: 'primary', required: true, ping: (ms) => database.ping(ms) },
      ...(readDatabase
        ? [{ name: 'read' as const, required: true, ping: (ms: number) => readDatabase.ping(ms) }]
        : []),
      ...(opts.readinessChecks ?? []),
    ],
    database.backend,
    opts.readyTimeoutMs ?? READY_TIMEOUT_MS,
  );
  // Before /graphql, so that a browser opening /graphql is redirected to GraphiQL.
  registerGraphiQL(app);
  await registerGraphQL(app, executor, limits);
  registerRest(app, executor);
  registerOpenApi(app);
  const hub = new ChangeHub(database.db, database.listen, { ...DEFAULT_HUB_LIMITS, ...opts.subscriptions });
  registerSubscriptions(app, { schema: executor.schema, database, cursors, hub, limits });
  return app;
}

/** Fastify with what every request gets: an id, its statement counter, body limits and the error body. */
function createServer(opts: AppOptions, metrics: Metrics): FastifyInstance {
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    // One access line per request instead, with its operation, SQL count and org (observability/http.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit ?? 1_048_576,
    requestTimeout: opts.requestTimeoutMs ?? 30_000,
    // Node checks request timeouts every 30 s by default, so a slow sender could hold a socket twice as long.
    http: { connectionsCheckingInterval: 1_000 },
    frameworkErrors,
    clientErrorHandler,
    trustProxy: trustedProxies(opts.trustProxy),
    // Honour a caller's request id if it is sane, so logs can be correlated across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
  });
  app.decorate('metrics', metrics);
  // First, so that its hooks see every request, also those the rate limit refuses.
  installObservability(app, metrics);
  // Every request counts its own SQL statements (see forRequest).
  app.decorateRequest('statements', null as unknown as StatementCounter);
  app.addHook('onRequest', async (req) => {
    req.statements = { count: 0 };
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (opts.exposeStatementCount) reply.header('x-sql-statements', String(req.statements.count));
  });
  // Bodies are JSON only: without this, Fastify's default text/plain parser would turn a
  // wrongly-typed body into a 400 about its shape instead of a 415 about its type.
  app.removeContentTypeParser('text/plain');
  installErrorHandling(app);
  installLingeringClose(app);
  if (opts.rateLimit)
    installRateLimit(app, opts.rateLimit.store, opts.rateLimit.config, (scope) =>
      metrics.rateLimited.inc({ scope }),
    );
  return app;
}

async function loadCursorSecret(database: Database): Promise<string> {
  const row = await database.db
    .selectFrom('instance_settings')
    .select('value')
    .where('key', '=', 'cursor_secret')
    .executeTakeFirstOrThrow();
  return process.env.CURSOR_SECRET || row.value;
}
