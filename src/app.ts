import { randomUUID } from 'node:crypto';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import fastifyApollo from '@as-integrations/fastify';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { GraphQLError } from 'graphql';
import { sql } from 'kysely';
import { type Context, routeToReadPool } from './context.js';
import { type Database, forRequest, type StatementCounter } from './db/database.js';
import { AppError, RETRY_AFTER_SECONDS } from './errors.js';
import { GRAPHIQL_PUBLIC_PATHS, registerGraphiQL } from './graphiql/routes.js';
import { formatGraphQLError } from './graphql/errors.js';
import { jitGateway } from './graphql/jit.js';
import { DEFAULT_LIMITS, enforceLimits, type GraphQLLimits } from './graphql/limits.js';
import { buildSchema } from './graphql/schema.js';
import {
  Admission,
  type AdmissionConfig,
  DEFAULT_ADMISSION,
  HEAVY_GRAPHQL_COST,
  installAdmission,
} from './http/admission.js';
import { installAuth } from './http/auth.js';
import { frameworkErrors, installErrorHandling } from './http/errors.js';
import { installRateLimit, type RateLimitConfig, type RateLimitStore } from './http/rate-limit.js';
import { OPENAPI_PUBLIC_PATHS, registerOpenApi } from './openapi/routes.js';
import { CursorCodec } from './pagination/cursor.js';
import { registerRest } from './rest/adapter.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** SQL statements this request has run so far. */
    statements: StatementCounter;
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
  /** Per-key rate limiting; off unless given (the server turns it on from the environment). */
  rateLimit?: { store: RateLimitStore; config: RateLimitConfig };
  /** A read pool (DATABASE_READ_URL) for read-only requests. */
  readDatabase?: Database;
  /** GraphQL abuse limits; DEFAULT_LIMITS unless given. */
  graphqlLimits?: GraphQLLimits;
  /** How many heavy requests (big pages) run at once; DEFAULT_ADMISSION unless given (tests pass their own). */
  admission?: AdmissionConfig | Admission;
}

/**
 * Rejects operations over the depth, cost, alias and root-field limits before they run, and makes
 * heavy ones wait for a slot (admission control).
 */
function limitsPlugin(limits: GraphQLLimits): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, request, contextValue }) {
          if (!operation) return;
          const m = enforceLimits(limits, document, operation, request.variables ?? {});
          if (m.cost > HEAVY_GRAPHQL_COST && contextValue.admit) {
            try {
              await contextValue.admit();
            } catch (err) {
              if (!(err instanceof AppError)) throw err;
              throw new GraphQLError(err.message, {
                extensions: {
                  code: err.code,
                  http: {
                    status: err.status,
                    headers: new Map([['retry-after', String(RETRY_AFTER_SECONDS[err.code] ?? 1)]]),
                  },
                },
              });
            }
          }
        },
      };
    },
  };
}

/** Queries run on the read pool; mutations (and so every read of a request that writes) on the primary. */
const readPoolPlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation, contextValue }) {
        if (operation?.operation === 'query') routeToReadPool(contextValue);
      },
    };
  },
};

/** Routes that need no API key. */
const PUBLIC = new Set(['/healthz', '/readyz', ...GRAPHIQL_PUBLIC_PATHS, ...OPENAPI_PUBLIC_PATHS]);

async function loadCursorSecret(database: Database): Promise<string> {
  const row = await database.db
    .selectFrom('instance_settings')
    .select('value')
    .where('key', '=', 'cursor_secret')
    .executeTakeFirstOrThrow();
  return process.env.CURSOR_SECRET || row.value;
}

/** Builds the whole HTTP app without listening, so tests can use `inject()`. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { db } = opts.database;
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    bodyLimit: opts.bodyLimit ?? 1_048_576,
    requestTimeout: opts.requestTimeoutMs ?? 30_000,
    frameworkErrors,
    // Honour a caller's request id if it is sane, so logs can be correlated across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
  });
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
  if (opts.rateLimit) installRateLimit(app, opts.rateLimit.store, opts.rateLimit.config);
  const limits = opts.graphqlLimits ?? DEFAULT_LIMITS;

  const cursors = new CursorCodec(await loadCursorSecret(opts.database));
  const schema = buildSchema();
  const { readDatabase } = opts;
  installAuth(
    app,
    cursors,
    (req) => PUBLIC.has(req.routeOptions.url ?? ''),
    (req) => ({
      db: forRequest(opts.database, req.statements),
      readDb: readDatabase && forRequest(readDatabase, req.statements),
    }),
  );
  // After auth: heavy requests get `ctx.admit()`.
  installAdmission(
    app,
    opts.admission instanceof Admission ? opts.admission : new Admission(opts.admission ?? DEFAULT_ADMISSION),
  );

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await sql`select 1`.execute(db);
      return { status: 'ready', database: opts.database.backend };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: opts.database.backend });
    }
  });

  const apollo = new ApolloServer<Context>({
    // Our own schema, executed by graphql-jit (src/graphql/jit.ts).
    gateway: jitGateway(schema),
    // The default landing page loads Apollo Sandbox from a CDN; GraphiQL is served locally instead.
    // No drain plugin: app.close() drains in-flight requests itself and then stops Apollo (onClose).
    // Cache-control would wrap every resolver for hints nobody reads (we set no cache headers).
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      limitsPlugin(limits),
      readPoolPlugin,
    ],
    // The server's own SIGTERM/SIGINT handler drains and closes; Apollo's raced it and left
    // app.close() hanging until an idle socket timed out (about 10 s).
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: limits.maxTokens },
    formatError: formatGraphQLError(app.log),
    includeStacktraceInErrorResponses: false,
  });
  await apollo.start();
  // The query text is bounded before anything parses it.
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.url !== '/graphql') return;
    const q =
      (req.body as { query?: unknown } | undefined)?.query ?? (req.query as { query?: unknown }).query;
    if (typeof q === 'string' && Buffer.byteLength(q) > limits.maxQueryBytes) {
      throw new AppError(
        'QUERY_TOO_COMPLEX',
        `The query text is ${Buffer.byteLength(q)} bytes; the limit is ${limits.maxQueryBytes}.`,
      );
    }
  });
  // Before /graphql, so that a browser opening /graphql is redirected to GraphiQL.
  registerGraphiQL(app);
  await app.register(fastifyApollo(apollo), { context: async (req) => req.ctx, path: '/graphql' });

  registerRest(app, schema);
  registerOpenApi(app);
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
  return app;
}
