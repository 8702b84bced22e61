import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { MemoryRateLimitStore } from '../src/http/rate-limit-store.js';
import { Metrics } from '../src/observability/metrics.js';
import { startMetricsServer } from '../src/observability/metrics-server.js';
import { seededDatabase } from './helpers/database.js';
import { client } from './helpers/http.js';
import { logSink } from './helpers/logs.js';

const seeded = seededDatabase();

/** The value of one sample of a scrape, found by its name and exact label set. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '')
      .split(/,(?=\w+=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (have === want) return Number(m[3]);
  }
  return undefined;
}

const PORTFOLIO_QUERY = `query Portfolios { organizations { portfolios { name } } }`;

describe('metrics on their own port', () => {
  const metrics = new Metrics({ maxOperationNames: 3 });
  let app: Awaited<ReturnType<typeof buildApp>>;
  let server: Awaited<ReturnType<typeof startMetricsServer>>;
  const scrape = async () => {
    const r = await fetch(server.url, { headers: { authorization: 'Bearer s3cret-token' } });
    expect(r.status).toBe(200);
    return r.text();
  };

  beforeAll(async () => {
    app = await buildApp({ database: seeded.database, metrics });
    server = await startMetricsServer(metrics, { port: 0, token: 's3cret-token' });
  });
  afterAll(async () => {
    await server?.close();
    await app?.close();
  });

  test('the API port has no /metrics, and the metrics port wants the bearer token', async () => {
    expect((await client(app, seeded.demo.users.alice.apiKey).get('/metrics')).status).toBe(404);
    expect((await fetch(server.url)).status).toBe(401);
    expect((await fetch(server.url, { headers: { authorization: 'Bearer wrong-token!' } })).status).toBe(401);
    expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  });

  test('requests by transport, operation and status class; latency; SQL statements; errors by code', async () => {
    const api = client(app, seeded.demo.users.alice.apiKey);
    const { A } = seeded.demo.orgs;
    expect((await api.get('/organizations/v1')).status).toBe(200);
    expect(
      (await api.get('/projects/v1', { orgId: A.id, portfolioId: A.portfolios.A1, limit: 5 })).status,
    ).toBe(200);
    expect(
      (await api.get('/projects/v1', { orgId: A.id, portfolioId: A.portfolios.A1, limit: 0 })).status,
    ).toBe(400);
    expect((await client(app).get('/organizations/v1')).status).toBe(401);
    expect((await api.gql(PORTFOLIO_QUERY)).body.errors).toBeUndefined();
    expect((await api.gql('{ nope }')).body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const text = await scrape();
    const req = (transport: string, operation: string, status_class: string) =>
      sample(text, 'sdg_http_requests_total', { transport, operation, status_class });
    expect(req('rest', 'listOrganizations', '2xx')).toBe(1);
    expect(req('rest', 'listOrganizations', '4xx')).toBe(1);
    expect(req('rest', 'listProjects', '2xx')).toBe(1);
    expect(req('rest', 'listProjects', '4xx')).toBe(1);
    expect(req('graphql', 'Portfolios', '2xx')).toBe(1);
    // Validation failed before the executor: no operation is known.
    expect(req('graphql', '(none)', '4xx')).toBe(1);
    expect(
      sample(text, 'sdg_http_request_duration_seconds_count', {
        transport: 'rest',
        operation: 'listProjects',
      }),
    ).toBe(2);
    expect(
      sample(text, 'sdg_http_request_duration_seconds_bucket', {
        transport: 'rest',
        operation: 'listProjects',
        le: '+Inf',
      }),
    ).toBe(2);
    // REST: 4 answered requests; the first page ran the key lookup and its page statements.
    expect(sample(text, 'sdg_sql_statements_per_request_count', { transport: 'rest' })).toBe(4);
    expect(sample(text, 'sdg_sql_statements_per_request_sum', { transport: 'rest' })).toBeGreaterThanOrEqual(
      4,
    );
    expect(sample(text, 'sdg_sql_statements_per_request_bucket', { transport: 'rest', le: '0' })).toBe(1);
    expect(sample(text, 'sdg_graphql_errors_total', { code: 'GRAPHQL_VALIDATION_FAILED' })).toBe(1);
    // By the engine that answered: the page by its plan, the organizations (a REST route, compiled at
    // start-up) by graphql-jit, a first /graphql run by graphql-js; refused requests ran none.
    const ran = (engine: string) => sample(text, 'sdg_graphql_operations_total', { engine, type: 'query' });
    expect([ran('plan'), ran('jit'), ran('js')]).toEqual([1, 1, 1]);
    expect(sample(text, 'sdg_db_pool_max', { pool: 'primary' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'sdg_db_pool_connections', { pool: 'primary', state: 'busy' })).toBe(0);
    expect(sample(text, 'sdg_db_pool_waiting', { pool: 'primary' })).toBe(0);
    expect(sample(text, 'sdg_admission_queue_length', { tier: 'heavy' })).toBe(0);
    expect(sample(text, 'sdg_admission_queue_length', { tier: 'large' })).toBe(0);
    expect(sample(text, 'sdg_cache_requests_total', { cache: 'org', result: 'hit' })).toBeGreaterThan(0);
    expect(sample(text, 'sdg_cache_requests_total', { cache: 'compiled_operation', result: 'miss' })).toBe(1);
  });

  test('the compiled-operation cache counts a hit when a document comes back', async () => {
    const api = client(app, seeded.demo.users.alice.apiKey);
    const before = sample(await scrape(), 'sdg_cache_requests_total', {
      cache: 'compiled_operation',
      result: 'hit',
    });
    await api.gql(PORTFOLIO_QUERY);
    await api.gql(PORTFOLIO_QUERY);
    const after = sample(await scrape(), 'sdg_cache_requests_total', {
      cache: 'compiled_operation',
      result: 'hit',
    });
    // The second run compiles it (a miss), the third runs compiled.
    expect(after! - before!).toBe(1);
  });

  test('operation names are a bounded set, shared fairly: one organization claims at most a tenth of the slots', async () => {
    const alice = client(app, seeded.demo.users.alice.apiKey);
    const nora = client(app, seeded.demo.users.nora.apiKey);
    // maxOperationNames 3 gives each organization one slot. Org A's went to Portfolios, so its
    // further names are other, while org B still claims one of its own.
    for (const name of ['Second', 'Third', 'Fourth'])
      expect((await alice.gql(`query ${name} { organizations { id } }`)).status).toBe(200);
    for (const name of ['Second', 'Fifth'])
      expect((await nora.gql(`query ${name} { organizations { id } }`)).status).toBe(200);
    const text = await scrape();
    const ops = new Set(
      [...text.matchAll(/^sdg_http_requests_total\{transport="graphql",operation="([^"]+)"/gm)].map(
        (m) => m[1],
      ),
    );
    expect([...ops].sort()).toEqual(['(none)', 'Portfolios', 'Second', 'other'].sort());
    expect(
      sample(text, 'sdg_http_requests_total', {
        transport: 'graphql',
        operation: 'other',
        status_class: '2xx',
      }),
    ).toBe(4);
    for (const name of ['Third', 'Fourth', 'Fifth']) expect(text).not.toContain(name);
  });
});

describe('limits in metrics and logs', () => {
  test('a rate-limit refusal is counted by scope and logged once at warn with its code', async () => {
    const sink = logSink();
    const metrics = new Metrics();
    const app = await buildApp({
      database: seeded.database,
      metrics,
      logger: sink.logger,
      rateLimit: {
        store: new MemoryRateLimitStore(),
        config: { perSecond: 0.001, burst: 1, address: { perSecond: 0.001, burst: 1 } },
      },
    });
    try {
      const anon = client(app);
      expect((await anon.get('/organizations/v1')).status).toBe(401);
      expect((await anon.get('/organizations/v1')).status).toBe(429);
      const text = await metrics.registry.metrics();
      expect(sample(text, 'sdg_rate_limit_refusals_total', { scope: 'address' })).toBe(1);
      expect(sample(text, 'sdg_limit_refusals_total', { code: 'RATE_LIMITED' })).toBe(1);
      const warns = sink.lines.filter((l) => l.level === 40);
      expect(warns).toHaveLength(1);
      expect(warns[0]).toMatchObject({ code: 'RATE_LIMITED', status: 429, operation: 'listOrganizations' });
    } finally {
      await app.close();
    }
  });

  test('a heavy and a large request record their waits for a slot, by tier', async () => {
    const metrics = new Metrics();
    const app = await buildApp({
      database: seeded.database,
      metrics,
      admission: { slots: 1, maxWaitMs: 5000 },
    });
    try {
      const { A } = seeded.demo.orgs;
      const api = client(app, seeded.demo.users.alice.apiKey);
      expect(
        (await api.get('/projects/v1', { orgId: A.id, portfolioId: A.portfolios.A1, limit: 2000 })).status,
      ).toBe(200);
      expect(
        (await api.get('/projects/v1', { orgId: A.id, portfolioId: A.portfolios.A1, limit: 20 })).status,
      ).toBe(200);
      // A large GraphQL operation (cost between 5,000 and 20,000) waits in the other tier.
      const large = await api.gql(
        `query ($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) {
          projects(first: 1000) { nodes { id contacts(first: 5) { nodes { id } } } } } } }`,
        { o: A.id, p: A.portfolios.A1 },
      );
      expect(large.status).toBe(200);
      const text = await metrics.registry.metrics();
      expect(sample(text, 'sdg_admission_wait_seconds_count', { tier: 'heavy' })).toBe(1);
      expect(sample(text, 'sdg_admission_wait_seconds_count', { tier: 'large' })).toBe(1);
      expect(sample(text, 'sdg_admission_running', { tier: 'heavy' })).toBe(0);
    } finally {
      await app.close();
    }
  });

  test('process metrics: event-loop lag, heap and GC', async () => {
    const metrics = new Metrics();
    metrics.collectProcessMetrics();
    const text = await metrics.registry.metrics();
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'process_cpu_seconds_total',
    ])
      expect(text).toContain(`# TYPE ${name}`);
    expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
  });
});

test('headers over 16 KB, refused by the HTTP parser before any request exists, are logged and counted too', async () => {
  const sink = logSink('warn');
  const metrics = new Metrics();
  const app = await buildApp({ database: seeded.database, metrics, logger: sink.logger });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    // A raw socket: one request, one answer (an HTTP client might retry on the closed connection).
    const { port } = app.server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      let got = '';
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`GET /organizations/v1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`),
      );
      socket.on('data', (d) => {
        got += d;
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(got));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(
      sample(await metrics.registry.metrics(), 'sdg_limit_refusals_total', { code: 'HEADERS_TOO_LARGE' }),
    ).toBe(1);
    expect(sink.lines.filter((l) => l.code === 'HEADERS_TOO_LARGE')).toHaveLength(1);
    expect(sink.lines[0]).toMatchObject({ level: 40, status: 431 });
  } finally {
    await app.close();
  }
});

test('with a read pool, each pool has its own series', async () => {
  const metrics = new Metrics();
  const app = await buildApp({ database: seeded.database, readDatabase: seeded.database, metrics });
  try {
    expect((await client(app, seeded.demo.users.alice.apiKey).get('/organizations/v1')).status).toBe(200);
    const text = await metrics.registry.metrics();
    for (const pool of ['primary', 'read']) {
      expect(sample(text, 'sdg_db_pool_max', { pool })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'sdg_db_pool_waiting', { pool })).toBe(0);
      expect(sample(text, 'sdg_db_pool_connections', { pool, state: 'busy' })).toBe(0);
    }
  } finally {
    await app.close();
  }
});
