import type { OperationTypeNode } from 'graphql';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { AdmissionTier } from '../http/admission.js';
import { BoundedNames } from './names.js';

export type Transport = 'rest' | 'graphql' | 'ws' | 'other';

/** What answered a GraphQL operation: its plan (graphql/plan), graphql-jit, or graphql-js. */
export type Engine = 'plan' | 'jit' | 'js';

/** A pg pool's state now: connections open, idle, the clients waiting for one, and its size. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface CacheStats {
  hits: number;
  misses: number;
}

/** Where the gauges and cache counters read from at scrape time (nothing is sampled in between). */
export interface MetricSources {
  pools?: { primary?: () => PoolStats | undefined; read?: () => PoolStats | undefined };
  admission?: () => Record<AdmissionTier, { running: number; waiting: number }>;
  caches?: { org?: () => CacheStats; compiledOperation?: () => CacheStats };
}

/** Both tiers at rest, for an app that reports no admission. */
const IDLE: Record<AdmissionTier, { running: number; waiting: number }> = {
  heavy: { running: 0, waiting: 0 },
  large: { running: 0, waiting: 0 },
};

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/**
 * The gateway's Prometheus metrics, in a registry of its own (tests run several apps in one
 * process). Every label comes from a bounded set: transports, status classes, route operation ids
 * (a fixed table), GraphQL operation names through BoundedNames, pool names, error codes (the
 * closed table of src/errors.ts). No ids, keys or org names.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly operations: BoundedNames;
  private sources: MetricSources = {};

  readonly requests = new Counter({
    name: 'sdg_http_requests_total',
    help: 'HTTP requests answered, by transport, operation (REST route id or GraphQL operation name) and status class.',
    labelNames: ['transport', 'operation', 'status_class'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'sdg_http_request_duration_seconds',
    help: 'Time from receiving a request to having sent its response, by transport and operation.',
    labelNames: ['transport', 'operation'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly statements = new Histogram({
    name: 'sdg_sql_statements_per_request',
    help: 'SQL statements one request ran (API key lookup included), by transport.',
    labelNames: ['transport'] as const,
    buckets: [0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100],
    registers: [this.registry],
  });
  readonly admissionWait = new Histogram({
    name: 'sdg_admission_wait_seconds',
    help: 'How long heavy and large requests waited for a slot of their tier (admitted or refused).',
    labelNames: ['tier'] as const,
    buckets: [0.001, 0.01, 0.1, 0.5, 1, 2.5, 5, 10, 20, 30],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'sdg_rate_limit_refusals_total',
    help: 'Requests refused with 429 RATE_LIMITED, by bucket: key (an authenticated key) or address.',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: 'sdg_limit_refusals_total',
    help: 'Requests refused by a limit, by code (RATE_LIMITED, OVERLOADED, QUERY_TOO_COMPLEX, PAYLOAD_TOO_LARGE, HEADERS_TOO_LARGE, REQUEST_TIMEOUT).',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly planFailures = new Counter({
    name: 'sdg_graphql_plan_failures_total',
    help: 'Planned reads whose plan failed with an unexpected error (a fault of the plan); the executor answered them. The access log line says why (planError).',
    registers: [this.registry],
  });
  readonly graphqlOperations = new Counter({
    name: 'sdg_graphql_operations_total',
    help: 'Operations run (REST routes, /graphql and any other caller of the executor), by the engine that answered (plan, jit, js) and operation type. Refused before an engine ran: not counted.',
    labelNames: ['engine', 'type'] as const,
    registers: [this.registry],
  });
  readonly graphqlErrors = new Counter({
    name: 'sdg_graphql_errors_total',
    help: 'Errors in /graphql responses, by code from the closed error table.',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  constructor(opts: { maxOperationNames?: number } = {}) {
    this.operations = new BoundedNames(opts.maxOperationNames ?? 100);
    const self = this;
    new Gauge({
      name: 'sdg_db_pool_connections',
      help: 'Connections of each pg pool (primary, read), by state: busy (checked out) or idle.',
      labelNames: ['pool', 'state'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [pool, stats] of self.poolStats()) {
          this.set({ pool, state: 'busy' }, stats.total - stats.idle);
          this.set({ pool, state: 'idle' }, stats.idle);
        }
      },
    });
    new Gauge({
      name: 'sdg_db_pool_waiting',
      help: 'Requests waiting for a connection of each pg pool.',
      labelNames: ['pool'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [pool, stats] of self.poolStats()) this.set({ pool }, stats.waiting);
      },
    });
    new Gauge({
      name: 'sdg_db_pool_max',
      help: 'The size limit of each pg pool.',
      labelNames: ['pool'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [pool, stats] of self.poolStats()) this.set({ pool }, stats.max);
      },
    });
    new Gauge({
      name: 'sdg_admission_queue_length',
      help: 'Requests waiting for a slot, by admission tier (heavy, large).',
      labelNames: ['tier'] as const,
      registers: [this.registry],
      collect() {
        for (const [tier, load] of Object.entries(self.sources.admission?.() ?? IDLE))
          this.set({ tier }, load.waiting);
      },
    });
    new Gauge({
      name: 'sdg_admission_running',
      help: 'Requests holding a slot, by admission tier (heavy, large).',
      labelNames: ['tier'] as const,
      registers: [this.registry],
      collect() {
        for (const [tier, load] of Object.entries(self.sources.admission?.() ?? IDLE))
          this.set({ tier }, load.running);
      },
    });
    new Counter({
      name: 'sdg_cache_requests_total',
      help: 'Lookups in the per-org cache (org) and the compiled-operation cache of /graphql, by result.',
      labelNames: ['cache', 'result'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        const caches = self.sources.caches ?? {};
        for (const [cache, read] of [
          ['org', caches.org],
          ['compiled_operation', caches.compiledOperation],
        ] as const) {
          const s = read?.() ?? { hits: 0, misses: 0 };
          this.inc({ cache, result: 'hit' }, s.hits);
          this.inc({ cache, result: 'miss' }, s.misses);
        }
      },
    });
  }

  /** Where gauges read from; the app calls it once it has built its pools, admission and caches. */
  watch(sources: MetricSources): void {
    this.sources = { ...this.sources, ...sources };
  }

  /** The standard Node metrics (event-loop lag, heap, GC, CPU, handles): once per process (server.ts). */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /** One answered request. */
  observeRequest(r: {
    transport: Transport;
    operation: string;
    status: number;
    seconds: number;
    statements: number;
  }): void {
    this.requests.inc({
      transport: r.transport,
      operation: r.operation,
      status_class: statusClass(r.status),
    });
    this.duration.observe({ transport: r.transport, operation: r.operation }, r.seconds);
    if (r.transport !== 'other') this.statements.observe({ transport: r.transport }, r.statements);
  }

  /** One operation, by the engine that answered it. */
  observeOperation(engine: Engine, type: OperationTypeNode): void {
    this.graphqlOperations.inc({ engine, type });
  }

  private *poolStats(): Generator<[string, PoolStats]> {
    for (const [pool, read] of Object.entries(this.sources.pools ?? {})) {
      const stats = read?.();
      if (stats) yield [pool, stats];
    }
  }
}
