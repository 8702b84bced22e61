import { availableParallelism } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, RETRY_AFTER_SECONDS } from '../errors.js';

/**
 * Admission control for heavy requests: REST pages of more than HEAVY_PAGE items, and GraphQL
 * operations whose cost (the nodes they could return) is over HEAVY_GRAPHQL_COST. A process runs
 * at most `slots` of them at once; the others wait their turn, first come first served.
 *
 * Why: a 5000-item page holds its rows, its GraphQL result and its JSON text in memory until it is
 * sent, and keeps the one JavaScript thread busy for a long time. Many of them at once only grew
 * the process, and requests queued behind them timed out waiting for a database connection
 * (503). Taking turns finishes the same work in about the same total time, with memory
 * bounded by `slots` pages. Small requests never wait here.
 *
 * A second, wider tier takes large GraphQL operations (cost over LARGE_GRAPHQL_COST, up to the heavy
 * cost): a front-end's nested read of 100 projects with their contacts and parcels is about 6,000
 * nodes and builds megabytes of objects. Many of them at once took the process past its memory
 * bound; two per core at a time kept it under, at the same throughput
 * (docs/decisions.md#large-graphql-operations-take-turns-too-a-few-per-core). Such a query still
 * runs beside others, so ordinary traffic is not serialized.
 */
export interface AdmissionConfig {
  /** Heavy requests that may run at once in one process; 0 turns admission control off. */
  slots: number;
  /** How long a heavy request may wait for a slot before it gets 503 OVERLOADED. */
  maxWaitMs: number;
}

export const DEFAULT_ADMISSION: AdmissionConfig = { slots: 1, maxWaitMs: 20_000 };
export const DEFAULT_LARGE_ADMISSION: AdmissionConfig = {
  slots: 2 * availableParallelism(),
  maxWaitMs: 20_000,
};
export const HEAVY_PAGE = 1000;
export const HEAVY_GRAPHQL_COST = 20_000;
export const LARGE_GRAPHQL_COST = 5_000;

/** The queue a request joins: `heavy` (big pages, the costliest operations) or `large` (see above). */
export type AdmissionTier = 'heavy' | 'large';

/** The refusal after a wait too long, saying what of that tier's requests never waits. */
export const overloaded = (tier: AdmissionTier = 'heavy') =>
  new AppError(
    'OVERLOADED',
    tier === 'heavy'
      ? `The server is busy with other large requests. Retry in ${RETRY_AFTER_SECONDS.OVERLOADED} seconds, or ask for smaller pages (limit ≤ ${HEAVY_PAGE} never waits).`
      : `The server is busy with other large GraphQL operations. Retry in ${RETRY_AFTER_SECONDS.OVERLOADED} seconds, or ask for fewer nodes (an operation costing ≤ ${LARGE_GRAPHQL_COST.toLocaleString('en')} never waits).`,
  );

/** A counting semaphore with a FIFO queue, a wait limit, and cancellation of waiters. */
export class Admission {
  private running = 0;
  private readonly waiting: { grant: () => void }[] = [];

  constructor(
    private readonly config: AdmissionConfig,
    /** Which tier it is, for the refusal's advice. */
    readonly tier: AdmissionTier = 'heavy',
  ) {}

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
      const timer = setTimeout(() => leave(overloaded(this.tier)), this.config.maxWaitMs);
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
    /** Releases this request's admission slot (of either tier), if it holds one. */
    releaseSlot?: () => void;
  }
}

/**
 * Gives every authenticated request `ctx.admit(tier)`, which the executor calls for heavy and large
 * work. A request holds at most one slot, until the response has gone (or the client left).
 */
export function installAdmission(
  app: FastifyInstance,
  tiers: Record<AdmissionTier, Admission>,
  /** Told how long each admitted request waited for its slot, admitted or not (metrics). */
  onWaited?: (tier: AdmissionTier, seconds: number) => void,
): void {
  if (!tiers.heavy.enabled && !tiers.large.enabled) return;
  app.addHook('preHandler', (req, reply, done) => {
    if (req.ctx) req.ctx.admit = admitter(req, reply, tiers, onWaited);
    done();
  });
  // Also here: a response that never emits 'close' (inject()) still gives its slot back.
  app.addHook('onResponse', (req, _reply, done) => {
    req.releaseSlot?.();
    done();
  });
}

/**
 * The request's `ctx.admit`. Built here, in a plain function, not in the async hook: a closure that
 * an async function creates and the request keeps made V8 keep every request's objects through its
 * young-generation collections (copied, then promoted to the old generation, which only a full
 * collection frees), on Node 20 and 22 (docs/decisions.md#finished-requests-die-young).
 * test/perf/gc-survival.test.ts holds that line.
 */
function admitter(
  req: FastifyRequest,
  reply: FastifyReply,
  tiers: Record<AdmissionTier, Admission>,
  onWaited: ((tier: AdmissionTier, seconds: number) => void) | undefined,
): (tier: AdmissionTier) => Promise<void> {
  return async (tier) => {
    const admission = tiers[tier];
    if (req.releaseSlot || !admission.enabled) return;
    const gone = new AbortController();
    const onClose = () => gone.abort(new Error('client closed the connection'));
    reply.raw.once('close', onClose);
    const started = performance.now();
    try {
      req.releaseSlot = await admission.acquire(gone.signal);
    } finally {
      reply.raw.off('close', onClose);
      onWaited?.(tier, (performance.now() - started) / 1000);
    }
    if (reply.raw.closed) req.releaseSlot();
    else reply.raw.once('close', req.releaseSlot);
  };
}

/**
 * `ctx.admit` for one operation outside an HTTP request (a WebSocket's): the same tiers and queue as
 * HTTP's, given up when `signal` aborts (the socket closed) and released by `release()` once the
 * operation's answer is written.
 */
export function operationAdmitter(
  tiers: Record<AdmissionTier, Admission>,
  signal: AbortSignal,
  onWaited?: (tier: AdmissionTier, seconds: number) => void,
): { admit: (tier: AdmissionTier) => Promise<void>; release: () => void } {
  let release: (() => void) | undefined;
  let done = false;
  return {
    admit: async (tier) => {
      const admission = tiers[tier];
      if (release || done || !admission.enabled) return;
      const started = performance.now();
      try {
        release = await admission.acquire(signal);
      } finally {
        onWaited?.(tier, (performance.now() - started) / 1000);
      }
      if (done) release();
    },
    release: () => {
      done = true;
      release?.();
    },
  };
}
