import { createHash } from 'node:crypto';
import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { forRequest } from '../src/db/database.js';
import { createUser } from '../src/modules/org/repository.js';
import { startTracing } from '../src/observability/otel.js';
import { startHttpSpan } from '../src/observability/tracing.js';
import { seededDatabase } from './helpers/database.js';

const seeded = seededDatabase();

const NESTED = `query Nested($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
  projects(first: 10) { edges { node { id
    contacts(first: 5) { edges { node { id values { propertyId } } } }
  } } }
} } }`;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

/** The spans of one trace, with helpers to walk it. */
function tree(spans: ReadableSpan[], traceId: string) {
  const mine = spans.filter((s) => s.spanContext().traceId === traceId);
  const byId = new Map(mine.map((s) => [idOf(s), s]));
  const named = (re: RegExp) => mine.filter((s) => re.test(s.name));
  const parent = (s: ReadableSpan) => byId.get(parentOf(s) ?? '');
  return { mine, byId, named, parent };
}

describe('traces', () => {
  const exporter = new InMemorySpanExporter();
  let stop: () => Promise<void>;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let url: string;

  beforeAll(async () => {
    stop = await startTracing([new SimpleSpanProcessor(exporter)]);
    app = await buildApp({ database: seeded.database });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await stop?.();
  });

  /** Spans arrive when each ends; the server span ends just after the response is sent. */
  async function spansOf(traceId: string, serverSpan: RegExp) {
    for (let i = 0; i < 50; i++) {
      const t = tree(exporter.getFinishedSpans(), traceId);
      if (t.named(serverSpan).length) return t;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no server span');
  }

  const secretsOf = (extra: string[]) => {
    const key = seeded.demo.users.alice.apiKey;
    return [key, key.slice(4, 20), createHash('sha256').update(key).digest('hex'), ...extra];
  };
  const attributesText = (spans: ReadableSpan[]) =>
    JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })));

  /** A request as alice, continuing the caller's trace `traceId`; a body makes it a JSON POST. */
  const traced = (path: string, traceId: string, body?: unknown) =>
    fetch(url + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        'x-api-key': seeded.demo.users.alice.apiKey,
        traceparent: `00-${traceId}-${PARENT_ID}-01`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const nested = (traceId: string) => {
    const { A } = seeded.demo.orgs;
    return traced('/graphql', traceId, { query: NESTED, variables: { org: A.id, pf: A.portfolios.A1 } });
  };

  test('a REST request: server span continuing traceparent → operation → loader batch → SQL', async () => {
    const { A } = seeded.demo.orgs;
    const r = await traced(`/projects/v1?orgId=${A.id}&portfolioId=${A.portfolios.A1}&limit=3`, TRACE_ID);
    expect(r.status).toBe(200);
    const t = await spansOf(TRACE_ID, /^GET \/projects\/v1$/);
    const [http] = t.named(/^GET \/projects\/v1$/);
    // The caller's trace continues: same trace id, the caller's span as parent.
    expect(parentOf(http)).toBe(PARENT_ID);
    expect(http.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/projects/v1',
      'http.response.status_code': 200,
      'sdg.operation': 'listProjects',
    });
    const [op] = t.named(/^query listProjects$/);
    expect(op.attributes).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'listProjects',
    });
    expect(t.parent(op)).toBe(http);
    const pages = t.named(/^dataloader\.batch records\.page$/);
    expect(pages).toHaveLength(1);
    expect(t.parent(pages[0])).toBe(op);
    expect(pages[0].attributes['sdg.batch.size']).toBe(1);
    const sql = t.mine.filter((s) => s.attributes['db.query.text']);
    // Statement spans are named by the statement's kind, never by its text.
    expect(sql.length).toBeGreaterThan(0);
    for (const s of sql) expect(s.name).toMatch(/^(SELECT|WITH|INSERT|UPDATE|DELETE)$/);
    // The key lookup runs before the operation, under the server span; the page under its batch.
    expect(sql.some((s) => t.parent(s) === http)).toBe(true);
    expect(sql.some((s) => t.parent(s) === pages[0])).toBe(true);
    for (const s of sql) {
      expect(s.attributes['db.system.name']).toBe('postgresql');
      expect(String(s.attributes['db.query.text'])).toMatch(/\$1/);
    }
    // One tree: every span but the server span has its parent in the trace.
    for (const s of t.mine) if (s !== http) expect(t.parent(s)).toBeDefined();
    const text = attributesText(t.mine);
    for (const secret of secretsOf([A.id, A.portfolios.A1])) expect(text).not.toContain(secret);
  });

  test('a nested GraphQL query: one batch per level, each with its SQL, no variables anywhere', async () => {
    const { A } = seeded.demo.orgs;
    const traceId = 'a'.repeat(31) + 'b';
    const r = await nested(traceId);
    const body = (await r.json()) as any;
    expect(body.errors).toBeUndefined();
    expect(body.data.organization.portfolio.projects.edges.length).toBeGreaterThan(1);
    const t = await spansOf(traceId, /^POST \/graphql$/);
    const [http] = t.named(/^POST \/graphql$/);
    const [op] = t.named(/^query Nested$/);
    expect(t.parent(op)).toBe(http);
    expect(op.attributes).toEqual({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'Nested' });
    // projects, then every project's contacts: two page batches, both children of the operation.
    const pages = t.named(/^dataloader\.batch records\.page$/);
    expect(pages).toHaveLength(2);
    for (const p of pages) {
      expect(t.parent(p)).toBe(op);
      expect(t.mine.filter((s) => t.parent(s) === p && s.attributes['db.query.text'])).toHaveLength(1);
    }
    expect(pages.map((p) => p.attributes['sdg.batch.size']).sort()).toEqual([
      1,
      body.data.organization.portfolio.projects.edges.length,
    ]);
    for (const s of t.mine) if (s !== http) expect(t.parent(s)).toBeDefined();
    const text = attributesText(t.mine);
    for (const secret of secretsOf([A.id, A.portfolios.A1])) expect(text).not.toContain(secret);
    expect(text).not.toContain('variables');
  });

  test('no context manager: parents are passed explicitly, so AsyncLocalStorage never hooks a promise', () => {
    const key = createContextKey('probe');
    // With the API's no-op manager `with` runs the function and nothing becomes active.
    expect(context.with(ROOT_CONTEXT.setValue(key, 1), () => context.active().getValue(key))).toBeUndefined();
  });

  test('concurrent requests and a write: each statement span is in its own request tree, none orphaned', async () => {
    const { A } = seeded.demo.orgs;
    const before = exporter.getFinishedSpans().length;
    const ids = Array.from({ length: 6 }, (_, i) => `${'c'.repeat(30)}0${i}`);
    const responses = await Promise.all(
      ids.map((traceId, i) =>
        i % 2
          ? traced(`/projects/v1?orgId=${A.id}&portfolioId=${A.portfolios.A1}&limit=2`, traceId, {
              properties: { name: { text: `traced ${i}` } },
            })
          : nested(traceId),
      ),
    );
    for (const r of responses) expect(r.status).toBe(200);
    for (const [i, traceId] of ids.entries()) {
      const t = await spansOf(traceId, /^POST /);
      const [http] = t.named(/^POST /);
      for (const s of t.mine) if (s !== http) expect(t.parent(s)).toBeDefined();
      const sql = t.mine.filter((s) => s.attributes['db.query.text']);
      if (i % 2) {
        // The write's statements hang under its operation (the key lookup under the server span).
        const [op] = t.named(/^mutation /);
        const insert = sql.filter((s) =>
          /insert into "projects"/.test(String(s.attributes['db.query.text'])),
        );
        expect(insert).toHaveLength(1);
        expect(t.parent(insert[0])).toBe(op);
        expect(t.named(/^(BEGIN|COMMIT)$/i)).toHaveLength(0);
      } else {
        // Every page batch has exactly its own statement, whatever ran beside it.
        const pages = t.named(/^dataloader\.batch records\.page$/);
        expect(pages).toHaveLength(2);
        for (const p of pages)
          expect(t.mine.filter((s) => t.parent(s) === p && s.attributes['db.query.text'])).toHaveLength(1);
      }
    }
    // Every statement span of these requests belongs to one of their traces.
    const mine = new Set(ids);
    const fresh = exporter.getFinishedSpans().slice(before);
    for (const s of fresh.filter((x) => x.attributes['db.query.text']))
      expect(mine.has(s.spanContext().traceId)).toBe(true);
  });
  test('a failed statement records its SQLSTATE as error.type, never the message, which quotes values', async () => {
    const traceId = 'e'.repeat(32);
    const { span, trace } = startHttpSpan('POST', '/probe', {
      traceparent: `00-${traceId}-${PARENT_ID}-01`,
    });
    const db = forRequest(seeded.database, { count: 0, trace });
    // A second user with an e-mail taken: Postgres's message names the e-mail.
    const email = 'taken.secret@example.com';
    await createUser(seeded.database.db, email, 'First');
    const err = await createUser(db, email, 'Second').catch((e: Error & { code?: string }) => e);
    span.end();
    expect((err as { code?: string }).code).toBe('23505');
    expect(String((err as Error).message) + String((err as { detail?: string }).detail)).toContain(email);
    const t = await spansOf(traceId, /^POST \/probe$/);
    const [insert] = t.mine.filter((s) => /insert into "users"/.test(String(s.attributes['db.query.text'])));
    expect(insert.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(insert.attributes['error.type']).toBe('23505');
    expect(insert.status.message ?? '').toBe('');
    expect(attributesText(t.mine)).not.toContain(email);
  });
});
