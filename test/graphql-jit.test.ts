import { type DocumentNode, Kind, type OperationDefinitionNode, parse } from 'graphql';
import type { Context } from '../src/context.js';
import { Executor } from '../src/graphql/executor.js';
import { JitCache, type JitOptions, recursiveInputTypes } from '../src/graphql/jit.js';
import { DEFAULT_LIMITS } from '../src/graphql/limits.js';
import { buildSchema } from '../src/graphql/schema.js';
import { HEAVY_GRAPHQL_COST, LARGE_GRAPHQL_COST } from '../src/http/admission.js';
import { describe, expect, test } from './helpers/fixtures.js';
import { FIRST_PAGE_QUERY, NESTED_QUERY } from './helpers/queries.js';

/**
 * /graphql runs an operation with graphql-js the first time its document is seen and compiled by
 * graphql-jit from then on. Both must answer exactly the same, data and errors alike.
 */
/** The executor /graphql runs through (its JIT cache's stats as `gw.stats`), without Apollo around it. */
async function gateway(jit?: JitOptions) {
  const run = new Executor(buildSchema(), DEFAULT_LIMITS, jit);
  const executor = (rc: {
    document: DocumentNode;
    operation: OperationDefinitionNode;
    operationName: string | null;
    request: { variables: Record<string, unknown> };
    context: unknown;
  }) =>
    run.execute(
      rc.context as Context,
      { document: rc.document, operation: rc.operation, operationName: rc.operationName },
      rc.request.variables,
      { heavyCost: HEAVY_GRAPHQL_COST, largeCost: LARGE_GRAPHQL_COST },
    );
  return { gw: run.jit, executor };
}

describe('graphql-jit execution', () => {
  test('an operation is compiled when its document comes back, once per operation name', async () => {
    const { gw, executor } = await gateway();
    const document = parse('query A { __typename } query B { t: __typename }');
    const run = (operationName: string) => {
      const operation = document.definitions.find(
        (d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName,
      );
      return executor!({
        document,
        operation,
        operationName,
        request: { variables: {} },
        context: {},
      } as never);
    };
    expect(await run('A')).toEqual({ data: { __typename: 'Query' } });
    expect(gw.stats.compiled).toBe(0);
    expect(await run('A')).toEqual({ data: { __typename: 'Query' } });
    expect(gw.stats.compiled).toBe(1);
    expect(await run('B')).toEqual({ data: { t: 'Query' } });
    expect(await run('A')).toEqual({ data: { __typename: 'Query' } });
    expect(gw.stats.compiled).toBe(2);
  });

  test('an operation with a variable of a recursive input type (RecordFilter) stays on graphql-js', async () => {
    const schema = buildSchema();
    expect([...recursiveInputTypes(schema)]).toEqual(['RecordFilter']);
    // graphql-jit writes such a variable's coercion out field by field, recursion included: the
    // example front-end's second page blocked the gateway for 13-35 s compiling this.
    const jit = new JitCache(schema);
    const document = parse(
      'query P($id: ID!, $filter: RecordFilter, $after: String) { node(id: $id) { ... on Portfolio { projects(first: 1, after: $after, filter: $filter) { totalCount } } } }',
    );
    expect(jit.hot(document, 'P')).toBeNull();
    expect(jit.hot(document, 'P')).toBeNull();
    expect(jit.stats.compiled).toBe(0);
    // The same shape with the filter written inline compiles as usual.
    const inline = parse(
      'query Q($id: ID!) { node(id: $id) { ... on Portfolio { projects(first: 1, filter: { createdAt: { from: "2020-01-01T00:00:00Z" } }) { totalCount } } } }',
    );
    jit.hot(inline, 'Q');
    expect(jit.hot(inline, 'Q')).not.toBeNull();
  });

  test('the cache keeps the most recently used documents', async () => {
    const { gw, executor } = await gateway({ max: 2, hotAfter: 2 });
    const docs = ['A', 'B', 'C'].map((n) => parse(`query ${n} { __typename }`));
    const run = (document: (typeof docs)[number]) =>
      executor!({
        document,
        operation: document.definitions[0],
        operationName: null,
        request: { variables: {} },
        context: {},
      } as never);
    const [a, b, c] = docs;
    await run(a);
    await run(a);
    expect(gw.stats.compiled).toBe(1);
    await run(b);
    await run(a); // a is now the most recently used
    await run(c); // evicts b, not a
    await run(a);
    expect(gw.stats.compiled).toBe(1);
    await run(b); // b starts over: a first run again, not compiled
    expect(gw.stats.compiled).toBe(1);
    await run(b);
    expect(gw.stats.compiled).toBe(2);
  });

  test('cold (graphql-js) and hot (compiled) runs answer the same, for data and for errors', async ({
    env,
  }) => {
    const { A, B } = env.demo.orgs;
    const vars = { orgId: A.id, portfolioId: A.portfolios.A1 };
    const firstPage = await env.as.alice.gql(FIRST_PAGE_QUERY, { ...vars, first: 5 });
    const someProject = firstPage.body.data.organization.portfolio.projects.edges[0].node.id;
    const cases: [string, string, Record<string, unknown>][] = [
      ['first page with typed values', FIRST_PAGE_QUERY, { ...vars, first: 20 }],
      ['nested values, people and options', NESTED_QUERY, { ...vars, projects: 10, contacts: 3, parcels: 2 }],
      [
        'node(id), aliases, fragments, location and geometry',
        `query ($id: ID!, $o: ID!, $p: ID!) {
          n: node(id: $id) { __typename id ... on Project { location { latitude longitude } } }
          organization(id: $o) { name portfolio(id: $p) {
            parcels(first: 2) { totalCount nodes { id geometry value(propertyId: "acreage") { __typename } } } } } }`,
        { id: someProject, o: A.id, p: A.portfolios.A1 },
      ],
      [
        'another tenant: nulls, no data',
        `query ($o: ID!) { organization(id: $o) { id } project(id: "prj_00000000000000000000") { id } }`,
        { o: B.id },
      ],
      [
        'a mutation refused with details (nothing written)',
        `mutation ($orgId: ID!, $portfolioId: ID!) { createProject(input: { orgId: $orgId, portfolioId: $portfolioId,
          properties: { name: { text: "" }, website: { text: "not a url" }, nope: { text: "x" } } }) { project { id } } }`,
        vars,
      ],
      // Distinct texts, so their first run is a cold one too.
      ['a variable of the wrong type', `${FIRST_PAGE_QUERY}\n# wrong type`, { ...vars, first: 'many' }],
      ['a required variable missing', `${FIRST_PAGE_QUERY}\n# missing`, { orgId: A.id, first: 1 }],
    ];
    for (const [what, query, variables] of cases) {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await env.as.alice.gql(query, variables));
      expect(runs[2].status, what).toBe(runs[0].status);
      expect(runs[2].body, what).toEqual(runs[0].body);
      expect(runs[1].body, what).toEqual(runs[0].body);
    }
  });
});
