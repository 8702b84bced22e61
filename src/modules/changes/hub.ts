import type { Kysely } from 'kysely';
import type { Listen } from '../../db/database.js';
import type { DB } from '../../db/types.js';
import { AppError } from '../../errors.js';
import { findViewerByHash, type Viewer } from '../auth/index.js';
import { CHANGES_CHANNEL } from './bell.js';
import { feedPage, feedStart, type LogPosition } from './repository.js';
import { endedBefore, parseSnapshot, type Snapshot } from './snapshot.js';
import type { ChangeModel } from './types.js';

/** Bounds of live subscriptions (SECURITY.md lists them). */
export interface HubLimits {
  perKey: number;
  perProcess: number;
  /** Live subscriptions of one organization, across its keys and sockets. */
  perOrg: number;
  /**
   * The summed cost (nodes each event may return, as the cost limit measures them) of one
   * organization's live subscriptions: every event is executed once per subscriber, so this bounds
   * the work one write fans out to.
   */
  costPerOrg: number;
  /**
   * Events of one organization executed at once, across its subscribers: one write fans out to an
   * execution per subscriber, and taking turns keeps that from holding every database connection.
   */
  eventsPerOrg: number;
  /** Events queued for one socket before it is closed as a slow consumer. */
  queuePerSocket: number;
}

export const DEFAULT_HUB_LIMITS: HubLimits = {
  perKey: 100,
  perProcess: 10_000,
  perOrg: 500,
  costPerOrg: 20_000,
  eventsPerOrg: 2,
  queuePerSocket: 1_000,
};

/** Close codes a subscriber's socket may get. */
export const CLOSE = { SLOW_CONSUMER: 4420, KEY_REVOKED: 4403 } as const;

/** What a socket tells the hub about itself: its key (by hash) and how to close it. */
export interface Connection {
  keyHash: string;
  /** Events queued on this socket, across its subscriptions. */
  queued: number;
  close(code: number, reason: string): void;
}

interface Subscriber {
  conn: Connection;
  orgId: string;
  portfolioId: string;
  accepts(c: ChangeModel): boolean;
  /** When it started (null if that could not be read): entries that had committed by then are not its. */
  since: Promise<Snapshot | null>;
  push(c: ChangeModel): void;
  fail(err: AppError): void;
}

/** One portfolio followed by this process: its position in the log and its subscribers. */
interface Tail {
  orgId: string;
  portfolioId: string;
  position: LogPosition;
  subs: Set<Subscriber>;
  reading: boolean;
  again: boolean;
  /** Settles once the starting position (the feed's head) is known. */
  ready: Promise<void>;
}

/**
 * The process's live subscriptions. Events come from the change log, never from the writers:
 * each followed portfolio keeps its position in the log and reads what follows it (the sync feed's
 * query, so nothing is missed or repeated) when the doorbell rings (LISTEN sdg_changes, which every
 * process's writes ring), shortly after it rings (for entries still held back behind a running
 * transaction), and once a second in any case (a lost ring, a reconnect, another tool's write).
 * A subscriber skips what had committed when it started (its snapshot), which the shared position,
 * held back by running transactions, may still be behind.
 * Before each batch, every subscriber's key is looked up again, so a revoked key, or a role or
 * guest grant taken away, stops delivery from the next event on.
 */
export class ChangeHub {
  private readonly tails = new Map<string, Tail>();
  private readonly perKey = new Map<string, number>();
  private readonly perOrg = new Map<string, { count: number; cost: number }>();
  private readonly turns = new Map<string, Turns>();
  /** Each socket's subscribers, so that a key's changed access reaches them between events. */
  private readonly bySocket = new WeakMap<Connection, Set<Subscriber>>();
  private total = 0;
  private started = 0;
  private unlisten?: () => Promise<void>;
  private poller?: NodeJS.Timeout;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly listen: Listen,
    readonly limits: HubLimits = DEFAULT_HUB_LIMITS,
    private readonly pollMs = 1_000,
  ) {}

  private async start() {
    if (this.poller) return;
    this.poller = setInterval(() => this.readAll(), this.pollMs).unref();
    this.unlisten = await this.listen(
      CHANGES_CHANNEL,
      (orgId) => this.ring(orgId),
      () => this.readAll(),
    );
  }

  /**
   * Live subscriptions in this process whose start is known: every change that commits from now on
   * reaches them, and none that committed before.
   */
  get size(): number {
    return this.started;
  }

  async stop(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
    await this.unlisten?.();
  }

  private ring(orgId: string) {
    for (const t of this.tails.values()) {
      if (t.orgId !== orgId) continue;
      void this.read(t);
      // Entries of transactions that were still running behind the horizon come a moment later.
      setTimeout(() => void this.read(t), 50).unref();
    }
  }

  private readAll() {
    for (const t of this.tails.values()) void this.read(t);
  }

  /**
   * Registers a subscriber whose events each cost `cost` (the operation's measured cost); refuses
   * beyond the per-key, per-organization and per-process bounds.
   */
  async subscribe(
    conn: Connection,
    orgId: string,
    portfolioId: string,
    accepts: (c: ChangeModel) => boolean,
    cost = 1,
  ): Promise<AsyncIterableIterator<ChangeModel>> {
    const mine = this.perKey.get(conn.keyHash) ?? 0;
    if (mine >= this.limits.perKey)
      throw new AppError(
        'RATE_LIMITED',
        `This API key has ${mine} live subscriptions, the most one key may hold; end some first.`,
      );
    const org = this.perOrg.get(orgId) ?? { count: 0, cost: 0 };
    if (org.count >= this.limits.perOrg)
      throw new AppError(
        'RATE_LIMITED',
        `This organization has ${org.count} live subscriptions, the most one organization may hold; end some first.`,
      );
    if (org.cost + cost > this.limits.costPerOrg)
      throw new AppError(
        'RATE_LIMITED',
        `This organization's live subscriptions may select at most ${this.limits.costPerOrg.toLocaleString('en')} nodes per event together; this one selects ${cost.toLocaleString('en')} and ${org.cost.toLocaleString('en')} are taken. Select fewer nodes (smaller pages under \`record\`), or end other subscriptions.`,
      );
    if (this.total >= this.limits.perProcess)
      throw new AppError(
        'OVERLOADED',
        'This server holds as many live subscriptions as it may; retry later.',
      );
    // Counted, and the tail registered, before the first await: concurrent subscribes see each other.
    this.perKey.set(conn.keyHash, mine + 1);
    org.count++;
    org.cost += cost;
    this.perOrg.set(orgId, org);
    this.total++;
    const key = `${orgId}\0${portfolioId}`;
    // Its own snapshot even on a followed portfolio: the tail may still be behind entries that
    // committed before this subscription started.
    const start = feedStart(this.db);
    let tail = this.tails.get(key);
    if (!tail) {
      const fresh: Tail = {
        orgId,
        portfolioId,
        position: { tx: '0', seq: '0' },
        subs: new Set(),
        reading: false,
        again: false,
        ready: Promise.resolve(),
      };
      fresh.ready = start.then((s) => {
        fresh.position = s.position;
      });
      tail = fresh;
      this.tails.set(key, tail);
    }
    const queue: ChangeModel[] = [];
    let pending:
      | { resolve: (r: IteratorResult<ChangeModel>) => void; reject: (e: unknown) => void }
      | undefined;
    let done = false;
    let counted = false;
    let failure: AppError | undefined;
    const t = tail;
    const finish = () => {
      if (done) return;
      done = true;
      conn.queued -= queue.length;
      queue.length = 0;
      t.subs.delete(sub);
      if (!t.subs.size) this.tails.delete(key);
      this.perKey.set(conn.keyHash, (this.perKey.get(conn.keyHash) ?? 1) - 1);
      org.count--;
      org.cost -= cost;
      if (!org.count && this.perOrg.get(orgId) === org) this.perOrg.delete(orgId);
      this.bySocket.get(conn)?.delete(sub);
      this.total--;
      if (counted) this.started--;
    };
    const sub: Subscriber = {
      conn,
      orgId,
      portfolioId,
      accepts,
      since: start.then(
        (s) => parseSnapshot(s.snapshot),
        () => null,
      ),
      push: (c) => {
        if (done) return;
        if (pending) {
          const p = pending;
          pending = undefined;
          p.resolve({ value: c, done: false });
          return;
        }
        queue.push(c);
        conn.queued++;
        if (conn.queued > this.limits.queuePerSocket)
          conn.close(
            CLOSE.SLOW_CONSUMER,
            `Slow consumer: more than ${this.limits.queuePerSocket} events queued`,
          );
      },
      // Access was lost: the pending (or next) next() rejects, and graphql-ws sends the error and ends it.
      fail: (err) => {
        failure = err;
        finish();
        if (pending) {
          const p = pending;
          pending = undefined;
          p.reject(err);
        }
      },
    };
    tail.subs.add(sub);
    const mineOnSocket = this.bySocket.get(conn) ?? new Set();
    mineOnSocket.add(sub);
    this.bySocket.set(conn, mineOnSocket);
    try {
      await Promise.all([this.start(), tail.ready, start]);
      if (!done) {
        counted = true;
        this.started++;
      }
    } catch (err) {
      finish();
      throw err;
    }
    const take = (): Promise<IteratorResult<ChangeModel>> => {
      if (failure) return Promise.reject(failure);
      if (queue.length) {
        conn.queued--;
        return Promise.resolve({ value: queue.shift()!, done: false });
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
      });
    };
    // The organization's turn to execute one event, held from an event's hand-over until the next
    // is asked for: graphql-js executes (and graphql-ws sends) each event in between.
    let turn: (() => void) | undefined;
    const giveBack = () => {
      turn?.();
      turn = undefined;
    };
    const iterator: AsyncIterableIterator<ChangeModel> = {
      next: async () => {
        giveBack();
        const event = await take();
        if (event.done) return event;
        const mine = await this.turnsOf(orgId).take();
        if (done) {
          // Ended while it waited for its turn.
          mine();
          return { value: undefined, done: true };
        }
        turn = mine;
        return event;
      },
      return: () => {
        giveBack();
        finish();
        pending?.resolve({ value: undefined, done: true });
        pending = undefined;
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return iterator;
  }

  /** The turns one organization's subscribers take to execute events; forgotten when none waits. */
  private turnsOf(orgId: string): Turns {
    let t = this.turns.get(orgId);
    if (!t) {
      t = new Turns(this.limits.eventsPerOrg, () => this.turns.delete(orgId));
      this.turns.set(orgId, t);
    }
    return t;
  }

  /**
   * Applies a socket's key as it stands now (looked up again by the socket's owner): a subscription
   * whose portfolio is out of reach ends with NOT_FOUND, without waiting for its next event.
   */
  recheck(conn: Connection, viewer: Viewer): void {
    for (const sub of [...(this.bySocket.get(conn) ?? [])])
      if (!viewer.canReadPortfolio(sub.orgId, sub.portfolioId)) sub.fail(lostPortfolio());
  }

  /** Reads what follows a tail's position and hands it to its subscribers, one read at a time. */
  private async read(t: Tail): Promise<void> {
    if (t.reading) {
      t.again = true;
      return;
    }
    t.reading = true;
    try {
      await t.ready;
      do {
        t.again = false;
        const batch = await feedPage(this.db, t.orgId, t.portfolioId, 500, t.position);
        if (!batch.length) break;
        t.position = { tx: batch.at(-1)!.tx, seq: batch.at(-1)!.seq };
        await this.deliver(t, batch);
        if (batch.length === 500) t.again = true;
      } while (t.again && t.subs.size);
    } catch {
      // The next ring or poll tries again from the same position.
    } finally {
      t.reading = false;
    }
  }

  private async deliver(t: Tail, batch: ChangeModel[]) {
    const viewers = new Map<string, Promise<Viewer | null>>();
    for (const sub of [...t.subs]) {
      const hash = sub.conn.keyHash;
      if (!viewers.has(hash)) viewers.set(hash, findViewerByHash(this.db, hash));
      const viewer = await viewers.get(hash)!;
      if (!viewer) {
        sub.conn.close(CLOSE.KEY_REVOKED, 'The API key was revoked');
        continue;
      }
      if (!viewer.canReadPortfolio(sub.orgId, sub.portfolioId)) {
        sub.fail(lostPortfolio());
        continue;
      }
      const since = await sub.since;
      if (!since) continue;
      for (const c of batch) if (!endedBefore(since, c.tx) && sub.accepts(c)) sub.push(c);
    }
  }
}

const lostPortfolio = () =>
  new AppError('NOT_FOUND', 'Portfolio was not found, or your API key has no access to it.');

/** A counting semaphore, first come first served, that says when it is idle. */
class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly slots: number,
    private readonly onIdle: () => void,
  ) {}

  async take(): Promise<() => void> {
    if (this.running < this.slots) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next();
      else if (--this.running === 0) this.onIdle();
    };
  }
}
