import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { startTracing } from '../src/observability/otel.js';
import { onCitus } from './helpers/citus.js';
import { backend, seededDatabase } from './helpers/database.js';

/**
 * A connection's totalCount starts with its page, not after it, on the planned path and on the
 * executor's: on a server the two statements run on two connections at once (a filtered count at
 * county scale takes about as long as its page). Shown with a page held up: a project's contacts
 * page joins `contacts`, which another session has locked, while its count reads the link table
 * alone, so the count must finish while the page waits. PGlite runs one statement at a time, and
 * on Citus the lock is the shards', so both are left out.
 */
const seeded = seededDatabase();
const exporter = new InMemorySpanExporter();
let stop: () => Promise<void>;
let planned: FastifyInstance;
let executor: FastifyInstance;

beforeAll(async () => {
  stop = await startTracing([new SimpleSpanProcessor(exporter)]);
  planned = await buildApp({ database: seeded.database });
  executor = await buildApp({ database: seeded.database, graphqlPlans: false });
});
afterAll(async () => {
  await planned?.close();
  await executor?.close();
  await stop?.();
});

const CONTACTS = `query Contacts($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
  projects(first: 2) { nodes { id contacts(first: 3) { totalCount nodes { id } } } } } } }`;

const finished = (traceId: string, name: string) =>
  exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId && s.name === name);

describe.skipIf(backend === 'pglite' || onCitus)('totalCount beside its page', () => {
  test.each([
    ['planned', () => planned, 'c'.repeat(32)],
    ['executor', () => executor, 'd'.repeat(32)],
  ] as const)('%s: the count finishes while its page waits', async (_path, app, traceId) => {
    const { A } = seeded.demo.orgs;
    let answer: Promise<LightMyRequestResponse> | undefined;
    // The lock is held by a transaction on a connection of the gateway's own pool, until it commits.
    await seeded.database.db.transaction().execute(async (trx) => {
      await sql`lock table contacts in access exclusive mode`.execute(trx);
      answer = app().inject({
        method: 'POST',
        url: '/graphql',
        headers: {
          'x-api-key': seeded.demo.users.alice.apiKey,
          'content-type': 'application/json',
          traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        },
        payload: JSON.stringify({ query: CONTACTS, variables: { org: A.id, pf: A.portfolios.A1 } }),
      });
      let counted = false;
      for (let i = 0; i < 100 && !counted; i++) {
        counted = finished(traceId, 'dataloader.batch records.count').length > 0;
        if (!counted) await new Promise((r) => setTimeout(r, 20));
      }
      // Read while the lock is held: had the count waited for its page, it could not have finished.
      expect(counted, 'the count finished while the contacts page waited for the lock').toBe(true);
      expect(finished(traceId, 'dataloader.batch records.page'), 'only the projects page').toHaveLength(1);
    });
    const r = await answer!;
    expect(r.json().errors).toBeUndefined();
    const projects: { contacts: { totalCount: number } }[] =
      r.json().data.organization.portfolio.projects.nodes;
    expect(projects.some((p) => p.contacts.totalCount > 0)).toBe(true);
  });
});
