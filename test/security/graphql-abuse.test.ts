import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { Admission } from '../../src/http/admission.js';
import { loggerOptions } from '../../src/logger.js';
import { seededDatabase } from '../helpers/database.js';
import { type Client, client } from '../helpers/http.js';

/**
 * The GraphQL holes a black-box attack found (issue 12), each sent as the attacker sent it. Every
 * answer is a 4xx with a code from the closed set, and none of them writes an error-level log line
 * (a stack trace): they are the caller's mistakes, not faults.
 */
const seeded = seededDatabase();

let app: FastifyInstance;
let admission: Admission;
let alice: Client;
const lines: { level: number; msg: string; code?: string }[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  admission = new Admission({ slots: 1, maxWaitMs: 50 });
  app = await buildApp({ database: seeded.database, admission, logger: pino(loggerOptions('info'), sink) });
  alice = client(app, seeded.demo.users.alice.apiKey);
});
afterAll(async () => {
  await app?.close();
});

const code = (r: { body: any }) => r.body.errors?.[0]?.extensions?.code ?? r.body.error?.code;
const refused = (r: { status: number; body: any; raw: string }, expected: string, message?: RegExp) => {
  expect(r.status, r.raw.slice(0, 300)).toBe(400);
  expect(code(r)).toBe(expected);
  if (message) expect(r.body.errors[0].message).toMatch(message);
  expect(r.raw).not.toMatch(/stack|Maximum call stack|at [A-Za-z.]+ \(/);
};
const pf = () => seeded.demo.orgs.A.portfolios.A1;

describe('the cost and limit walk', () => {
  test('fragments that spread the next one twice, 24 deep, are refused (the walk is linear)', async () => {
    let doc = 'query{...F0}';
    for (let i = 0; i < 24; i++) doc += ` fragment F${i} on Query{...F${i + 1} ...F${i + 1}}`;
    doc += ' fragment F24 on Query{__typename}';
    refused(await alice.gql(doc), 'QUERY_TOO_COMPLEX', /selects 16777216 fields.*the limit is 2000/);
    // The same below the root: every field written out counts.
    doc = 'query{ viewer { ...V0 } }';
    for (let i = 0; i < 24; i++) doc += ` fragment V${i} on Viewer{...V${i + 1} ...V${i + 1}}`;
    doc += ' fragment V24 on Viewer{ user { id } }';
    refused(await alice.gql(doc), 'QUERY_TOO_COMPLEX', /selects 33554433 fields.*the limit is 2000/);
  });

  test('a variable default is a page size like any other (the literal 5000 was refused, the default was not)', async () => {
    const q = `query($n: Int = 5000, $pf: ID!) { node(id: $pf) { ... on Portfolio {
      projects(first: $n) { edges { node { contacts(first: $n) { totalCount } } } } } } }`;
    refused(await alice.gql(q, { pf: pf() }), 'QUERY_TOO_COMPLEX', /could return 25005000 nodes/);
    // Sent explicitly, the same values give the same answer.
    refused(await alice.gql(q, { pf: pf(), n: 5000 }), 'QUERY_TOO_COMPLEX', /could return 25005000 nodes/);
    // A small value sent for it is what counts.
    const ok = await alice.gql(q, { pf: pf(), n: 2 });
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
  });

  test('admission sees the cost of the defaults too: a heavy operation by default waits for its slot', async () => {
    // 5000 projects + 5000 × 5 contacts = 30,000 > 20,000: heavy. Its only slot is taken.
    const q = `query($n: Int = 5000, $pf: ID!) { node(id: $pf) { ... on Portfolio {
      projects(first: $n) { edges { node { contacts(first: 5) { totalCount } } } } } } }`;
    const held = await admission.acquire();
    try {
      const r = await alice.gql(q, { pf: pf() });
      expect(r.status).toBe(503);
      expect(code(r)).toBe('OVERLOADED');
      expect(r.headers['retry-after']).toBe('2');
    } finally {
      held();
    }
    expect((await alice.gql(q, { pf: pf() })).status).toBe(200);
    // The 503 is logged at warn, with its code.
    expect(lines.some((l) => l.level === 40 && l.code === 'OVERLOADED')).toBe(true);
  });

  test('1,600 conflicting aliases are refused by their count before graphql-js validates them', async () => {
    // Validation compares every pair of fields that share a response name: tens of milliseconds of
    // CPU for this document, had it been parsed and validated.
    const half = (first: string, second: string) =>
      Array.from({ length: 800 }, (_, i) => `a: ${i % 2 ? first : second}`).join(' ');
    const doc = `{ viewer { user { ${half('id', 'name')} } user { ${half('name', 'id')} } } }`;
    refused(
      await alice.gql(doc),
      'QUERY_TOO_COMPLEX',
      /^The query uses 1600 aliases \(fragments counted wherever they are spread\); the limit is 30\.$/,
    );
    // A second operation does not carry them past the count: every operation is held to it.
    const r = await alice.send('POST', '/graphql', {
      body: { query: `query Cheap { __typename } query Heavy ${doc}`, operationName: 'Cheap' },
    });
    refused(r, 'QUERY_TOO_COMPLEX', /^Operation "Heavy" uses 1600 aliases/);
  });

  test('aliases and lists inside introspection count', async () => {
    const aliased = Array.from({ length: 31 }, (_, i) => `a${i}: queryType { name }`).join(' ');
    refused(await alice.gql(`{ __schema { ${aliased} } }`), 'QUERY_TOO_COMPLEX', /31 aliases/);
    // 300 aliased introspections, as the attack sent them: refused by their aliases before parsing.
    const full = Array.from({ length: 300 }, (_, i) => `i${i}: __schema { types { name } }`).join(' ');
    refused(await alice.gql(`{ ${full} }`), 'QUERY_TOO_COMPLEX', /300 aliases.*the limit is 30/);
    // Under __schema { types } each type comes once, so its fields count the schema's total; a
    // field's type repeats, so fields under it count the longest list, times the lists above it:
    // 16 copies of types → fields → type → fields are within the root-field and alias limits, not the cost.
    const copies = Array.from(
      { length: 16 },
      (_, i) => `i${i}: __schema { types { fields { type { fields { name } } } } }`,
    );
    refused(await alice.gql(`{ ${copies.join(' ')} }`), 'QUERY_TOO_COMPLEX', /could return \d{6} nodes/);
    // GraphiQL's own introspection stays well within every limit.
    const r = await alice.gql('{ __schema { types { name fields { name args { name } } } } }');
    expect(r.body.errors).toBeUndefined();
  });
});

describe('caller mistakes get 4xx, not INTERNAL', () => {
  test('an unknown operationName', async () => {
    const r = await alice.send('POST', '/graphql', {
      body: { query: 'query A { viewer { user { id } } }', operationName: 'Nope' },
    });
    refused(r, 'BAD_REQUEST', /no operation named "Nope"; it has "A"/);
  });

  test('an APQ hash that does not match the query', async () => {
    const r = await alice.send('POST', '/graphql', {
      body: {
        query: '{ viewer { user { id } } }',
        extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } },
      },
    });
    refused(r, 'BAD_REQUEST', /sha does not match/);
  });

  test('a 20,000-deep not filter in a variable, and a 2,400-deep list literal', async () => {
    const deep = `${'{"not":'.repeat(20_000)}{"property":{"id":"name","text":{"eq":"x"}}}${'}'.repeat(20_000)}`;
    const query =
      'query($p: ID!, $f: RecordFilter) { node(id: $p) { ... on Portfolio { projects(filter: $f) { totalCount } } } }';
    const r = await alice.send('POST', '/graphql', {
      body: `{"query":${JSON.stringify(query)},"variables":{"p":"${pf()}","f":${deep}}}`,
    });
    refused(r, 'VALIDATION_FAILED', /Variable \$f nests objects and lists more than 32 levels/);
    refused(
      await alice.gql(`{ organization(id: ${'['.repeat(2400)}"x"${']'.repeat(2400)}) { id } }`),
      'QUERY_TOO_COMPLEX',
      /nests braces, brackets and parentheses more than 104 levels/,
    );
    // Deep, but within the parser's bound: the input-value bound answers.
    let lit = '{ property: { id: "name", text: { eq: "x" } } }';
    for (let i = 0; i < 40; i++) lit = `{ not: ${lit} }`;
    refused(
      await alice.gql(
        `query($p: ID!) { node(id: $p) { ... on Portfolio { projects(filter: ${lit}) { totalCount } } } }`,
        {
          p: pf(),
        },
      ),
      'VALIDATION_FAILED',
      /input value in the query nests objects and lists more than 32 levels/,
    );
  });

  test('DateTime values outside the years 0001–9999', async () => {
    const q =
      'query($p: ID!, $d: DateTime) { node(id: $p) { ... on Portfolio { projects(filter: { createdAt: { from: $d } }) { totalCount } } } }';
    for (const d of [
      '+275760-09-13T00:00:00.000Z',
      '+010000-01-01T00:00:00Z',
      '0000-12-31T00:00:00Z',
      '-000001-01-01T00:00:00Z',
    ]) {
      const r = await alice.gql(q, { p: pf(), d });
      refused(r, 'VALIDATION_FAILED', /DateTime/);
    }
    const literal = await alice.gql(
      'query($p: ID!) { node(id: $p) { ... on Portfolio { projects(filter: { createdAt: { to: "+275760-09-13T00:00:00.000Z" } }) { totalCount } } } }',
      { p: pf() },
    );
    refused(literal, 'GRAPHQL_VALIDATION_FAILED', /DateTime/);
    // The edges of the range are fine.
    for (const d of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z']) {
      const r = await alice.gql(q, { p: pf(), d });
      expect(r.body.errors, d).toBeUndefined();
    }
  });

  test('lone surrogates in filter and search strings', async () => {
    const q = `query($p: ID!, $s: String, $f: RecordFilter) { node(id: $p) { ... on Portfolio {
      projects(search: $s, filter: $f) { totalCount } } } }`;
    refused(
      await alice.gql(q, { p: pf(), s: 'ab\ud800' }),
      'VALIDATION_FAILED',
      /\$s holds text that is not valid Unicode/,
    );
    refused(
      await alice.gql(q, { p: pf(), f: { property: { id: 'name', text: { contains: '\udc00x' } } } }),
      'VALIDATION_FAILED',
      /\$f holds text/,
    );
    // A surrogate pair (an emoji) is valid text.
    expect((await alice.gql(q, { p: pf(), s: '☀️🌞' })).body.errors).toBeUndefined();
  });

  test('none of the refusals above wrote an error-level log line', () => {
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});
