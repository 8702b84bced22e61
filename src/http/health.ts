import type { FastifyInstance } from 'fastify';
import { AppError, RETRY_AFTER_SECONDS } from '../errors.js';

/**
 * How long /readyz waits for each dependency. A load balancer's probe should get an answer before its
 * own timeout, also when the path to Postgres drops packets without refusing them.
 */
export const READY_TIMEOUT_MS = 2_000;

/** One dependency /readyz asks. */
export interface ReadinessCheck {
  name: 'primary' | 'read' | 'redis';
  /** Down makes the process unready (503); otherwise it is reported as degraded (200). */
  required: boolean;
  ping(timeoutMs: number): Promise<void>;
}

type State = { status: 'up'; ms: number } | { status: 'down'; ms: number };

/** Rejects when `p` has not settled in `ms`, whatever the check itself does with its timeout. */
async function within(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `/healthz`: the process answers (no I/O). `/readyz`: every dependency in parallel, each within
 * `timeoutMs`: the primary, the read pool (DATABASE_READ_URL) and Redis (REDIS_URL) when configured.
 * A database down answers 503 `unavailable`; Redis down answers 200 `degraded` (the rate limit falls
 * back to this process's memory). The body names each dependency's state and time, never an error
 * text (it is public; the reason goes to the log). A change of a dependency's state is logged once.
 */
export function registerHealth(
  app: FastifyInstance,
  checks: ReadinessCheck[],
  backend: string,
  timeoutMs = READY_TIMEOUT_MS,
): void {
  const up = new Map(checks.map((c) => [c.name, true]));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (req, reply) => {
    const states = await Promise.all(
      checks.map(async (c): Promise<State> => {
        const started = performance.now();
        const ms = () => Math.round(performance.now() - started);
        try {
          await within(c.ping(timeoutMs), timeoutMs);
          if (!up.get(c.name)) req.log.info({ dependency: c.name }, 'ready again: the dependency answers');
          up.set(c.name, true);
          return { status: 'up', ms: ms() };
        } catch (err) {
          if (up.get(c.name))
            req.log.warn(
              { dependency: c.name, err: (err as Error).message },
              'not ready: a dependency does not answer',
            );
          up.set(c.name, false);
          return { status: 'down', ms: ms() };
        }
      }),
    );
    const failed = checks.filter((_, i) => states[i].status === 'down');
    const status = failed.some((c) => c.required) ? 'unavailable' : failed.length ? 'degraded' : 'ready';
    const body = {
      status,
      database: backend,
      checks: Object.fromEntries(checks.map((c, i) => [c.name, states[i]])),
    };
    if (status !== 'unavailable') return body;
    reply.header('Retry-After', String(RETRY_AFTER_SECONDS.UNAVAILABLE));
    return reply.status(503).send(body);
  });
}

/** The answer to GET /metrics on the API port, the same whether a metrics listener runs or not. */
export const METRICS_ELSEWHERE =
  'Metrics are not served on the API port. Set METRICS_PORT (unset by default, which turns metrics off) to serve them on a listener of their own, at http://METRICS_HOST:METRICS_PORT/metrics (METRICS_HOST defaults to 127.0.0.1); see docs/observability.md.';

/**
 * A Prometheus scrape pointed at the API port hears where the metrics are, instead of a bare 404 or
 * a 401 asking for an API key. Public, and it says nothing of this process's own settings (whether a
 * metrics listener runs, on which port): only the variables and their defaults.
 */
export function registerMetricsHint(app: FastifyInstance): void {
  app.get('/metrics', async () => {
    throw new AppError('NOT_FOUND', METRICS_ELSEWHERE);
  });
}
