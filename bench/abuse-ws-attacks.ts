/**
 * One WebSocket attacker of `npm run bench -- --abuse`, in its own process (as bench/abuse-attacks.ts
 * is for HTTP), speaking graphql-ws over `ws` to /graphql:
 *
 *   node dist/bench/abuse-ws-attacks.js <attack> <gateway url> <seconds> <context json>
 *
 * Prints `ready` once its setup is done (the fan-out's subscriptions are open), so that the bench
 * measures the attack and not the setup; then, when done, one JSON line: operations sent and their
 * outcomes. A refusal (an error with code RATE_LIMITED or OVERLOADED, a 429 on the upgrade, or a
 * close with a 4xxx code) is an outcome like an answer, not a failure of the attacker.
 *
 * Every loop is bounded twice, by time and by count, and every target is 127.0.0.1.
 */
import WebSocket from 'ws';
import { NESTED_QUERY, VALUES_FRAGMENT } from '../test/helpers/queries.js';

/** What the bench hands an attacker: its keys and the records it aims at. */
export interface WsAttackContext {
  /** The attacker's keys; the fan-out spreads its subscriptions over them as one attacker with several keys. */
  keys: string[];
  /** A key of another user that makes the fan-out's PUTs. */
  writerKey: string;
  orgId: string;
  portfolioId: string;
  /** The fan-out's PUT target: the read portfolio's project with the most contacts. */
  projectId: string;
  /** Scale the attack's sizes down (the smoke test runs them in miniature); 1 is the real thing. */
  size: number;
}

/** The WebSocket attacks; `ws-slow-webhook` is not a socket attack and runs in the bench process (abuse-ws.ts). */
export const WS_ATTACKS = {
  'ws-heavy': {
    title: 'ws1. heavy queries (projects 100 → contacts 10 → parcels 5) over 4 sockets, 15 in flight on each',
  },
  'ws-cheap': { title: 'ws2. cheap page queries (first 10), 50 in flight on one socket' },
  'ws-no-read': { title: 'ws3. a client that never reads: 200 heavy queries on a paused socket' },
  'ws-churn': { title: 'ws4. subscribe + complete churn on 4 sockets' },
  'ws-fanout': {
    title: 'ws5. 400 subscriptions (4 keys) selecting nested `record`, then 20 PUTs from another key',
  },
} as const;
export type WsAttack = keyof typeof WS_ATTACKS;

const HEAVY = { query: NESTED_QUERY, projects: 100, contacts: 10, parcels: 5 };
const CHEAP = `query Cheap($orgId: ID!, $portfolioId: ID!) { organization(id: $orgId) { portfolio(id: $portfolioId) {
  projects(first: 10) { nodes { id } } } } }`;
const CHANGED = `subscription Churn($pf: ID!) { recordChanged(portfolioId: $pf, kinds: [PROJECT]) { id } }`;
const FANOUT = `subscription Fanout($pf: ID!) { recordChanged(portfolioId: $pf, kinds: [PROJECT]) { id recordId
  record { ... on Project { id ...V contacts(first: 10) { nodes { id ...V parcels(first: 5) { nodes { id ...V } } } } } } } }
  ${VALUES_FRAGMENT}`;
const REFUSALS = new Set(['RATE_LIMITED', 'OVERLOADED']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Outcomes by name: answered, refused, closed, or `error CODE` / `socket NNNN` for anything else. */
class Tally {
  sent = 0;
  readonly outcomes: Record<string, number> = {};
  add(name: string, n = 1) {
    this.outcomes[name] = (this.outcomes[name] ?? 0) + n;
  }
}

type Outcome = 'answered' | 'refused' | 'closed' | string;

function classify(errors: unknown): Outcome {
  const code = (errors as { extensions?: { code?: string } }[] | undefined)?.[0]?.extensions?.code;
  if (code && REFUSALS.has(code)) return 'refused';
  return `error ${code ?? 'without code'}`;
}

/**
 * One graphql-ws connection. Each operation resolves with its outcome: its first `next` (or the
 * error that replaced it), or the socket's close.
 */
class Socket {
  private ws!: WebSocket;
  private nextId = 0;
  private readonly pending = new Map<string, (o: Outcome) => void>();
  /** Subscriptions: called for every `next` after the first. */
  readonly onEvent = new Map<string, () => void>();
  closeCode?: number;
  private dropped = false;

  /** Opens and initializes; resolves with the socket, or with why it was refused. */
  static async open(url: string, key: string, tally: Tally): Promise<Socket | undefined> {
    const s = new Socket();
    const ok = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(url, 'graphql-transport-ws', { handshakeTimeout: 10_000 });
      s.ws = ws;
      ws.on('unexpected-response', (_req, res) => {
        tally.add(res.statusCode === 429 ? 'socket refused (429)' : `socket ${res.statusCode}`);
        res.resume();
        ws.terminate();
        resolve(false);
      });
      ws.on('error', () => resolve(false));
      ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { apiKey: key } })));
      ws.on('close', (code) => {
        s.closeCode = code;
        if (!s.dropped) tally.add(`socket closed ${code}`);
        for (const done of s.pending.values()) done('closed');
        s.pending.clear();
        resolve(false);
      });
      ws.on('message', (raw) => {
        const m = JSON.parse(String(raw)) as { type: string; id?: string; payload?: any };
        if (m.type === 'connection_ack') resolve(true);
        else if (m.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
        else if (m.id !== undefined) s.receive(m.type, m.id, m.payload);
      });
    });
    return ok ? s : undefined;
  }

  private receive(type: string, id: string, payload: any) {
    const done = this.pending.get(id);
    if (type === 'next' && !done) this.onEvent.get(id)?.();
    if (!done) return;
    if (type === 'next' || type === 'error' || type === 'complete') {
      this.pending.delete(id);
      if (type === 'error') done(classify(payload));
      else if (type === 'next' && payload?.errors?.length && !payload.data) done(classify(payload.errors));
      else done(type === 'complete' ? 'completed' : 'answered');
    }
  }

  get open() {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Bytes the client has not yet handed to the kernel: the attacker's own back-pressure. */
  get buffered() {
    return this.ws.bufferedAmount;
  }

  /** Sends an operation; resolves with its outcome (a subscription: once its first event, or refusal). */
  run(query: string, variables: Record<string, unknown>): { id: string; outcome: Promise<Outcome> } {
    const id = String(++this.nextId);
    const outcome = new Promise<Outcome>((resolve) => {
      if (!this.open) return resolve('closed');
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
    });
    return { id, outcome };
  }

  complete(id: string) {
    if (this.open) this.ws.send(JSON.stringify({ id, type: 'complete' }));
  }

  /** Stops reading: the kernel's receive buffer fills, then the server's send queue grows. */
  pause() {
    (this.ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
  }

  resume() {
    (this.ws as unknown as { _socket: import('node:net').Socket })._socket.resume();
  }

  /** Settles the outcomes still owed as `name`, and drops the socket. */
  drop(name: Outcome) {
    this.dropped = true;
    for (const done of this.pending.values()) done(name);
    this.pending.clear();
    this.ws.terminate();
  }
}

/**
 * `sockets` connections with `inFlight` operations each, closed loop, until `seconds` or `maxOps`;
 * a socket the server closes is opened again (at most `maxReopen` times in all).
 */
async function flood(
  url: string,
  keys: string[],
  seconds: number,
  o: { sockets: number; inFlight: number; maxOps: number; op: () => [string, Record<string, unknown>] },
  tally: Tally,
) {
  const end = performance.now() + seconds * 1000;
  let reopen = 100;
  const live: Socket[] = [];
  const lane = async (i: number) => {
    while (performance.now() < end && tally.sent < o.maxOps) {
      const s = await Socket.open(url, keys[i % keys.length], tally);
      if (!s) {
        if (--reopen < 0) return;
        await sleep(100);
        continue;
      }
      live.push(s);
      const slot = async () => {
        while (s.open && performance.now() < end && tally.sent < o.maxOps) {
          tally.sent++;
          const [q, v] = o.op();
          tally.add(await s.run(q, v).outcome);
        }
      };
      await Promise.all(Array.from({ length: o.inFlight }, slot));
      if (s.open) return;
      if (--reopen < 0) return;
      await sleep(100);
    }
  };
  await Promise.all(Array.from({ length: o.sockets }, (_, i) => lane(i)));
  for (const s of live) s.drop('unanswered');
}

async function noRead(url: string, key: string, seconds: number, c: WsAttackContext, tally: Tally) {
  const s = await Socket.open(url, key, tally);
  if (!s) return;
  s.pause();
  const outcomes: Promise<Outcome>[] = [];
  const heavy = heavyVariables(c);
  for (let i = 0; i < Math.max(1, Math.round(200 * c.size)); i++) {
    tally.sent++;
    outcomes.push(s.run(HEAVY.query, heavy).outcome);
  }
  await sleep(seconds * 1000);
  // Read what the server kept for us (or learn that it closed the socket), for a bounded while.
  s.resume();
  const counted = Promise.all(outcomes.map(async (o) => tally.add(await o)));
  await Promise.race([counted, sleep(10_000)]);
  s.drop('unanswered');
  await counted;
}

async function churn(url: string, key: string, seconds: number, c: WsAttackContext, tally: Tally) {
  const end = performance.now() + seconds * 1000;
  const maxPairs = 500_000;
  const outcomes: Promise<void>[] = [];
  const lane = async () => {
    let reopen = 25;
    while (performance.now() < end && tally.sent < maxPairs) {
      const s = await Socket.open(url, key, tally);
      if (!s) {
        if (--reopen < 0) return;
        await sleep(100);
        continue;
      }
      while (s.open && performance.now() < end && tally.sent < maxPairs) {
        // Batches as fast as the socket takes them; the client's own buffer is the only brake.
        for (let i = 0; i < 50 && s.buffered < 256 * 1024; i++) {
          tally.sent++;
          const { id, outcome } = s.run(CHANGED, { pf: c.portfolioId });
          s.complete(id);
          outcomes.push(outcome.then((o) => tally.add(o)));
        }
        await new Promise((r) => setImmediate(r));
      }
      // A completed subscription gets no answer: give refusals a moment to arrive, then stop waiting.
      await sleep(500);
      s.drop('accepted');
      if (--reopen < 0) return;
    }
  };
  await Promise.all(Array.from({ length: 4 }, lane));
  await Promise.all(outcomes);
}

async function fanout(url: string, seconds: number, c: WsAttackContext, tally: Tally, ready: () => void) {
  const subscriptions = Math.max(4, Math.round(400 * c.size));
  const perSocket = 10;
  const sockets: Socket[] = [];
  let events = 0;
  const settled: Promise<void>[] = [];
  const setupEnd = performance.now() + 60_000;
  for (let i = 0; i * perSocket < subscriptions && performance.now() < setupEnd; i++) {
    const s = await Socket.open(url, c.keys[i % c.keys.length], tally);
    if (!s) continue;
    sockets.push(s);
    for (let k = 0; k < perSocket && i * perSocket + k < subscriptions; k++) {
      tally.sent++;
      const { id, outcome } = s.run(FANOUT, { pf: c.portfolioId });
      s.onEvent.set(id, () => events++);
      // A subscription's first event or its refusal settles it; a live one without events, the drop.
      const first = outcome.then((o) => {
        if (o === 'answered') events++;
        tally.add(o === 'answered' ? 'subscribed' : o);
      });
      settled.push(first);
    }
  }
  // The refusals come back within a moment; the others are live.
  await sleep(1_000);
  ready();
  const start = performance.now();
  const path = `/projects/v1/${c.projectId}?orgId=${c.orgId}&portfolioId=${c.portfolioId}`;
  const headers = { 'content-type': 'application/json', 'x-api-key': c.writerKey };
  const got = await fetch(`${httpOf(url)}${path}`, { headers }).then((r) => r.json() as any);
  const original = Number(got?.properties?.capacity_mw?.number ?? 100);
  // An even number of PUTs: the project ends with the value it had.
  const puts = 2 * Math.max(1, Math.round(10 * c.size));
  for (let i = 0; i < puts; i++) {
    const r = await fetch(`${httpOf(url)}${path}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ properties: { capacity_mw: { number: i % 2 ? original : original + 1 } } }),
    });
    await r.arrayBuffer();
    tally.add(`PUT ${r.status}`);
  }
  const left = seconds * 1000 - (performance.now() - start);
  if (left > 0) await sleep(left);
  tally.add('events received', events);
  for (const s of sockets) s.drop('subscribed');
  await Promise.all(settled);
}

const httpOf = (wsUrl: string) => wsUrl.replace(/^ws/, 'http').replace(/\/graphql$/, '');

const heavyVariables = (c: WsAttackContext) => ({
  orgId: c.orgId,
  portfolioId: c.portfolioId,
  projects: HEAVY.projects,
  contacts: HEAVY.contacts,
  parcels: HEAVY.parcels,
});

export async function wsAttack(
  attack: WsAttack,
  url: string,
  seconds: number,
  c: WsAttackContext,
  ready: () => void,
): Promise<{ requests: number; statuses: Record<string, number> }> {
  const tally = new Tally();
  const key = c.keys[0];
  switch (attack) {
    case 'ws-heavy':
      ready();
      await flood(
        url,
        [key],
        seconds,
        {
          sockets: 4,
          inFlight: Math.max(1, Math.round(15 * c.size)),
          maxOps: 100_000,
          op: () => [HEAVY.query, heavyVariables(c)],
        },
        tally,
      );
      break;
    case 'ws-cheap':
      ready();
      await flood(
        url,
        [key],
        seconds,
        {
          sockets: 1,
          inFlight: Math.max(1, Math.round(50 * c.size)),
          maxOps: 1_000_000,
          op: () => [CHEAP, { orgId: c.orgId, portfolioId: c.portfolioId }],
        },
        tally,
      );
      break;
    case 'ws-no-read':
      ready();
      await noRead(url, key, seconds, c, tally);
      break;
    case 'ws-churn':
      ready();
      await churn(url, key, seconds, c, tally);
      break;
    case 'ws-fanout':
      await fanout(url, seconds, c, tally, ready);
      break;
  }
  return { requests: tally.sent, statuses: tally.outcomes };
}

async function main() {
  const [attack, url, seconds, context] = process.argv.slice(2);
  if (!(attack in WS_ATTACKS))
    throw new Error(`unknown attack "${attack}"; one of ${Object.keys(WS_ATTACKS).join(', ')}`);
  if (!/^ws:\/\/127\.0\.0\.1:\d+\/graphql$/.test(url)) throw new Error(`only ws://127.0.0.1 targets: ${url}`);
  const r = await wsAttack(attack as WsAttack, url, Number(seconds), JSON.parse(context), () =>
    process.stdout.write('ready\n'),
  );
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

if (process.argv[1]?.endsWith('abuse-ws-attacks.js') || process.argv[1]?.endsWith('abuse-ws-attacks.ts'))
  main().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`attacker failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
