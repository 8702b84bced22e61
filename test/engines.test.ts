import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { Executor } from '../src/graphql/executor.js';
import { DEFAULT_LIMITS } from '../src/graphql/limits.js';
import { buildSchema } from '../src/graphql/schema.js';
import { createPortfolio } from '../src/modules/org/repository.js';
import type { Engine } from '../src/observability/metrics.js';
import { onCitus } from './helpers/citus.js';
import { seededDatabase } from './helpers/database.js';
import { client, type Res } from './helpers/http.js';
import { logSink } from './helpers/logs.js';
import { FIRST_PAGE_QUERY, NESTED_QUERY } from './helpers/queries.js';
import { call, serverStorage, startServer } from './helpers/server-process.js';

/**
 * Each engine of the executor (the plan, graphql-jit, graphql-js) can be turned off, and the same
 * contract holds with any one of them off: one suite of REST v1 routes and GraphQL queries and
 * mutations runs against an app per setting, every answer must equal the all-on app's (ids and
 * timestamps of the records each run writes aside), and the access log and the operations metric
 * must name only engines that are on.
 */
const seeded = seededDatabase();

const SETTINGS = {
  'all on': {},
  'plan off': { plan: false },
  'jit off': { jit: false },
  'js off': { js: false },
} as const;
type Setting = keyof typeof SETTINGS;

/** What one run of the suite saw: each case's normalized answers, and the engines that answered. */
interface Run {
  answers: Map<string, { status: number; body: unknown }[]>;
  /** The access log's `engine` of every operation line, undefined for a request no engine answered. */
  engines: (Engine | undefined)[];
  /** sdg_graphql_operations_total, summed by engine. */
  counted: Partial<Record<Engine, number>>;
  lines: Record<string, any>[];
}

const runs = new Map<Setting, Run>();
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  const settings = Object.entries(SETTINGS) as [Setting, (typeof SETTINGS)[Setting]][];
  // All made first, so that every run lists the same portfolios.
  const own = new Map<Setting, string>();
  for (const [setting] of settings)
    own.set(setting, (await createPortfolio(seeded.database.db, seeded.demo.orgs.A.id, 'engines')).id);
  for (const [setting, engines] of settings) {
    const log = logSink('info');
    const app = await buildApp({ database: seeded.database, logger: log.logger, graphqlEngines: engines });
    apps.push(app);
    const answers = await suite(app, own.get(setting)!, [...own.values()]);
    const counted: Run['counted'] = {};
    for (const v of (await app.metrics.graphqlOperations.get()).values) {
      const engine = v.labels.engine as Engine;
      counted[engine] = (counted[engine] ?? 0) + v.value;
    }
    const lines = log.lines.filter((l) => l.transport === 'rest' || l.transport === 'graphql');
    runs.set(setting, { answers, engines: lines.map((l) => l.engine), counted, lines });
  }
});

afterAll(async () => {
  for (const app of apps) await app.close();
});

/**
 * The contract suite, as alice: reads of the seeded portfolio A1 (each run more than once, so that
 * graphql-jit gets its turn), and writes in a portfolio of the run's own, so that no run sees
 * another's records.
 */
async function suite(app: FastifyInstance, own: string, portfolios: string[]): Promise<Run['answers']> {
  const { A } = seeded.demo.orgs;
  const api = client(app, seeded.demo.users.alice.apiKey);
  const answers = new Map<string, Res[]>();
  // The runs' own ids become placeholders, so runs compare equal.
  const placeholders = new Map<string, string>(portfolios.map((id) => [id, '<portfolio>']));
  const keep = (what: string, r: Res) => {
    const list = answers.get(what) ?? [];
    list.push(r);
    answers.set(what, list);
    return r;
  };
  const times = async (n: number, what: string, send: () => Promise<Res>) => {
    for (let i = 0; i < n; i++) keep(what, await send());
  };
  const a1 = { orgId: A.id, portfolioId: A.portfolios.A1 };
  const mine = { orgId: A.id, portfolioId: own };

  // REST reads.
  await times(2, 'GET /organizations/v1', () => api.get('/organizations/v1'));
  await times(2, 'GET /portfolios/v1', () => api.get('/portfolios/v1', { orgId: A.id }));
  await times(2, 'GET /users/v1', () => api.get('/users/v1', { orgId: A.id }));
  await times(2, 'GET /projects/v1/schema', () => api.get('/projects/v1/schema', { orgId: A.id }));
  await times(2, 'GET /projects/v1', () => api.get('/projects/v1', { ...a1, limit: 5 }));
  await times(2, 'GET /contacts/v1, second page', async () => {
    const first = await api.get('/contacts/v1', { ...a1, limit: 2 });
    return api.get('/contacts/v1', { ...a1, limit: 2, startKey: first.body.nextKey });
  });
  const someProject = (await api.get('/projects/v1', { ...a1, limit: 1 })).body.items[0].id;
  await times(2, 'GET /projects/v1/:id/contacts', () =>
    api.get(`/projects/v1/${someProject}/contacts`, { ...a1, limit: 3 }),
  );
  await times(1, 'GET /projects/v1, refused limit', () => api.get('/projects/v1', { ...a1, limit: 0 }));

  // GraphQL reads, each text three times: cold, then hot.
  const gql = (what: string, query: string, variables: Record<string, unknown> = {}) =>
    times(3, what, () => api.gql(query, variables));
  await gql('nested query', NESTED_QUERY, { ...a1, projects: 5, contacts: 3, parcels: 2 });
  await gql('first page', FIRST_PAGE_QUERY, { ...a1, first: 4 });
  await gql('organizations', 'query Orgs { organizations { id name portfolios { id name } } }');
  await gql(
    'node(id), fragments and aliases',
    `query N($id: ID!) { n: node(id: $id) { __typename id ... on Project { createdAt values { propertyId } } } }`,
    { id: someProject },
  );
  await gql('a variable of the wrong type', FIRST_PAGE_QUERY.replace('FirstPage', 'Wrong'), {
    ...a1,
    first: 'many',
  });
  await gql('a mutation refused with userErrors', REFUSED_CREATE, a1);

  // Writes, in the run's own portfolio.
  const project = keep(
    'POST /projects/v1',
    await api.post('/projects/v1', { properties: { name: { text: 'Engine test' } } }, mine),
  );
  const contact = keep(
    'POST /contacts/v1',
    await api.post('/contacts/v1', { properties: { first_name: { text: 'Ada' } } }, mine),
  );
  placeholders.set(project.body.id, '<project>');
  placeholders.set(contact.body.id, '<contact>');
  const p = project.body.id;
  keep(
    'PUT /projects/v1/:id',
    await api.put(`/projects/v1/${p}`, { properties: { name: { text: 'B' } } }, mine),
  );
  keep(
    'POST /projects/v1/:id/contacts',
    await api.post(`/projects/v1/${p}/contacts`, { contactId: contact.body.id }, mine),
  );
  await times(2, 'GET /projects/v1/:id/contacts, own', () =>
    api.get(`/projects/v1/${p}/contacts`, { ...mine, limit: 5 }),
  );
  await times(2, 'GET /projects/v1, own', () => api.get('/projects/v1', { ...mine, limit: 5 }));
  await times(3, 'updateProject', () =>
    api.gql(
      `mutation U($input: UpdateRecordInput!) { updateProject(input: $input) {
        project { id updatedAt properties } userErrors { code message } } }`,
      { input: { ...mine, id: p, properties: { capacity_mw: { number: 12.5 } } } },
    ),
  );
  keep(
    'DELETE /projects/v1/:id/contacts/:contactId',
    await api.delete(`/projects/v1/${p}/contacts/${contact.body.id}`, mine),
  );
  keep('DELETE /projects/v1/:id', await api.delete(`/projects/v1/${p}`, mine));
  keep(
    'PUT /projects/v1/:id, gone',
    await api.put(`/projects/v1/${p}`, { properties: { name: { text: 'C' } } }, mine),
  );
  return new Map(
    [...answers].map(([what, rs]) => [
      what,
      rs.map((r) => ({ status: r.status, body: normalized(r.raw, placeholders) })),
    ]),
  );
}

const REFUSED_CREATE = `mutation C($orgId: ID!, $portfolioId: ID!) { createProject(input: { orgId: $orgId,
  portfolioId: $portfolioId, properties: { name: { text: "" }, website: { text: "not a url" } } }) {
  project { id } userErrors { code message propertyId path } } }`;

const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
/** Members whose values are opaque and hold a record's id and time (cursors). */
const OPAQUE = new Set(['cursor', 'endCursor', 'startCursor', 'nextKey']);

/** A raw answer with the run's own ids as placeholders, and its times and cursors blanked. */
function normalized(raw: string, placeholders: Map<string, string>): unknown {
  let text = raw;
  for (const [id, name] of placeholders) text = text.replaceAll(id, name);
  text = text.replace(TIMESTAMP, '<time>');
  if (text === '') return '';
  return JSON.parse(text, (key, value) =>
    OPAQUE.has(key) && typeof value === 'string' ? '<cursor>' : value,
  );
}

describe('the same contract with any one engine off', () => {
  test.for(['plan off', 'jit off', 'js off'] as const)(
    '%s: every answer equals the all-on answer',
    (setting) => {
      const all = runs.get('all on')!;
      const off = runs.get(setting)!;
      expect([...off.answers.keys()]).toEqual([...all.answers.keys()]);
      for (const [what, answers] of all.answers) expect(off.answers.get(what), what).toEqual(answers);
    },
  );

  test('the suite is the contract: it reads data, writes, and meets refusals', () => {
    const all = runs.get('all on')!.answers;
    expect(all.get('nested query')![0].status).toBe(200);
    expect(JSON.stringify(all.get('nested query')![0].body)).toContain('"nodes":[{');
    expect(all.get('POST /projects/v1')![0].status).toBe(200);
    expect(all.get('GET /projects/v1, own')![0].body).toMatchObject({ items: [{ id: '<project>' }] });
    expect(all.get('GET /projects/v1/:id/contacts, own')![0].body).toMatchObject({
      items: [{ id: '<contact>' }],
    });
    expect(all.get('PUT /projects/v1/:id, gone')![0].status).toBe(404);
    expect(all.get('GET /projects/v1, refused limit')![0].status).toBe(400);
    expect(all.get('a variable of the wrong type')![0].status).toBe(400);
    expect(JSON.stringify(all.get('a mutation refused with userErrors')![0].body)).toContain(
      'userErrors":[{',
    );
  });
});

describe('the engine that answered is recorded', () => {
  const expected: Record<Setting, { seen: Engine[]; never: Engine[] }> = {
    'all on': { seen: ['plan', 'jit', 'js'], never: [] },
    'plan off': { seen: ['jit', 'js'], never: ['plan'] },
    'jit off': { seen: ['plan', 'js'], never: ['jit'] },
    'js off': { seen: ['plan', 'jit'], never: ['js'] },
  };

  test.for(Object.keys(SETTINGS) as Setting[])('%s: in the access log and the metric', (setting) => {
    const run = runs.get(setting)!;
    const logged: Partial<Record<Engine, number>> = {};
    for (const e of run.engines) if (e) logged[e] = (logged[e] ?? 0) + 1;
    for (const e of expected[setting].seen) expect(logged[e], `${e} in the log`).toBeGreaterThan(0);
    for (const e of expected[setting].never) expect(logged[e], `${e} in the log`).toBeUndefined();
    // Every operation the executor ran is counted once, by the engine its log line names.
    expect(run.counted).toEqual(logged);
    // Only a request refused before the executor ran it (the REST limit of 0) has no engine.
    const none = run.lines.filter((l) => !l.engine);
    expect(none.map((l) => [l.operation, l.status])).toEqual([['listProjects', 400]]);
    // `planned` stays what it was: the plan answered.
    for (const l of run.lines) expect(l.planned === true, l.operation).toBe(l.engine === 'plan');
  });
});

describe('turning engines off', () => {
  test('with graphql-js off, an operation graphql-jit cannot compile is refused with 400, not run', async () => {
    const { A } = seeded.demo.orgs;
    // graphql-jit never compiles a variable of a recursive input type (graphql/jit.ts).
    const query = `query F($id: ID!, $filter: RecordFilter) {
      node(id: $id) { ... on Portfolio { projects(first: 2, filter: $filter) { totalCount } } } }`;
    const variables = { id: A.portfolios.A1, filter: null };
    for (const [i, setting] of (Object.keys(SETTINGS) as Setting[]).entries()) {
      const api = client(apps[i], seeded.demo.users.alice.apiKey);
      const r = await api.gql(query, variables);
      if (setting !== 'js off') {
        expect(r.status, setting).toBe(200);
        expect(r.body.data.node.projects.totalCount).toBeGreaterThan(0);
        continue;
      }
      expect(r.status).toBe(400);
      expect(r.body.data).toBeUndefined();
      expect(r.body.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(
            /compiled operations only \(GRAPHQL_JS=0\).*write the filter into the document/,
          ),
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      ]);
    }
  });

  test('a configuration that nothing could write with is refused at startup', async () => {
    const message = /GRAPHQL_JIT=0, GRAPHQL_JS=0\): no engine is left to run mutations/;
    expect(() => loadConfig({ GRAPHQL_JIT: '0', GRAPHQL_JS: '0' })).toThrow(message);
    await expect(
      buildApp({ database: seeded.database, graphqlEngines: { jit: false, js: false } }),
    ).rejects.toThrow(message);
    expect(loadConfig({}).graphqlEngines).toEqual({ plan: true, jit: true, js: true });
    expect(loadConfig({ GRAPHQL_JIT: '0' }).graphqlEngines).toEqual({ plan: true, jit: false, js: true });
    expect(loadConfig({ GRAPHQL_JS: '0', GRAPHQL_PLANS: '0' })).toMatchObject({
      graphqlPlans: false,
      graphqlEngines: { plan: false, jit: true, js: false },
    });
  });

  test('graphqlPlans stays an alias of the plan setting; graphqlEngines.plan wins', () => {
    const schema = buildSchema();
    const engines = (opts: ConstructorParameters<typeof Executor>[2]) =>
      new Executor(schema, DEFAULT_LIMITS, opts).engines;
    expect(engines({})).toEqual({ plan: true, jit: true, js: true });
    expect(engines({ plans: false })).toEqual({ plan: false, jit: true, js: true });
    expect(engines({ plans: false, engines: { plan: true } }).plan).toBe(true);
    expect(engines({ engines: { plan: false, js: false } })).toEqual({ plan: false, jit: true, js: false });
  });
});

describe('the settings reach the server process', () => {
  const timeout = onCitus ? 600_000 : 120_000;

  test('GRAPHQL_JIT=0 with GRAPHQL_JS=0 stops the server before it starts, saying why', {
    timeout,
  }, async () => {
    // On an in-memory database, so that a server that did start would touch no data.
    const started = startServer({
      GRAPHQL_JIT: '0',
      GRAPHQL_JS: '0',
      DATABASE_URL: '',
      SDG_DATA_DIR: 'memory://',
    });
    await expect(started).rejects.toThrow(
      /failed to start: graphql-jit and graphql-js are both off \(GRAPHQL_JIT=0, GRAPHQL_JS=0\)/,
    );
  });

  test('GRAPHQL_JIT=0 and GRAPHQL_JS=0 each keep their engine out of the access log', {
    timeout,
  }, async () => {
    const storage = await serverStorage();
    try {
      for (const [setting, engine] of [
        ['GRAPHQL_JIT', 'js'],
        ['GRAPHQL_JS', 'jit'],
      ] as const) {
        const server = await storage.start({ LOG_LEVEL: 'info', [setting]: '0' });
        try {
          const key = server.keys.alice;
          // Twice: the second run of a document is the one graphql-jit compiles when both are on.
          for (let i = 0; i < 2; i++) {
            const r = await call(server.url, key, 'POST', '/graphql', { query: '{ organizations { id } }' });
            expect(r.status).toBe(200);
          }
          await new Promise((r) => setTimeout(r, 100)); // the access line is written after the response
          const engines = [...server.output().matchAll(/"engine":"(\w+)"/g)].map((m) => m[1]);
          expect(engines, setting).toEqual([engine, engine]);
        } finally {
          server.child.kill('SIGTERM');
          await server.exited;
        }
      }
    } finally {
      await storage.cleanup();
    }
  });
});
