import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { type Database, forRequest, type StatementCounter } from './db/database.js';
import { orgCacheFor } from './db/org-cache.js';
import { GRAPHIQL_PUBLIC_PATHS, registerGraphiQL } from './graphiql/routes.js';
import { Executor } from './graphql/executor.js';
import { DEFAULT_LIMITS, type GraphQLLimits } from './graphql/limits.js';
import { buildSchema } from './graphql/schema.js';
import { Seam } from './graphql/seam.js';
import { registerGraphQL } from './graphql/server.js';
import { DEFAULT_SOCKET_LIMITS, type SocketLimits } from './graphql/socket-limits.js';
import type { TrustedDocuments } from './graphql/trusted-documents.js';
import { registerWebSocket } from './graphql/websocket.js';
import {
  Admission,
  type AdmissionConfig,
  type AdmissionTier,
  DEFAULT_ADMISSION,
  DEFAULT_LARGE_ADMISSION,
  installAdmission,
} from './http/admission.js';
import { installAuth } from './http/auth.js';
import { clientErrorHandler } from './http/client-errors.js';
import { type CompressionConfig, installCompression } from './http/compression.js';
import { type CorsOrigins, installCors } from './http/cors.js';
import { frameworkErrors, installErrorHandling } from './http/errors.js';
import { READY_TIMEOUT_MS, type ReadinessCheck, registerHealth, registerMetricsHint } from './http/health.js';
import { installLingeringClose } from './http/lingering-close.js';
import { registerMaps } from './http/maps.js';
import {
  installRateLimit,
  type RateLimitConfig,
  type RateLimitStore,
  trustedProxies,
} from './http/rate-limit.js';
import { withLazyChildren } from './logger.js';
import { ChangeHub, DEFAULT_HUB_LIMITS, type HubLimits } from './modules/changes/index.js';
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
  /** Answer the hot read shape by plan (src/graphql/plan); on unless false (GRAPHQL_PLANS=0). */
  graphqlPlans?: boolean;
  /** Engines that may answer (GRAPHQL_PLANS, GRAPHQL_JIT, GRAPHQL_JS), each on unless false; overrides graphqlPlans. */
  graphqlEngines?: { plan?: boolean; jit?: boolean; js?: boolean };
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
  /** How many large GraphQL operations run at once; DEFAULT_LARGE_ADMISSION unless given. */
  largeAdmission?: AdmissionConfig | Admission;
  /** Where metrics go; a fresh registry unless given. */
  metrics?: Metrics;
  /** Checked by /readyz beside the databases (Redis of the shared rate limit). */
  readinessChecks?: ReadinessCheck[];
  /** How long /readyz waits for each dependency. */
  readyTimeoutMs?: number;
  /** Bounds of live subscriptions and of sockets (graphql-ws on /graphql); the defaults unless given. */
  subscriptions?: Partial<HubLimits & SocketLimits>;
  /** Browser origins allowed to call (CORS_ORIGINS); `*` unless given. */
  corsOrigins?: CorsOrigins;
  /** br/gzip levels; DEFAULT_COMPRESSION unless given, `false` turns compression off. */
  compression?: CompressionConfig | false;
  /** GRAPHQL_TRUSTED_DOCUMENTS: /graphql runs only these (admin keys excepted); any document unless given. */
  trustedDocuments?: TrustedDocuments;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: endpoints may be registered on private addresses (tests); refused unless given. */
  webhooks?: { allowPrivateTargets: boolean; maxEndpointsPerOrg?: number };
}

/** Routes that need no API key. */
const PUBLIC = new Set([
  '/healthz',
  '/readyz',
  '/metrics',
  ...GRAPHIQL_PUBLIC_PATHS,
  ...OPENAPI_PUBLIC_PATHS,
]);

/**
 * Builds the whole HTTP app without listening, so tests can use `inject()`. A request passes, in
 * order: the rate limit, authentication (which builds its context), admission, then a transport
 * (REST v1 or /graphql), both of which run operations through the one Executor.
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const metrics = opts.metrics ?? new Metrics();
  const app = createServer(opts, metrics);
  const limits = opts.graphqlLimits ?? DEFAULT_LIMITS;
  const executorOptions = { plans: opts.graphqlPlans, engines: opts.graphqlEngines, metrics };
  const executor = new Executor(buildSchema(), limits, executorOptions, metrics.operations);
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
  const webhooks = {
    allowPrivateTargets: opts.webhooks?.allowPrivateTargets ?? false,
    maxEndpointsPerOrg: opts.webhooks?.maxEndpointsPerOrg,
  };
  app.addHook('preHandler', (req, _reply, done) => {
    if (req.ctx) req.ctx.webhooks = webhooks;
    done();
  });
  // After auth: heavy and large requests get `ctx.admit(tier)`.
  const tier = (
    given: AdmissionConfig | Admission | undefined,
    fallback: AdmissionConfig,
    t: AdmissionTier,
  ) => (given instanceof Admission ? given : new Admission(given ?? fallback, t));
  const admission = {
    heavy: tier(opts.admission, DEFAULT_ADMISSION, 'heavy'),
    large: tier(opts.largeAdmission, DEFAULT_LARGE_ADMISSION, 'large'),
  };
  installAdmission(app, admission, (t, s) => metrics.admissionWait.observe({ tier: t }, s));
  metrics.watch({
    pools: { primary: () => database.poolStats(), read: readDatabase && (() => readDatabase.poolStats()) },
    admission: () => ({ heavy: admission.heavy.load, large: admission.large.load }),
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
  registerMetricsHint(app);
  registerGraphiQL(app);
  // The one way every operation runs, whichever door it comes in by (graphql/seam.ts).
  const seam = new Seam(executor, limits, opts.trustedDocuments);
  await registerGraphQL(app, seam, limits, opts.trustedDocuments);
  registerRest(app, seam);
  registerMaps(app, seam);
  registerOpenApi(app);
  const hub = new ChangeHub(database.db, database.listen, { ...DEFAULT_HUB_LIMITS, ...opts.subscriptions });
  registerWebSocket(app, {
    seam,
    database,
    readDatabase,
    cursors,
    hub,
    limits,
    socketLimits: { ...DEFAULT_SOCKET_LIMITS, ...opts.subscriptions },
    admission,
    metrics,
    webhooks,
  });
  return app;
}

/** Fastify with what every request gets: an id, its statement counter, body limits and the error body. */
function createServer(opts: AppOptions, metrics: Metrics): FastifyInstance {
  const requestTimeout = opts.requestTimeoutMs ?? 30_000;
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: withLazyChildren(opts.logger) } : { logger: false }),
    // One access line per request instead, with its operation, SQL count and org (observability/http.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit ?? 1_048_576,
    requestTimeout,
    http: {
      // Node checks request timeouts every 30 s by default, so a slow sender could hold a socket twice as long.
      connectionsCheckingInterval: 1_000,
      // Node cuts a request whose headers have arrived only once both timeouts have passed, and its
      // default headersTimeout (60 s, fixed when the server is built, before Fastify sets
      // requestTimeout) would let a trickled body run past requestTimeout.
      headersTimeout: requestTimeout,
    },
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
  // Hooks that never wait take Fastify's callback form: an async one costs every request a promise.
  app.addHook('onRequest', (req, _reply, done) => {
    // With tracing on, the request's statements hang under its spans (observability/http.ts ran first).
    req.statements = req.obs?.trace ? { count: 0, trace: req.obs.trace } : { count: 0 };
    done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    if (opts.exposeStatementCount) reply.header('x-sql-statements', String(req.statements.count));
    done(null, asBytes(payload));
  });
  // Bodies are JSON only: without this, Fastify's default text/plain parser would turn a
  // wrongly-typed body into a 400 about its shape instead of a 415 about its type.
  app.removeContentTypeParser('text/plain');
  acceptEmptyJsonWithoutBody(app);
  installErrorHandling(app);
  installLingeringClose(app);
  // Before the rate limit, so a preflight is answered first and a 429 still carries CORS headers.
  installCors(app, opts.corsOrigins ?? '*');
  if (opts.compression !== false) installCompression(app, opts.compression);
  if (opts.rateLimit)
    installRateLimit(
      app,
      opts.rateLimit.store,
      opts.rateLimit.config,
      (scope) => metrics.rateLimited.inc({ scope }),
      trustedProxies(opts.trustProxy),
    );
  return app;
}

/**
 * A large answer as UTF-8 bytes, converted once. GraphQL answers and REST pages arrive as bytes
 * already (http/json-bytes.ts); this covers any other large string. Fastify would measure a string
 * for Content-Length and Node would convert it again to write it, and for the large strings
 * JSON.stringify builds each pass is slow (docs/decisions.md#large-answers-are-written-in-pieces-as-bytes).
 * Small answers stay strings: for them both passes are cheap.
 */
function asBytes(payload: unknown): unknown {
  return typeof payload === 'string' && payload.length > LARGE_ANSWER_CHARS ? Buffer.from(payload) : payload;
}
const LARGE_ANSWER_CHARS = 16_384;

/** Methods whose requests carry no body in this API. */
const BODYLESS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS']);

/**
 * Many HTTP clients send `Content-Type: application/json` on every request; on a DELETE with no
 * body that is no reason to refuse it. An empty body on a POST or PUT is still a 400.
 */
function acceptEmptyJsonWithoutBody(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' && BODYLESS.has(req.method)) return done(null, undefined);
    json(req, body as string, done);
  });
}

async function loadCursorSecret(database: Database): Promise<string> {
  const row = await database.db
    .selectFrom('instance_settings')
    .select('value')
    .where('key', '=', 'cursor_secret')
    .executeTakeFirstOrThrow();
  return process.env.CURSOR_SECRET || row.value;
}
