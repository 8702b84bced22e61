import type { FastifyInstance } from 'fastify';
import { AppError, RETRY_AFTER_SECONDS } from '../errors.js';

/**
 * Admission control for heavy requests: REST pages of more than HEAVY_PAGE items, and GraphQL
 * operations whose cost (the nodes they could return) is over HEAVY_GRAPHQL_COST. A process runs
 * at most `slots` of them at once; the others wait their turn, first come first served.
 *
 * Why: a 5000-item page holds its rows, its GraphQL result and its JSON text in memory until it is
 * sent, and keeps the one JavaScript thread busy for a long time. With 64 of them at once, the
 * process grew past 600 MB, and requests queued behind them timed out waiting for a database
 * connection (503). Taking turns finishes the same work in about the same total time, with memory
 * bounded by `slots` pages. Small requests never wait here.
 */
export interface AdmissionConfig {
  /** Heavy requests that may run at once in one process; 0 turns admission control off. */
  slots: number;
  /** How long a heavy request may wait for a slot before it gets 503 OVERLOADED. */
  maxWaitMs: number;
}

export const DEFAULT_ADMISSION: AdmissionConfig = { slots: 1, maxWaitMs: 20_000 };
export const HEAVY_PAGE = 1000;
export const HEAVY_GRAPHQL_COST = 20_000;

export const overloaded = () =>
  new AppError(
    'OVERLOADED',
    `The server is busy with other large requests. Retry in ${RETRY_AFTER_SECONDS.OVERLOADED} seconds, or ask for smaller pages (limit ≤ ${HEAVY_PAGE} never waits).`,
  );

/** A counting semaphore with a FIFO queue, a wait limit, and cancellation of waiters. */
export class Admission {
  private running = 0;
  private readonly waiting: { grant: () => void }[] = [];

  constructor(private readonly config: AdmissionConfig) {}

  get enabled(): boolean {
    return this.config.slots > 0;
  }

  /** Heavy requests running and waiting now (for tests and logs). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Waits for a slot and resolves with its release function (safe to call more than once).
   * Rejects with OVERLOADED after `maxWaitMs`, and with the signal's reason when it aborts first.
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (!this.enabled) return () => {};
    if (this.running < this.config.slots) {
      this.running++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const leave = (err: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(err);
      };
      const onAbort = () => leave(signal?.reason ?? new Error('aborted'));
      const entry = {
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const timer = setTimeout(() => leave(overloaded()), this.config.maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
    // The slot was handed over by a release: `running` already counts it.
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.running--;
    };
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Releases this request's heavy-request slot, if it holds one. */
    releaseSlot?: () => void;
  }
}

/**
 * Gives every authenticated request `ctx.admit()`, which the REST adapter and the GraphQL limits
 * plugin call for heavy work. The slot is held until the response has gone (or the client left).
 */
export function installAdmission(
  app: FastifyInstance,
  admission: Admission,
  /** Told how long each heavy request waited for its slot, admitted or not (metrics). */
  onWaited?: (seconds: number) => void,
): void {
  if (!admission.enabled) return;
  app.addHook('preHandler', async (req, reply) => {
    if (!req.ctx) return;
    req.ctx.admit = async () => {
      if (req.releaseSlot) return;
      const gone = new AbortController();
      const onClose = () => gone.abort(new Error('client closed the connection'));
      reply.raw.once('close', onClose);
      const started = performance.now();
      try {
        req.releaseSlot = await admission.acquire(gone.signal);
      } finally {
        reply.raw.off('close', onClose);
        onWaited?.((performance.now() - started) / 1000);
      }
      if (reply.raw.closed) req.releaseSlot();
      else reply.raw.once('close', req.releaseSlot);
    };
  });
  // Also here: a response that never emits 'close' (inject()) still gives its slot back.
  app.addHook('onResponse', async (req) => {
    req.releaseSlot?.();
  });
}
