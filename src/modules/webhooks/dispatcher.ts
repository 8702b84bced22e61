import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Listen } from '../../db/database.js';
import type { DB } from '../../db/types.js';
import { CHANGES_CHANNEL } from '../changes/index.js';
import * as repo from './repository.js';
import { postSigned, type SendResult } from './send.js';
import { SIGNATURE_HEADER, sign } from './signing.js';
import { DEFAULT_MAX_ENDPOINTS_PER_ORG } from './types.js';

/** Webhook delivery settings (WEBHOOK_* in the environment; see docs/changes.md). */
export interface WebhookSettings {
  /** Allow loopback, link-local and private targets (tests, a receiver on the same host). */
  allowPrivateTargets: boolean;
  /** An endpoint is disabled after this many failed attempts in a row. */
  maxFailures: number;
  /** Time allowed for one attempt, ms. */
  timeoutMs: number;
  /** Retry delay after the first failure, ms; doubled per attempt up to retryMaxMs, then jittered. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How often every org is checked even without a doorbell, ms. */
  pollMs: number;
  /** Sends in flight at once per process. */
  concurrency: number;
  /** Sends in flight at once per process for one org: what a tenant with slow endpoints can hold. */
  perOrg: number;
  /** Sends in flight at once per process to one endpoint. */
  perEndpoint: number;
  /** Endpoints an org may register (disabled ones count). */
  maxEndpointsPerOrg: number;
}

export const DEFAULT_WEBHOOKS: WebhookSettings = {
  allowPrivateTargets: false,
  maxFailures: 15,
  timeoutMs: 10_000,
  retryBaseMs: 10_000,
  retryMaxMs: 6 * 3_600_000,
  pollMs: 1_000,
  concurrency: 16,
  perOrg: 4,
  perEndpoint: 2,
  maxEndpointsPerOrg: DEFAULT_MAX_ENDPOINTS_PER_ORG,
};

/** The wait before attempt `attempts + 1`: exponential, capped, with "equal jitter" (half fixed, half random). */
export function backoffMs(
  s: Pick<WebhookSettings, 'retryBaseMs' | 'retryMaxMs'>,
  attempts: number,
  random = Math.random,
): number {
  const full = Math.min(s.retryMaxMs, s.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

/**
 * Delivers webhooks from this process. Every gateway runs one; they need no coordination, because
 * both steps lock what they take with SKIP LOCKED (see repository.fanOut and claimDue). A round
 * runs for each org with an enabled endpoint: new log entries become deliveries, then the due
 * ones are claimed and sent, the orgs taking turns (fillTurns), so that a tenant whose endpoints
 * answer slowly holds at most its share of the sends, never the others' deliveries. Rounds start on
 * the change log's doorbell and every `pollMs`; a finished send lets its org claim again.
 * The lease on a claim outlasts an attempt's timeout, so a live process never sees its own
 * deliveries claimed twice; a killed one's are sent again once their lease has passed.
 */
export class WebhookDispatcher {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  private unlisten?: () => Promise<void>;
  /**
   * Orgs with an enabled endpoint, as the last round found them. A doorbell for any other org
   * starts no round: under a write load the bell rings for every org every few milliseconds, and a
   * round costs a query even when there is nothing to deliver. An endpoint added since is found
   * by the next poll, within `pollMs`.
   */
  private orgs?: Set<string>;
  /** Sends in flight, for tests and stop(). */
  readonly inFlight = new Set<Promise<void>>();
  /** Sends in flight per org, by endpoint id. */
  private readonly busy = new Map<string, Map<string, number>>();
  /** Orgs that may have due deliveries not yet claimed, in the order of their next turn. */
  private queue: string[] = [];
  private readonly queued = new Set<string>();
  private filling?: Promise<void>;
  private refill = false;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly settings: WebhookSettings,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
    private readonly send: typeof postSigned = postSigned,
  ) {}

  get leaseMs(): number {
    return this.settings.timeoutMs + 5_000;
  }

  async start(listen?: Listen): Promise<void> {
    this.timer = setInterval(() => this.kick(), this.settings.pollMs).unref();
    if (listen)
      this.unlisten = await listen(
        CHANGES_CHANNEL,
        (orgId) => {
          if (!this.orgs || this.orgs.has(orgId)) this.kick();
        },
        () => this.kick(),
      ).catch((err) => {
        this.log.warn({ err }, 'webhooks: LISTEN failed; polling only');
        return undefined;
      });
    this.kick();
  }

  /** Starts a round now, or right after the one running. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round()
      .catch((err) => this.log.warn({ err }, 'webhooks: round failed; retrying at the next'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** One round over every org: new log entries become deliveries, and each org gets its turn to claim. */
  async round(): Promise<void> {
    const orgs = await repo.orgsWithEndpoints(this.db);
    this.orgs = new Set(orgs);
    // One page of the log per org per pass: an org with a long backlog does not hold back another
    // org's new deliveries, and what each pass made is claimed while the next pass runs.
    let more = orgs;
    let filled: Promise<void> | undefined;
    while (more.length && !this.stopped) {
      const next: string[] = [];
      for (const orgId of more) {
        if ((await repo.fanOut(this.db, orgId, 500)) === 500) next.push(orgId);
        this.enqueue(orgId);
      }
      filled = this.fill();
      more = next;
    }
    await filled;
  }

  /** A round, and then its sends and the claims their completions make (tests). */
  async drain(): Promise<void> {
    await this.running;
    await this.round();
    while (this.filling || this.inFlight.size) {
      await this.filling;
      await Promise.all(this.inFlight);
    }
  }

  private enqueue(orgId: string) {
    if (this.queued.has(orgId)) return;
    this.queued.add(orgId);
    this.queue.push(orgId);
  }

  /** Claims for the queued orgs in turn; one fill runs at a time, and a call during one runs another after it. */
  private fill(): Promise<void> {
    if (this.filling) {
      this.refill = true;
      return this.filling;
    }
    this.filling = this.fillTurns()
      .catch((err) => this.log.warn({ err }, 'webhooks: claiming failed; retrying at the next round'))
      .finally(() => {
        this.filling = undefined;
        if (this.refill) {
          this.refill = false;
          void this.fill();
        }
      });
    return this.filling;
  }

  /**
   * Round-robin over orgs with due deliveries: the org at the front claims up to its share
   * (`perOrg` less its sends in flight, within the process's free slots, `perEndpoint` per endpoint)
   * and goes to the back if it got all it asked for. An org at its share, or with nothing more due,
   * leaves the queue; one of its sends finishing puts it back. When every slot is taken the queue
   * waits as it is, so the next free slot goes to the org whose turn is next, not to the one that
   * has the most due.
   */
  private async fillTurns(): Promise<void> {
    const { concurrency, perOrg, perEndpoint } = this.settings;
    while (this.queue.length && !this.stopped) {
      const room = concurrency - this.inFlight.size;
      if (room <= 0) return;
      const orgId = this.queue.shift()!;
      this.queued.delete(orgId);
      const busy = this.busy.get(orgId);
      const ask = Math.min(room, perOrg - (busy ? sum(busy) : 0));
      if (ask <= 0) continue;
      const claimed = await repo.claimDue(this.db, orgId, ask, this.leaseMs, perEndpoint, busy);
      for (const d of claimed) this.launch(orgId, d);
      if (claimed.length === ask) this.enqueue(orgId);
    }
  }

  private launch(orgId: string, d: repo.Claimed) {
    const busy = this.busy.get(orgId) ?? new Map<string, number>();
    this.busy.set(orgId, busy);
    busy.set(d.endpointId, (busy.get(d.endpointId) ?? 0) + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const n = busy.get(d.endpointId)! - 1;
      if (n) busy.set(d.endpointId, n);
      else busy.delete(d.endpointId);
      if (!busy.size) this.busy.delete(orgId);
      // The org's share and the endpoint's room are free again: the org may claim more.
      if (this.stopped) return;
      this.enqueue(orgId);
      void this.fill();
    };
    const p = this.attempt(orgId, d, release).finally(() => {
      this.inFlight.delete(p);
      release();
    });
    this.inFlight.add(p);
  }

  /**
   * Sends one delivery and records the outcome. A success calls `answered` before it is recorded:
   * the delivery's lease keeps it from being claimed again, so the endpoint's next send need not
   * wait for this commit. A failure is recorded first, so an endpoint that fails is disabled
   * before it is sent more.
   */
  private async attempt(orgId: string, d: repo.Claimed, answered: () => void): Promise<void> {
    const t = Math.floor(Date.now() / 1000);
    let res: SendResult;
    try {
      res = await this.send(
        d.url,
        {
          [SIGNATURE_HEADER]: sign(d.secret, t, d.body),
          'Sdg-Delivery-Id': d.id,
          'Sdg-Event': d.event,
          'user-agent': 'solar-data-gateway-webhooks/1',
        },
        d.body,
        { timeoutMs: this.settings.timeoutMs, allowPrivate: this.settings.allowPrivateTargets },
      );
    } catch (err) {
      res = { ok: false, error: String(err) };
    }
    try {
      if (res.ok) {
        answered();
        return await repo.markDelivered(this.db, orgId, d, res.status ?? 200);
      }
      const retryAt = new Date(Date.now() + backoffMs(this.settings, d.attempts));
      const on = await repo.markFailed(
        this.db,
        orgId,
        d,
        { status: res.status, error: res.error ?? 'failed' },
        retryAt,
        this.settings.maxFailures,
      );
      if (!on)
        this.log.warn(
          { orgId, endpointId: d.endpointId },
          'webhooks: endpoint disabled after repeated failures',
        );
    } catch (err) {
      // The outcome is lost; the lease runs out and the delivery is attempted again (at least once).
      this.log.warn({ err, deliveryId: d.id }, 'webhooks: could not record an attempt');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.unlisten?.();
    await this.running;
    await this.filling;
    await Promise.all(this.inFlight);
  }
}

const sum = (m: ReadonlyMap<string, number>) => {
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
};
