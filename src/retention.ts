import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from './db/types.js';
import { pruneOlderThan } from './modules/changes/index.js';
import { pruneIdempotencyKeys } from './modules/sync/index.js';
import { pruneDelivered } from './modules/webhooks/index.js';

const HOUR_MS = 3_600_000;

/**
 * Deletes change-log entries and delivered webhook deliveries older than `days`, a minute after start and then hourly; `days` 0
 * keeps them all. Bulk writes' idempotency keys older than 24 hours go at every run. Every replica runs it; the deletes are idempotent, so replicas need no
 * coordination. A failed run is logged and retried at the next.
 */
export function startRetention(db: Kysely<DB>, days: number, log: Pick<Logger, 'info' | 'warn'>) {
  const run = async () => {
    try {
      // Idempotency keys answer for 24 hours whatever `days` says; older ones are only dead weight.
      const k = await pruneIdempotencyKeys(db);
      if (k) log.info({ deleted: k }, 'sync: idempotency keys older than 24 hours deleted');
      if (days <= 0) return;
      const n = await pruneOlderThan(db, days);
      if (n) log.info({ deleted: n, days }, 'change log: old entries deleted');
      // The webhook delivery log follows the same retention (pending deliveries are kept).
      const d = await pruneDelivered(db, days);
      if (d) log.info({ deleted: d, days }, 'webhooks: old delivered deliveries deleted');
    } catch (err) {
      log.warn({ err }, 'change log: retention run failed; retrying in an hour');
    }
  };
  const first = setTimeout(run, 60_000).unref();
  const every = setInterval(run, HOUR_MS).unref();
  return {
    stop: () => {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
