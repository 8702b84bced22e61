import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as formatsModule from 'ajv-formats';
import { buildApp } from '../src/app.js';
import { ERROR_STATUS } from '../src/errors.js';
import { MAX_PAGE_SIZE } from '../src/pagination/connection.js';
import { METHOD_EXPLANATIONS, REST_ROUTES, type RestRoute } from '../src/rest/routes.js';
import { openTestDatabase } from './helpers/database.js';
import { describe, expect, type TestEnv, test } from './helpers/fixtures.js';
import { type Client, client, type Res } from './helpers/http.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives as `.default`.
const addFormats = ((formatsModule as any).default?.default ??
  (formatsModule as any).default) as typeof import('ajv-formats').default;

type Json = Record<string, any>;
const toDocPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const key = (r: RestRoute) => `${r.method} ${r.path}`;

let doc: Json;
let ajv: Ajv2020;

/** The served document, fetched once per file, with an Ajv that resolves its $refs. */
async function loadDoc(env: TestEnv): Promise<Json> {
  if (doc) return doc;
  const r = await env.as.anon.get('/openapi.json');
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  doc = r.body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  return doc;
}

/** Validates a value against the schema at a JSON pointer of the served document. */
function matches(ptr: string, value: unknown): string | null {
  const validate = ajv.getSchema(`openapi.json#${ptr}`);
  if (!validate) throw new Error(`no schema at ${ptr}`);
  return validate(value) ? null : ajv.errorsText(validate.errors, { separator: '\n' });
}

const op = (r: RestRoute) => doc.paths[toDocPath(r.path)]?.[r.method.toLowerCase()];

/** Operation id → statuses really seen from the server, each matched against the document. */
const seen = new Map<string, Set<number>>();

/** Checks one real response against the document: its status is documented and its body matches. */
function expectDocumented(route: RestRoute, res: Res, what: string) {
  const o = op(route);
  const documented = o.responses[String(res.status)];
  expect(
    documented,
    `${what}: status ${res.status} is not documented (${res.raw.slice(0, 200)})`,
  ).toBeDefined();
  const ptr = documented.$ref
    ? `${documented.$ref.slice(1)}/content/application~1json/schema`
    : `/${pointer('paths', toDocPath(route.path), route.method.toLowerCase(), 'responses', String(res.status))}/content/application~1json/schema`;
  const response = documented.$ref ? doc.components.responses[documented.$ref.split('/').pop()] : documented;
  if (response.content) {
    expect(res.headers['content-type'], what).toMatch(/^application\/json/);
    expect(matches(ptr, res.body), `${what}: ${res.raw.slice(0, 300)}`).toBeNull();
  } else {
    expect(res.raw, `${what}: documented as empty`).toBe('');
  }
  const id = o.operationId as string;
  seen.set(id, (seen.get(id) ?? new Set()).add(res.status));
}

/** Checks a request body against the operation's documented request schema. */
function bodyMatches(route: RestRoute, body: unknown): string | null {
  return matches(
    `/${pointer('paths', toDocPath(route.path), route.method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}`,
    body,
  );
}

interface Req {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

function url(route: RestRoute, params: Record<string, string> = {}) {
  return route.path.replace(/:(\w+)/g, (_, name) => {
    if (!(name in params)) throw new Error(`${key(route)} needs ${name}`);
    return encodeURIComponent(params[name]);
  });
}

const call = (
  who: Client,
  route: RestRoute,
  req: Req,
  extra: { body?: unknown; headers?: Record<string, string> } = {},
) =>
  who.send(route.method, url(route, req.params), {
    query: req.query,
    body: 'body' in extra ? extra.body : req.body,
    headers: extra.headers,
  });

// The first test of a file also waits for the file's seeded database: slow on a busy machine.
describe('GET /openapi.json', () => {
  test('is served without a key and is a valid OpenAPI 3.1 document (openapi-schema-validator)', {
    timeout: 120_000,
  }, async ({ env }) => {
    await loadDoc(env);
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors, JSON.stringify(result.errors, null, 1)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    // Every schema is also valid JSON Schema 2020-12 under Ajv's strict mode (no unknown keywords).
    const strict = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
    addFormats(strict);
    const defs = JSON.parse(
      JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
    );
    strict.addSchema({ $id: 'c', $defs: defs });
    for (const name of Object.keys(defs)) {
      expect(() => strict.compile({ $ref: `c#/$defs/${name}` }), name).not.toThrow();
    }
  });

  test('describes exactly the REST routes, with the parameters and bodies the adapter validates', async ({
    env,
  }) => {
    await loadDoc(env);
    const routes = new Set(REST_ROUTES.map(key));
    const documented = Object.entries(doc.paths).flatMap(([p, ops]: [string, any]) =>
      Object.keys(ops)
        .filter((m) => m !== 'description')
        .map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    expect(new Set(documented)).toEqual(routes);
    expect(documented).toHaveLength(routes.size);

    const ids = new Set<string>();
    for (const route of REST_ROUTES) {
      const o = op(route);
      // The app really serves what the document lists.
      expect(env.app.hasRoute({ method: route.method, url: route.path }), key(route)).toBe(true);
      expect(ids.has(o.operationId), o.operationId).toBe(false);
      ids.add(o.operationId);
      const names = o.parameters.map((p: Json) =>
        p.$ref ? doc.components.parameters[p.$ref.split('/').pop()].name : p.name,
      );
      const expected = [
        ...[...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]),
        ...(route.query.orgId ? ['orgId'] : []),
        ...(route.query.portfolioId ? ['portfolioId'] : []),
        ...(route.query.paging ? ['limit', 'startKey'] : []),
        ...(route.method === 'PUT' ? ['If-Match'] : []),
      ];
      expect(names, key(route)).toEqual(expected);
      if (route.body) {
        const schema = o.requestBody.content['application/json'].schema;
        expect(Object.keys(schema.properties).sort(), key(route)).toEqual(Object.keys(route.body).sort());
        expect(schema.required.sort()).toEqual(Object.keys(route.body).sort());
        expect(schema.additionalProperties).toBe(false);
      } else {
        expect(o.requestBody, key(route)).toBeUndefined();
      }
      expect(o.responses['200'], key(route)).toBeDefined();
      expect(o.responses['401'], key(route)).toBeDefined();
      expect(o.security ?? doc.security).toEqual([{ ApiKey: [] }]);
    }
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    expect(doc.components.parameters.limit.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
    });
  });

  test('every error response carries the error body, with exactly the codes of its status', async ({
    env,
  }) => {
    await loadDoc(env);
    const statuses = new Set(Object.values(ERROR_STATUS));
    expect(Object.keys(doc.components.responses).sort()).toEqual(
      [...statuses].map((s) => `Error${s}`).sort(),
    );
    for (const status of statuses) {
      const codes = Object.entries(ERROR_STATUS)
        .filter(([, s]) => s === status)
        .map(([c]) => c);
      const schema = doc.components.schemas[`Error${status}`];
      expect(schema.properties.error.properties.code.enum).toEqual(codes);
      expect(doc.components.responses[`Error${status}`].content['application/json'].schema.$ref).toBe(
        `#/components/schemas/Error${status}`,
      );
    }
    // Every documented error of every operation points at one of them.
    for (const ops of Object.values(doc.paths) as Json[]) {
      for (const [m, o] of Object.entries(ops)) {
        if (m === 'description') continue;
        for (const [status, r] of Object.entries(o.responses) as [string, Json][]) {
          if (status !== '200') expect(r.$ref).toBe(`#/components/responses/Error${status}`);
        }
      }
    }
  });

  test('property value objects are a oneOf: each real value matches exactly one variant', async ({ env }) => {
    await loadDoc(env);
    const variants = doc.components.schemas.PropertyValue.oneOf.map((s: Json) => s.$ref.slice(1));
    const good = [
      { text: 'x' },
      { number: 1.5 },
      { date: { start: '2026-01-02' } },
      { select: ['a'], labels: ['A'] },
      { people: ['usr_1'], labels: ['Alice'] },
    ];
    for (const v of good) {
      expect(
        variants.filter((p: string) => matches(p, v) === null),
        JSON.stringify(v),
      ).toHaveLength(1);
      expect(matches('/components/schemas/PropertyValue', v)).toBeNull();
    }
    for (const v of [
      {},
      { text: 'x', number: 1 },
      { date: { start: '2026-01-02', end: '2026-02-01' } },
      { people: ['a', 'b'] },
    ]) {
      expect(matches('/components/schemas/PropertyValue', v), JSON.stringify(v)).not.toBeNull();
    }
  });
});

/** Ids in the demo data whose link lists are not empty, so every page checked holds items. */
async function demoIds(env: TestEnv) {
  const { A } = env.demo.orgs;
  const r = await env.as.alice.gql(
    `query($org: ID!, $pf: ID!) { organization(id: $org) { portfolio(id: $pf) {
      projects(first: 50) { nodes { id parcels(first: 1) { nodes { id contacts(first: 1) { nodes { id } } } } contacts(first: 1) { nodes { id } } } }
    } } }`,
    { org: A.id, pf: A.portfolios.A1 },
  );
  const projects = r.body.data.organization.portfolio.projects.nodes;
  const p = projects.find((x: Json) => x.parcels.nodes.length && x.contacts.nodes.length);
  const parcel = projects.flatMap((x: Json) => x.parcels.nodes).find((x: Json) => x.contacts.nodes.length);
  return {
    project: p.id as string,
    contactOfProject: p.contacts.nodes[0].id as string,
    parcel: parcel.id as string,
    contactOfParcel: parcel.contacts.nodes[0].id as string,
  };
}

describe('real responses of every route match the document', () => {
  test('success and error responses, route by route', { timeout: 120_000 }, async ({ env }) => {
    await loadDoc(env);
    const { A } = env.demo.orgs;
    const scope = { orgId: A.id, portfolioId: A.portfolios.A1 };
    const ids = await demoIds(env);
    const alice = env.demo.users.alice.uid;
    const find = (method: string, path: string) =>
      REST_ROUTES.find((r) => r.method === method && r.path === path)!;

    // Records this test owns, so writes and deletes leave the demo data alone.
    const created = await call(env.as.alice, find('POST', '/projects/v1'), {
      query: scope,
      body: { properties: { name: { text: 'OpenAPI check' } } },
    });
    const contact = await call(env.as.alice, find('POST', '/contacts/v1'), {
      query: scope,
      body: { properties: { first_name: { text: 'Olive' } } },
    });
    expect([created.status, contact.status]).toEqual([200, 200]);
    const own = { project: created.body.id as string, contact: contact.body.id as string };

    const everyValueKind = {
      name: { text: 'Mesa Verde Solar' },
      website: { text: 'https://mesa.example/' },
      developer_email: { text: 'dev@mesa.example' },
      capacity_mw: { number: 120.5 },
      cod: { date: { start: '2027-06-30' } },
      stage: { select: ['permitting'] },
      offtake: { select: ['ppa', 'rec'] },
      owner: { people: [alice] },
    };

    /** A valid request for each route (alice, org A, portfolio A1). */
    const plan: Record<string, Req> = {
      'GET /organizations/v1': {},
      'GET /portfolios/v1': { query: { orgId: A.id } },
      'GET /users/v1': { query: { orgId: A.id } },
      'GET /projects/v1/schema': { query: { orgId: A.id } },
      'GET /contacts/v1/schema': { query: { orgId: A.id } },
      'GET /parcels/v1/schema': { query: { orgId: A.id } },
      'GET /projects/v1': { query: scope },
      'POST /projects/v1': { query: scope, body: { properties: everyValueKind } },
      'PUT /projects/v1/:id': {
        params: { id: own.project },
        query: scope,
        body: {
          properties: { ...everyValueKind, capacity_mw: { number: null }, stage: { select: ['operating'] } },
        },
      },
      'DELETE /projects/v1/:id': { params: { id: own.project }, query: scope },
      'GET /contacts/v1': { query: scope },
      'POST /contacts/v1': {
        query: scope,
        body: {
          properties: {
            first_name: { text: 'Rosa' },
            last_name: { text: 'Diaz' },
            contact_type: { select: ['broker'] },
          },
        },
      },
      'PUT /contacts/v1/:id': {
        params: { id: own.contact },
        query: scope,
        body: { properties: { last_name: { text: 'Ortega' }, acres_owned: { number: 320 } } },
      },
      'DELETE /contacts/v1/:id': { params: { id: own.contact }, query: scope },
      'PUT /parcels/v1/:id': {
        params: { id: ids.parcel },
        query: scope,
        body: {
          properties: { acreage: { number: 41.25 }, option_expiry: { date: { start: '2028-01-31' } } },
        },
      },
      'GET /projects/v1/:id/contacts': { params: { id: ids.project }, query: scope },
      'GET /projects/v1/:id/parcels': { params: { id: ids.project }, query: scope },
      'GET /parcels/v1/:id/contacts': { params: { id: ids.parcel }, query: scope },
      'GET /parcels/v1/:id/projects': { params: { id: ids.parcel }, query: scope },
      'GET /contacts/v1/:id/projects': { params: { id: ids.contactOfProject }, query: scope },
      'GET /contacts/v1/:id/parcels': { params: { id: ids.contactOfParcel }, query: scope },
      'POST /projects/v1/:id/contacts': {
        params: { id: own.project },
        query: scope,
        body: { contactId: own.contact },
      },
      'DELETE /projects/v1/:id/contacts/:contactId': {
        params: { id: own.project, contactId: own.contact },
        query: scope,
      },
      'POST /parcels/v1/:id/contacts': {
        params: { id: ids.parcel },
        query: scope,
        body: { contactId: own.contact },
      },
      'DELETE /parcels/v1/:id/contacts/:contactId': {
        params: { id: ids.parcel, contactId: own.contact },
        query: scope,
      },
    };
    // A new route without a planned request fails here, so the check keeps covering every route.
    expect(new Set(Object.keys(plan))).toEqual(new Set(REST_ROUTES.map(key)));

    const big = JSON.stringify({ properties: { name: { text: 'x'.repeat(1_100_000) } } });
    // Errors first, while every record still exists.
    for (const route of REST_ROUTES) {
      const req = plan[key(route)];
      const check = (res: Res, status: number, what: string) => {
        expect(res.status, `${key(route)} ${what}: ${res.raw.slice(0, 200)}`).toBe(status);
        expectDocumented(route, res, `${key(route)} ${what}`);
      };
      check(await call(env.as.anon, route, req), 401, 'without a key');
      check(
        await call(client(env.app, 'sdg_notAKeyThatExists0000000000000000000000'), route, req),
        401,
        'unknown key',
      );
      if (route.query.orgId) {
        check(
          await call(env.as.alice, route, { ...req, query: { ...req.query, orgId: undefined } }),
          400,
          'no orgId',
        );
        check(
          await call(env.as.alice, route, { ...req, query: { ...req.query, orgId: 'org_nope' } }),
          404,
          'unknown org',
        );
        check(await call(env.as.nora, route, req), 404, "another tenant's org");
      }
      if (route.query.portfolioId)
        check(
          await call(env.as.alice, route, { ...req, query: { ...req.query, portfolioId: ' ' } }),
          400,
          'blank portfolioId',
        );
      if (route.query.paging) {
        for (const limit of ['0', String(MAX_PAGE_SIZE + 1), 'ten'])
          check(
            await call(env.as.alice, route, { ...req, query: { ...req.query, limit } }),
            400,
            `limit=${limit}`,
          );
        check(
          await call(env.as.alice, route, { ...req, query: { ...req.query, startKey: 'garbage' } }),
          400,
          'bad startKey',
        );
      }
      if (req.params?.id) {
        const unknown = { ...req, params: { ...req.params, id: `${req.params.id.split('_')[0]}_nope` } };
        check(await call(env.as.alice, route, unknown), 404, 'unknown id');
      }
      if (route.method !== 'GET') check(await call(env.as.vera, route, req), 403, 'viewer writes');
      if (route.method === 'PUT')
        check(
          await call(env.as.alice, route, req, { headers: { 'if-match': '"1"' } }),
          412,
          'a stale If-Match',
        );
      if (route.body) {
        expect(bodyMatches(route, req.body), `${key(route)} planned body`).toBeNull();
        for (const bad of [{}, { ...(req.body as Json), extra: 1 }]) {
          expect(
            bodyMatches(route, bad),
            `${key(route)} documented schema rejects ${JSON.stringify(bad)}`,
          ).not.toBeNull();
          check(
            await call(env.as.alice, route, req, { body: bad }),
            400,
            `body ${JSON.stringify(bad).slice(0, 40)}`,
          );
        }
        check(await call(env.as.alice, route, req, { body: '{"properties": ' }), 400, 'malformed JSON');
        check(await call(env.as.alice, route, req, { body: big }), 413, 'body over the limit');
        check(
          await call(env.as.alice, route, req, {
            body: 'properties',
            headers: { 'content-type': 'application/xml' },
          }),
          415,
          'an XML body',
        );
      }
    }

    // Then the successes, writes before the deletes that end the records' lives.
    const order = [...REST_ROUTES].sort(
      (a, b) =>
        Number(a.method === 'DELETE') - Number(b.method === 'DELETE') ||
        Number(!a.path.includes('contacts/:')) - Number(!b.path.includes('contacts/:')),
    );
    const kinds = new Set<string>();
    for (const route of order) {
      const req = plan[key(route)];
      const res = await call(env.as.alice, route, req);
      expect(res.status, `${key(route)}: ${res.raw.slice(0, 300)}`).toBe(200);
      expectDocumented(route, res, key(route));
      if (route.returns === 'page') {
        expect(
          res.body.items.length,
          `${key(route)} returned an empty page; nothing was checked`,
        ).toBeGreaterThan(0);
        // The next page, through nextKey → startKey.
        const first = await call(env.as.alice, route, { ...req, query: { ...req.query, limit: 1 } });
        expectDocumented(route, first, `${key(route)} limit=1`);
        if (first.body.nextKey) {
          const next = await call(env.as.alice, route, {
            ...req,
            query: { ...req.query, limit: 1, startKey: first.body.nextKey },
          });
          expectDocumented(route, next, `${key(route)} second page`);
          expect(next.body.items[0].id).not.toBe(first.body.items[0].id);
        }
      }
      const records =
        route.returns === 'page' ? res.body.items : route.returns === 'record' ? [res.body] : [];
      for (const rec of records)
        for (const v of Object.values(rec.properties) as Json[])
          kinds.add(Object.keys(v).find((k) => k !== 'labels')!);
    }
    // Every variant of the value oneOf, and the read-only location, appeared in a real response.
    expect([...kinds].sort()).toEqual(['date', 'location', 'number', 'people', 'select', 'text']);

    // Every operation answered its success and each error this test can provoke; 429, 500 and 503
    // are checked below or need a rate limiter / a broken database.
    for (const route of REST_ROUTES) {
      const o = op(route);
      const provokable = Object.keys(o.responses)
        .map(Number)
        .filter((s) => ![429, 500, 503].includes(s));
      expect([...(seen.get(o.operationId) ?? [])].sort(), key(route)).toEqual(
        expect.arrayContaining(provokable),
      );
    }
  });

  test('with the database gone, every route answers a documented 5xx error body', {
    timeout: 120_000,
  }, async ({ env }) => {
    await loadDoc(env);
    const database = await openTestDatabase();
    const app = await buildApp({ database });
    const somebody = client(app, 'sdg_aKeyThatWouldNeedTheDatabase00000000000');
    await database.close();
    try {
      for (const route of REST_ROUTES) {
        const params = Object.fromEntries([...route.path.matchAll(/:(\w+)/g)].map((m) => [m[1], 'x_1']));
        const res = await call(somebody, route, {
          params,
          query: { orgId: 'org_1', portfolioId: 'pf_1' },
          body: route.body
            ? Object.fromEntries(Object.entries(route.body).map(([k, t]) => [k, t === 'object' ? {} : 'x']))
            : undefined,
        });
        expect([500, 503], key(route)).toContain(res.status);
        expectDocumented(route, res, `${key(route)} without a database`);
      }
    } finally {
      await app.close();
    }
  });

  test('refused methods answer 405 with Allow = the documented methods, and the documented error body', async ({
    env,
  }) => {
    await loadDoc(env);
    for (const [p, ops] of Object.entries(doc.paths) as [string, Json][]) {
      const path = p.replace(/\{(\w+)\}/g, 'x_1');
      const allow = Object.keys(ops)
        .filter((m) => m !== 'description')
        .map((m) => m.toUpperCase());
      const res = await env.as.alice.send('PATCH', path, { query: { orgId: 'org_1' } });
      expect(res.status, p).toBe(405);
      expect(String(res.headers.allow).split(', ').sort(), p).toEqual(allow.sort());
      expect(matches('/components/schemas/Error405', res.body), p).toBeNull();
      if (METHOD_EXPLANATIONS[p.replace(/\{(\w+)\}/g, ':$1')]) expect(ops.description, p).toMatch(/405/);
    }
    // Parcels are never created here: POST /parcels/v1 is refused too.
    const r = await env.as.alice.post('/parcels/v1', { properties: {} });
    expect(r.status).toBe(405);
    expect(matches('/components/schemas/Error405', r.body)).toBeNull();
  });
});

describe('/docs', () => {
  test('serves Swagger UI from local assets only, without a key', async ({ env }) => {
    const page = await env.as.anon.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
    const refs = [...page.raw.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) {
      if (ref.startsWith('data:')) continue;
      // Relative, so the page works under any path prefix, and never another host.
      expect(ref, ref).not.toMatch(/^(\/|[a-z]+:)/i);
      const res = await env.as.anon.get(`/${ref}`);
      expect(res.status, ref).toBe(200);
    }
    expect((await env.as.anon.get('/docs/nothing.js')).status).toBe(404);
  });
});
