import { DEFAULT_SOCKET_LIMITS, type SocketLimits } from './graphql/socket-limits.js';
import { DEFAULT_ADMISSION, DEFAULT_LARGE_ADMISSION } from './http/admission.js';
import { type CompressionConfig, DEFAULT_COMPRESSION } from './http/compression.js';
import { type CorsOrigins, parseCorsOrigins } from './http/cors.js';
import { DEFAULT_ADDRESS_LIMIT } from './http/rate-limit.js';
import { DEFAULT_HUB_LIMITS, type HubLimits } from './modules/changes/index.js';
import { DEFAULT_WEBHOOKS, type WebhookSettings } from './modules/webhooks/index.js';

/** Runtime configuration, from the environment. Every knob has a safe default. */
export interface Config {
  port: number;
  host: string;
  databaseUrl?: string;
  /** Optional read replica; read-only requests go there. */
  databaseReadUrl?: string;
  /**
   * Where LISTEN connects (DATABASE_LISTEN_URL), when not DATABASE_URL: the server itself, when
   * DATABASE_URL is a pooler in transaction mode, which keeps no session for a LISTEN.
   */
  databaseListenUrl?: string;
  /** PGlite data folder when DATABASE_URL is unset. */
  dataDir: string;
  logLevel: string;
  /** Largest request body, bytes. */
  bodyLimit: number;
  /** Postgres statement_timeout, ms. */
  statementTimeoutMs: number;
  /** Serve the demo data on an empty embedded database. */
  seedDemoOnEmpty: boolean;
  /** Change-log entries older than this many days are deleted (hourly); 0 keeps them forever. */
  changeLogRetentionDays: number;
  /** Send `x-sql-statements` on every response (benchmarks). */
  exposeStatementCount: boolean;
  /** GRAPHQL_PLANS=0 turns off the planned answers of the hot read shape: `graphqlEngines.plan`. */
  graphqlPlans: boolean;
  /**
   * The engines that may answer an operation (src/graphql/executor.ts): the plan (GRAPHQL_PLANS),
   * graphql-jit (GRAPHQL_JIT=0: never compile) and graphql-js (GRAPHQL_JS=0: compile every
   * operation at its first run, and refuse one that cannot be compiled). Each is on unless set to 0.
   */
  graphqlEngines: { plan: boolean; jit: boolean; js: boolean };
  /**
   * Token bucket per API key, and per client address for requests without a known-valid key;
   * perSecond 0 turns rate limiting off.
   */
  rateLimit: { perSecond: number; burst: number; address: { perSecond: number; burst: number } };
  /** Proxies whose X-Forwarded-For is believed (addresses, CIDRs or a hop count); none by default. */
  trustProxy?: string | number;
  /** Shares the rate limit across replicas when set. */
  redisUrl?: string;
  /** Time allowed to receive a whole request, ms. */
  requestTimeoutMs: number;
  /** Heavy requests (pages over 1000 items) running at once, and how long others may wait, ms. */
  admission: { slots: number; maxWaitMs: number };
  /** Large GraphQL operations at once (LARGE_REQUEST_SLOTS; default two per core) and their wait (HEAVY_REQUEST_WAIT_MS). */
  largeAdmission: { slots: number; maxWaitMs: number };
  /** Prometheus /metrics on a listener of its own; off unless METRICS_PORT is set. */
  metrics?: { port: number; host: string; token?: string };
  /** Browser origins allowed to call the gateway (CORS_ORIGINS): `*` or a list. */
  corsOrigins: CorsOrigins;
  /** Response compression levels (COMPRESSION_BROTLI_QUALITY, COMPRESSION_GZIP_LEVEL); false when COMPRESSION=0. */
  compression: CompressionConfig | false;
  /** GRAPHQL_TRUSTED_DOCUMENTS: a persisted-documents manifest; /graphql then runs only its documents. */
  trustedDocumentsPath?: string;
  /** Live subscriptions (SUBSCRIPTIONS_*) and WebSockets (SOCKET_*): see SECURITY.md's limits. */
  subscriptions: HubLimits & SocketLimits;
  /** Webhook delivery (WEBHOOK_*); `deliver` false (WEBHOOK_DELIVERY=0) keeps this process from sending. */
  webhooks: WebhookSettings & { deliver: boolean };
}

type Env = Record<string, string | undefined>;

/** A non-negative number from the environment; `fallback` when unset. */
function nonNegative(env: Env, name: string, fallback: number, integer: boolean): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!(integer ? Number.isInteger(n) : Number.isFinite(n)) || n < 0)
    throw new Error(`${name} must be a non-negative ${integer ? 'integer' : 'number'}, got "${v}"`);
  return n;
}
const int = (env: Env, name: string, fallback: number) => nonNegative(env, name, fallback, true);
/** Fractions allowed (a rate such as 0.5 per second). */
const num = (env: Env, name: string, fallback: number) => nonNegative(env, name, fallback, false);

/**
 * TRUST_PROXY: the proxies in front of the gateway, as addresses or CIDRs (comma-separated, or
 * `loopback`), or as a number of hops. Only X-Forwarded-For entries added by them are believed;
 * trusting everyone would let any client pick the address its rate limit is kept by.
 */
function trustProxy(v: string | undefined): string | number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v);
  if (/^(true|\*|all)$/i.test(v.trim()))
    throw new Error(
      'TRUST_PROXY must name the proxies (addresses or CIDRs, comma-separated, or loopback) or a hop count; trusting every sender would let any client choose its own address',
    );
  return v;
}

function compressionLevels(env: Env): CompressionConfig {
  const brotliQuality = int(env, 'COMPRESSION_BROTLI_QUALITY', DEFAULT_COMPRESSION.brotliQuality);
  const gzipLevel = int(env, 'COMPRESSION_GZIP_LEVEL', DEFAULT_COMPRESSION.gzipLevel);
  if (brotliQuality > 11) throw new Error('COMPRESSION_BROTLI_QUALITY must be from 0 to 11');
  if (gzipLevel < 1 || gzipLevel > 9) throw new Error('COMPRESSION_GZIP_LEVEL must be from 1 to 9');
  const syncMaxBytes = int(env, 'COMPRESSION_SYNC_MAX_BYTES', DEFAULT_COMPRESSION.syncMaxBytes);
  return { brotliQuality, gzipLevel, syncMaxBytes };
}

/** graphql-jit and graphql-js both off would leave mutations with nothing to run them (the plan only reads). */
function graphqlEngines(env: Env): Config['graphqlEngines'] {
  const engines = {
    plan: env.GRAPHQL_PLANS !== '0',
    jit: env.GRAPHQL_JIT !== '0',
    js: env.GRAPHQL_JS !== '0',
  };
  if (!engines.jit && !engines.js)
    throw new Error(
      'graphql-jit and graphql-js are both off (GRAPHQL_JIT=0, GRAPHQL_JS=0): no engine is left to run mutations (the plan answers reads only); turn one of them back on',
    );
  return engines;
}

export function loadConfig(env: Env = process.env): Config {
  const engines = graphqlEngines(env);
  return {
    port: int(env, 'PORT', 4000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    databaseReadUrl: env.DATABASE_READ_URL || undefined,
    databaseListenUrl: env.DATABASE_LISTEN_URL || undefined,
    dataDir: env.SDG_DATA_DIR || './.data/pglite',
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimit: int(env, 'BODY_LIMIT_BYTES', 1_048_576),
    statementTimeoutMs: int(env, 'STATEMENT_TIMEOUT_MS', 10_000),
    seedDemoOnEmpty: env.SDG_SEED_DEMO !== '0',
    changeLogRetentionDays: int(env, 'CHANGE_LOG_RETENTION_DAYS', 90),
    exposeStatementCount: env.SDG_EXPOSE_SQL_COUNT === '1',
    graphqlPlans: engines.plan,
    graphqlEngines: engines,
    rateLimit: {
      perSecond: num(env, 'RATE_LIMIT_PER_SECOND', 50),
      burst: int(env, 'RATE_LIMIT_BURST', 200),
      address: {
        perSecond: num(env, 'RATE_LIMIT_ADDRESS_PER_SECOND', DEFAULT_ADDRESS_LIMIT.perSecond),
        burst: int(env, 'RATE_LIMIT_ADDRESS_BURST', DEFAULT_ADDRESS_LIMIT.burst),
      },
    },
    trustProxy: trustProxy(env.TRUST_PROXY),
    redisUrl: env.REDIS_URL || undefined,
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000),
    admission: {
      slots: int(env, 'HEAVY_REQUEST_SLOTS', DEFAULT_ADMISSION.slots),
      maxWaitMs: int(env, 'HEAVY_REQUEST_WAIT_MS', DEFAULT_ADMISSION.maxWaitMs),
    },
    largeAdmission: {
      slots: int(env, 'LARGE_REQUEST_SLOTS', DEFAULT_LARGE_ADMISSION.slots),
      maxWaitMs: int(env, 'HEAVY_REQUEST_WAIT_MS', DEFAULT_LARGE_ADMISSION.maxWaitMs),
    },
    metrics: env.METRICS_PORT
      ? {
          port: int(env, 'METRICS_PORT', 0),
          host: env.METRICS_HOST || '127.0.0.1',
          token: env.METRICS_TOKEN || undefined,
        }
      : undefined,
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
    compression: env.COMPRESSION === '0' ? false : compressionLevels(env),
    trustedDocumentsPath: env.GRAPHQL_TRUSTED_DOCUMENTS || undefined,
    subscriptions: {
      perKey: Math.max(1, int(env, 'SUBSCRIPTIONS_PER_KEY', DEFAULT_HUB_LIMITS.perKey)),
      perProcess: Math.max(1, int(env, 'SUBSCRIPTIONS_PER_PROCESS', DEFAULT_HUB_LIMITS.perProcess)),
      perOrg: Math.max(1, int(env, 'SUBSCRIPTIONS_PER_ORG', DEFAULT_HUB_LIMITS.perOrg)),
      costPerOrg: Math.max(1, int(env, 'SUBSCRIPTIONS_COST_PER_ORG', DEFAULT_HUB_LIMITS.costPerOrg)),
      eventsPerOrg: Math.max(1, int(env, 'SUBSCRIPTIONS_EVENTS_PER_ORG', DEFAULT_HUB_LIMITS.eventsPerOrg)),
      queuePerSocket: Math.max(
        1,
        int(env, 'SUBSCRIPTIONS_QUEUE_PER_SOCKET', DEFAULT_HUB_LIMITS.queuePerSocket),
      ),
      inFlightPerSocket: Math.max(
        1,
        int(env, 'SOCKET_OPERATIONS_IN_FLIGHT', DEFAULT_SOCKET_LIMITS.inFlightPerSocket),
      ),
      queuedBytesPerSocket: Math.max(
        65_536,
        int(env, 'SOCKET_QUEUED_BYTES', DEFAULT_SOCKET_LIMITS.queuedBytesPerSocket),
      ),
      recheckMs: Math.max(100, int(env, 'SOCKET_RECHECK_MS', DEFAULT_SOCKET_LIMITS.recheckMs)),
    },
    webhooks: {
      deliver: env.WEBHOOK_DELIVERY !== '0',
      allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS === '1',
      maxFailures: Math.max(1, int(env, 'WEBHOOK_MAX_FAILURES', DEFAULT_WEBHOOKS.maxFailures)),
      timeoutMs: Math.max(1, int(env, 'WEBHOOK_TIMEOUT_MS', DEFAULT_WEBHOOKS.timeoutMs)),
      retryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', DEFAULT_WEBHOOKS.retryBaseMs),
      retryMaxMs: int(env, 'WEBHOOK_RETRY_MAX_MS', DEFAULT_WEBHOOKS.retryMaxMs),
      pollMs: Math.max(10, int(env, 'WEBHOOK_POLL_MS', DEFAULT_WEBHOOKS.pollMs)),
      concurrency: Math.max(1, int(env, 'WEBHOOK_CONCURRENCY', DEFAULT_WEBHOOKS.concurrency)),
      perOrg: Math.max(1, int(env, 'WEBHOOK_ORG_CONCURRENCY', DEFAULT_WEBHOOKS.perOrg)),
      perEndpoint: Math.max(1, int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', DEFAULT_WEBHOOKS.perEndpoint)),
      maxEndpointsPerOrg: Math.max(
        1,
        int(env, 'WEBHOOK_MAX_ENDPOINTS_PER_ORG', DEFAULT_WEBHOOKS.maxEndpointsPerOrg),
      ),
    },
  };
}
