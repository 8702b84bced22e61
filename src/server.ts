// First: V8 settings apply before any request code is compiled or any of its objects allocated.
import './v8-flags.js';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDatabase, doorbellRings } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { limitsFromEnv } from './graphql/limits.js';
import { loadTrustedDocuments } from './graphql/trusted-documents.js';
import { createRateLimitStore } from './http/rate-limit-store.js';
import { loggerOptions } from './logger.js';
import { WebhookDispatcher } from './modules/webhooks/index.js';
import { Metrics } from './observability/metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { startTracingFromEnv } from './observability/otel.js';
import { startRetention } from './retention.js';
import { hasDemoData, seedDemo } from './seed/demo.js';

/** Starts the gateway: database, migrations, demo data on an empty database, then listen. */
async function main() {
  const cfg = loadConfig();
  // Before anything runs a statement, so that every span has its parent (off unless OTEL_* asks).
  const stopTracing = await startTracingFromEnv();
  if (cfg.databaseListenUrl && !cfg.databaseUrl)
    throw new Error('DATABASE_LISTEN_URL needs DATABASE_URL too: PGlite, the default, notifies in-process');
  // On PGlite this takes the data folder's lock, held until database.close() (src/db/data-lock.ts).
  const database = await createDatabase({
    url: cfg.databaseUrl,
    listenUrl: cfg.databaseListenUrl,
    dataDir: cfg.dataDir,
    statementTimeoutMs: cfg.statementTimeoutMs,
    holder: 'server',
  });
  if (database.dataLock?.tookOver) process.stderr.write(`note: ${database.dataLock.tookOver}\n`);
  await migrateToLatest(database.db);
  if (cfg.databaseReadUrl && !cfg.databaseUrl)
    throw new Error('DATABASE_READ_URL needs DATABASE_URL (the primary) too');
  const readDatabase = cfg.databaseReadUrl
    ? await createDatabase({ url: cfg.databaseReadUrl, statementTimeoutMs: cfg.statementTimeoutMs })
    : undefined;

  let demo: Awaited<ReturnType<typeof seedDemo>> | undefined;
  // A later start of the demo database prints no keys (they are stored hashed), so it says how to
  // get new ones instead.
  let demoKeysLost = false;
  if (cfg.seedDemoOnEmpty) {
    const anyUser = await database.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (!anyUser) demo = await seedDemo(database.db);
    else demoKeysLost = await hasDemoData(database.db);
  }

  const log = pino(loggerOptions(cfg.logLevel));
  const store = cfg.rateLimit.perSecond > 0 ? createRateLimitStore(cfg.redisUrl, log) : undefined;
  const metrics = new Metrics();
  metrics.collectProcessMetrics();
  const app = await buildApp({
    metrics,
    readinessChecks:
      store?.kind === 'redis' && store.ping
        ? [{ name: 'redis', required: false, ping: (ms) => store.ping!(ms) }]
        : [],
    database,
    readDatabase,
    logger: log,
    bodyLimit: cfg.bodyLimit,
    requestTimeoutMs: cfg.requestTimeoutMs,
    exposeStatementCount: cfg.exposeStatementCount,
    graphqlEngines: cfg.graphqlEngines,
    subscriptions: cfg.subscriptions,
    graphqlLimits: limitsFromEnv(),
    admission: cfg.admission,
    largeAdmission: cfg.largeAdmission,
    rateLimit: store && { store, config: cfg.rateLimit },
    trustProxy: cfg.trustProxy,
    corsOrigins: cfg.corsOrigins,
    compression: cfg.compression,
    trustedDocuments: cfg.trustedDocumentsPath ? loadTrustedDocuments(cfg.trustedDocumentsPath) : undefined,
    webhooks: {
      allowPrivateTargets: cfg.webhooks.allowPrivateTargets,
      maxEndpointsPerOrg: cfg.webhooks.maxEndpointsPerOrg,
    },
  });
  // Behind a transaction-mode pooler the doorbell's LISTEN hears nothing: say so, and how to fix it.
  if (database.backend === 'postgres' && !(await doorbellRings(database)))
    log.warn(
      'LISTEN heard no NOTIFY within 2 s: DATABASE_URL is likely a pooler in transaction mode (PgBouncer). Live updates and webhooks fall back to polling once a second; set DATABASE_LISTEN_URL to the primary itself (docs/scaling.md, "PgBouncer").',
    );
  const retention = startRetention(database.db, cfg.changeLogRetentionDays, log);
  const webhooks = cfg.webhooks.deliver ? new WebhookDispatcher(database.db, cfg.webhooks, log) : undefined;
  await webhooks?.start(database.listen);
  // The address actually bound (PORT=0 picks a free port).
  const base = await app.listen({ port: cfg.port, host: cfg.host });
  // A refused sdg names the server's address, and which of its work the API does.
  database.dataLock?.serving(base);
  const metricsServer = cfg.metrics && (await startMetricsServer(metrics, cfg.metrics));
  const lines = [
    '',
    `Solar Data Gateway on ${database.describe}${readDatabase ? ` (reads: ${readDatabase.describe})` : ''}`,
    `  GraphQL   ${base}/graphql`,
    `  GraphiQL  ${base}/graphiql`,
    `  REST v1   ${base}/organizations/v1  (and the other v1 paths)`,
    `  OpenAPI   ${base}/openapi.json   docs: ${base}/docs`,
    `  Health    ${base}/healthz  ${base}/readyz`,
    ...(metricsServer
      ? [`  Metrics   ${metricsServer.url}${cfg.metrics?.token ? '  (bearer token)' : ''}`]
      : []),
    ...(stopTracing ? ['  Traces    on (OTEL_* environment)'] : []),
  ];
  if (demo) {
    lines.push('', 'Demo data created. API keys (shown only this once; `sdg key create` makes more):');
    for (const [h, u] of Object.entries(demo.users)) lines.push(`  ${h.padEnd(6)} ${u.apiKey}`);
    lines.push('', `Try: curl -H 'X-API-Key: ${demo.users.alice.apiKey}' ${base}/organizations/v1`);
  } else if (demoKeysLost)
    lines.push(
      '',
      'Demo data: its keys were printed on the first start. Lost them? Stop the server, then run',
      '`npx sdg seed --demo --keys` for a fresh key per demo user.',
    );
  process.stdout.write(`${lines.join('\n')}\n\n`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    try {
      retention.stop();
      await app.close();
      await webhooks?.stop();
      await metricsServer?.close();
      await stopTracing?.();
      await store?.close?.();
      await readDatabase?.close();
      await database.close();
    } finally {
      clearTimeout(force);
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
