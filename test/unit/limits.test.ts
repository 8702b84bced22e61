import {
  buildSchema,
  GraphQLError,
  getIntrospectionQuery,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  parse,
  visit,
} from 'graphql';
import { describe, expect, test } from 'vitest';
import {
  DEFAULT_LIMITS,
  enforceLimits,
  MAX_WALK_STEPS,
  measureRequest,
  type OperationMeasure,
} from '../../src/graphql/limits.js';
import { typeDefs } from '../../src/graphql/schema.js';
import { HEAVY_GRAPHQL_COST } from '../../src/http/admission.js';

/** The limit walk, on the real SDL and no database. Each refusal is QUERY_TOO_COMPLEX naming the limit. */
const schema = buildSchema(typeDefs);

const op = (query: string) => {
  const doc = parse(query, { noLocation: true });
  return { doc, op: getOperationAST(doc)! };
};
const measure = (query: string, vars: Record<string, unknown> = {}): OperationMeasure => {
  const { doc, op: o } = op(query);
  return measureRequest(schema, doc, o, vars);
};
const refusal = (query: string, vars: Record<string, unknown> = {}) => {
  const { doc, op: o } = op(query);
  try {
    enforceLimits(DEFAULT_LIMITS, schema, doc, o, vars);
  } catch (e) {
    expect(e).toBeInstanceOf(GraphQLError);
    expect((e as GraphQLError).extensions.code).toBe('QUERY_TOO_COMPLEX');
    return (e as GraphQLError).message;
  }
  throw new Error('the operation was accepted');
};
/** Fields, inline fragments and spreads in the document: the most a linear walk may visit. */
const selections = (query: string) => {
  let n = 0;
  visit(parse(query), {
    Field: () => void n++,
    InlineFragment: () => void n++,
    FragmentSpread: () => void n++,
  });
  return n;
};

describe('depth', () => {
  test('a cycle through links is refused past the limit', () => {
    let q = 'id';
    for (let i = 0; i < 8; i++)
      q = `contacts(first: 1) { edges { node { projects(first: 1) { edges { node { ${q} } } } } } }`;
    expect(refusal(`{ project(id: "prj_x") { ${q} } }`)).toMatch(/levels deep; the limit is 20/);
  });

  test('introspection is not counted against depth (GraphiQL works)', () => {
    const m = measure(
      '{ __schema { types { name fields { name type { kind ofType { kind ofType { kind ofType { kind ofType { kind ofType { kind ofType { kind ofType { name } } } } } } } } } } } }',
    );
    expect(m.depth).toBe(0);
  });

  test('a fragment counts at the depth where it is spread', () => {
    const m = measure(
      '{ viewer { ...V } } fragment V on Viewer { organizations { portfolios { projects(first: 1) { totalCount } } } }',
    );
    expect(m.depth).toBe(5);
  });
});

describe('cost: the nodes the response could hold', () => {
  test('page sizes multiply down the tree, counting variables', () => {
    expect(
      refusal(
        'query($n: Int) { project(id: "prj_x") { contacts(first: $n) { edges { node { projects(first: 5000) { totalCount } } } } } }',
        { n: 100 },
      ),
    ).toMatch(/could return 500100 nodes.*the limit is 100000/);
  });

  test('without first/last a connection counts the default page size (100)', () => {
    expect(
      refusal(
        '{ project(id: "prj_x") { contacts { edges { node { projects { edges { node { contacts(first: 20) { totalCount } } } } } } } } }',
      ),
    ).toMatch(/could return 210100 nodes/);
  });

  test('variable defaults count as sent, and a sent value replaces the default', () => {
    const q =
      'query($n: Int = 5000) { project(id: "prj_x") { contacts(first: $n) { edges { node { projects(last: $n) { totalCount } } } } } }';
    expect(measure(q).cost).toBe(5000 + 5000 * 5000);
    expect(measure(q, { n: 3 }).cost).toBe(3 + 9);
    // An explicit null is no page size: the default page size applies, as in the resolvers.
    expect(measure(q, { n: null }).cost).toBe(100 + 100 * 100);
  });

  test('a fragment costs its pages times the pages above each place it is spread', () => {
    const m = measure(`{ project(id: "p") {
      a: contacts(first: 10) { edges { node { ...C } } }
      b: contacts(first: 3) { nodes { ...C } } } }
      fragment C on Contact { parcels(first: 7) { totalCount } }`);
    expect(m.cost).toBe(10 + 70 + 3 + 21);
    expect(m.aliases).toBe(2);
  });

  test("GraphiQL's introspection query is well inside the cost limit, and not heavy", () => {
    const types = Object.keys(schema.getTypeMap()).length;
    const m = measure('{ __schema { types { name } } }');
    expect(m.cost).toBe(types);
    // GraphiQL's own query: well inside the cost limit, and not heavy (it never waits for a slot).
    const full = measure(getIntrospectionQuery());
    expect(full.cost).toBeGreaterThan(types);
    expect(full.cost).toBeLessThan(HEAVY_GRAPHQL_COST);
    // Its fragments on __Type are counted under types and anywhere else in one walk each.
    expect(full.steps).toBe(selections(getIntrospectionQuery()));
    expect(() =>
      enforceLimits(
        DEFAULT_LIMITS,
        schema,
        parse(getIntrospectionQuery()),
        op(getIntrospectionQuery()).op,
        {},
      ),
    ).not.toThrow();
  });

  test('a vector tile costs its bound on records, 20,000: five fit in one operation, six do not', () => {
    const tiles = (n: number) =>
      `{ node(id: "p") { ... on Portfolio { ${Array.from(
        { length: n },
        (_, i) => `t${i}: tile(layer: PARCELS, z: 0, x: 0, y: 0) { bytes }`,
      ).join(' ')} } } }`;
    expect(measure(tiles(1)).cost).toBe(20_000);
    const five = op(tiles(5));
    expect(() => enforceLimits(DEFAULT_LIMITS, schema, five.doc, five.op, {})).not.toThrow();
    expect(refusal(tiles(6))).toMatch(/could return 120000 nodes/);
  });

  test('counts stop at a ceiling, never Infinity or NaN, even under a zero page', () => {
    let doc = '{ project(id: "p") { contacts(first: 0) { nodes { ...F0 } } } }';
    for (let i = 0; i < 60; i++)
      doc += ` fragment F${i} on Contact { a${i}: parcels(first: 5000) { nodes { contacts(first: 5000) { nodes { ...F${i + 1} } } } } b${i}: parcels(first: 1) { nodes { contacts(first: 1) { nodes { ...F${i + 1} } } } } }`;
    doc += ' fragment F60 on Contact { id }';
    const m = measure(doc);
    expect(m.cost).toBe(0);
    const m2 = measure(doc.replace('first: 0', 'first: 1'));
    expect(Number.isFinite(m2.cost)).toBe(true);
    expect(m2.cost).toBeGreaterThan(DEFAULT_LIMITS.maxCost);
  });
});

describe('cost of introspection', () => {
  /** The schema's own counts, independent of the walk: totals and longest lists of each kind. */
  const types = Object.values(schema.getTypeMap());
  const withFields = types.filter((t) => isObjectType(t) || isInterfaceType(t));
  const fieldLists = withFields.map((t) => Object.values(t.getFields()));
  const totalFields = fieldLists.reduce((n, fs) => n + fs.length, 0);
  const totalArgs = fieldLists.flat().reduce((n, f) => n + f.args.length, 0);
  const longestFields = Math.max(...fieldLists.map((fs) => fs.length));
  const longestArgs = Math.max(...fieldLists.flat().map((f) => f.args.length));
  const totalInterfaces = withFields.reduce((n, t) => n + t.getInterfaces().length, 0);
  const directives = schema.getDirectives();

  test('under __schema { types } each type comes once: its fields and their args are the totals', () => {
    const exact = types.length + totalFields + totalArgs;
    expect(measure('{ __schema { types { fields { args { name } } } } }').cost).toBe(exact);
    // The same written through fragments, as GraphiQL writes it, and through an inline fragment.
    expect(
      measure(
        '{ __schema { types { ...T } } } fragment T on __Type { fields { ...F } } fragment F on __Field { args { name } }',
      ).cost,
    ).toBe(exact);
    expect(measure('{ __schema { types { ... on __Type { fields { args { name } } } } } }').cost).toBe(exact);
    // Multiplying the longest lists would have counted far more than the schema holds.
    expect(exact).toBeLessThan(types.length * longestFields * longestArgs);
  });

  test('under __schema { directives } each directive comes once: their args are the total', () => {
    const args = directives.reduce((n, d) => n + d.args.length, 0);
    const locations = directives.reduce((n, d) => n + d.locations.length, 0);
    expect(measure('{ __schema { directives { args { name } locations } } }').cost).toBe(
      directives.length + args + locations,
    );
  });

  test('the totals count once per __schema, aliases and fragment spreads included', () => {
    const one = measure('{ __schema { types { fields { name } } } }').cost;
    expect(one).toBe(types.length + totalFields);
    expect(
      measure('{ a: __schema { types { fields { name } } } b: __schema { types { fields { name } } } }').cost,
    ).toBe(2 * one);
    expect(
      measure('{ __schema { types { ...T ...T } } } fragment T on __Type { fields { name } }').cost,
    ).toBe(types.length + 2 * totalFields);
  });

  test('a fragment on __Type spread where types repeat is bounded by the longest lists', () => {
    // Under ofType and __type(name:), a type is no distinct item of the schema's list of types.
    expect(measure('{ __type(name: "Query") { ...T } } fragment T on __Type { fields { name } }').cost).toBe(
      longestFields,
    );
    expect(
      measure('{ __schema { types { ofType { ...T } } } } fragment T on __Type { fields { name } }').cost,
    ).toBe(types.length + types.length * longestFields);
  });

  test('a repeated nesting through type { fields } is still bounded by the longest lists', () => {
    // A field's type can be any type, the same one for many fields: from there on, maxima multiply.
    expect(measure('{ __schema { types { fields { type { fields { name } } } } } }').cost).toBe(
      types.length + totalFields + totalFields * longestFields,
    );
    expect(measure('{ __type(name: "Query") { fields { type { fields { args { name } } } } } }').cost).toBe(
      longestFields + longestFields ** 2 + longestFields ** 2 * longestArgs,
    );
    // interfaces repeat types too: fields under them multiply the longest list.
    expect(measure('{ __schema { types { interfaces { fields { name } } } } }').cost).toBe(
      types.length + totalInterfaces + totalInterfaces * longestFields,
    );
  });

  test('a query that tries to blow introspection up is refused', () => {
    const deep =
      '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }';
    expect(measure(deep).cost).toBeGreaterThan(totalFields * longestFields ** 3);
    expect(refusal(deep)).toMatch(/could return \d+ nodes.*the limit is 100000/);
    // A fragment on __Type gets the totals only where its types are distinct: spread under
    // interfaces and possibleTypes, whose types repeat, it multiplies the longest lists.
    const spread =
      '{ __schema { types { ...L1 } } } fragment L1 on __Type { interfaces { ...L2 } possibleTypes { ...L2 } } fragment L2 on __Type { fields { type { fields { args { name } } } } }';
    expect(refusal(spread)).toMatch(/could return \d+ nodes.*the limit is 100000/);
  });
});

describe('aliases, root fields and fields', () => {
  test('aliases and root fields are capped', () => {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: id`).join(' ');
    expect(refusal(`{ viewer { user { ${aliases} } } }`)).toMatch(/31 aliases.*the limit is 30/);
    const roots = Array.from({ length: 21 }, () => 'organizations { id }').join(' ');
    expect(refusal(`{ ${roots} }`)).toMatch(/21 root fields; the limit is 20/);
  });

  test('aliases and fields inside __schema and __type count, and so do those roots', () => {
    const m = measure('{ a: __schema { b: queryType { c: name } } d: __type(name: "Project") { e: name } }');
    expect(m).toMatchObject({ aliases: 5, rootFields: 2, fields: 5 });
  });

  test('fields are counted with every fragment written out where it is spread', () => {
    const m = measure('{ viewer { ...V ...V } } fragment V on Viewer { user { id name } }');
    expect(m.fields).toBe(1 + 2 * 3);
  });
});

describe('the walk is linear in the document', () => {
  const chain = (n: number, root = true) => {
    let doc = root ? 'query{...F0}' : 'query{ viewer { ...F0 } }';
    const on = root ? 'Query' : 'Viewer';
    for (let i = 0; i < n; i++) doc += ` fragment F${i} on ${on}{...F${i + 1} ...F${i + 1}}`;
    return `${doc} fragment F${n} on ${on}{ __typename }`;
  };

  test.each([12, 24, 200])('%i fragments each spreading the next twice: each selection visited once', (n) => {
    const doc = chain(n);
    const m = measure(doc);
    expect(m.steps).toBe(selections(doc));
    expect(m.rootFields).toBe(Math.min(2 ** n, 1e15));
    expect(refusal(doc)).toMatch(/root fields/);
    expect(refusal(chain(n, false))).toMatch(/fields \(fragments counted wherever they are spread\)/);
  });

  test('the step guard refuses a document too large to measure', () => {
    const wide = `{ viewer { user { ${'id '.repeat(MAX_WALK_STEPS + 1)} } } }`;
    expect(refusal(wide)).toMatch(/too large to measure/);
  });

  test('fragments in any order, unused ones and cycles (which validation refuses) do not break the walk', () => {
    const m = measure(
      '{ viewer { ...A } } fragment B on Viewer { user { id } } fragment A on Viewer { ...B ...B } fragment X on Viewer { ...Y } fragment Y on Viewer { ...X }',
    );
    expect(m.fields).toBe(1 + 2 * 2);
  });
});
