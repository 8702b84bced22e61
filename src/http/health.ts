import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { RETRY_AFTER_SECONDS } from '../errors.js';

/**
 * How long /readyz waits for the database. A load balancer's probe should get an answer before its
 * own timeout, also when the path to Postgres drops packets without refusing them.
 */
export const READY_TIMEOUT_MS = 2_000;

/**
 * `/healthz`: the process answers (no I/O). `/readyz`: a pooled connection runs `select 1` within
 * READY_TIMEOUT_MS, else 503. A change of readiness is logged once, not on every probe.
 */
export function registerHealth(app: FastifyInstance, database: Database, timeoutMs = READY_TIMEOUT_MS): void {
  let ready = true;
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (req, reply) => {
    try {
      await database.ping(timeoutMs);
      if (!ready) req.log.info('ready again: the database answers');
      ready = true;
      return { status: 'ready', database: database.backend };
    } catch (err) {
      if (ready) req.log.warn({ err: (err as Error).message }, 'not ready: the database does not answer');
      ready = false;
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS.UNAVAILABLE));
      return reply.status(503).send({ status: 'unavailable', database: database.backend });
    }
  });
}
