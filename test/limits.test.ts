import { describe, expect, test } from './helpers/fixtures.js';

/** GraphQL abuse limits: each rejection is a 400 with QUERY_TOO_COMPLEX and a message naming the limit. */
describe('GraphQL limits', () => {
  const rejected = (r: { status: number; body: any }, limit: RegExp) => {
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(r.body.errors[0].message).toMatch(limit);
    expect(r.body.data).toBeUndefined();
  };

  test('the nested benchmark query is within every limit', async ({ env }) => {
    const r = await env.as.alice.gql(
      `query($o: ID!, $p: ID!) { organization(id: $o) { portfolio(id: $p) { projects(first: 100) { edges { node { id values { propertyId }
        contacts(first: 10) { edges { node { id parcels(first: 5) { edges { node { id values { propertyId ... on SelectValue { options { name } } } } } } } } } } } } } } }`,
      { o: env.demo.orgs.A.id, p: env.demo.orgs.A.portfolios.A1 },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.organization.portfolio.projects.edges).toHaveLength(50);
  });

  test('depth: a cycle through links is refused past the limit', async ({ env }) => {
    let q = 'id';
    for (let i = 0; i < 8; i++)
      q = `contacts(first: 1) { edges { node { projects(first: 1) { edges { node { ${q} } } } } } }`;
    rejected(await env.as.alice.gql(`{ project(id: "prj_x") { ${q} } }`), /levels deep; the limit is 20/);
  });

  test('cost: page sizes multiply down the tree, counting defaults and variables', async ({ env }) => {
    rejected(
      await env.as.alice.gql(
        'query($n: Int) { project(id: "prj_x") { contacts(first: $n) { edges { node { projects(first: 5000) { totalCount } } } } } }',
        {
          n: 100,
        },
      ),
      /could return 500100 nodes.*the limit is 100000/,
    );
    // Without first/last, a connection counts the default page size (100).
    rejected(
      await env.as.alice.gql(
        '{ project(id: "prj_x") { contacts { edges { node { projects { edges { node { contacts(first: 20) { totalCount } } } } } } } } }',
      ),
      /could return 210100 nodes/,
    );
  });

  test('aliases and root fields are capped', async ({ env }) => {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: id`).join(' ');
    rejected(await env.as.alice.gql(`{ viewer { user { ${aliases} } } }`), /31 aliases; the limit is 30/);
    const roots = Array.from({ length: 21 }, () => 'organizations { id }').join(' ');
    rejected(await env.as.alice.gql(`{ ${roots} }`), /21 root fields; the limit is 20/);
  });

  test('query text and token count are bounded before parsing', async ({ env }) => {
    const big = `{ viewer { user { id } } } # ${'x'.repeat(20_001)}`;
    rejected(await env.as.alice.gql(big), /bytes; the limit is 20000/);
    const tokens = `{ viewer { user { ${'id '.repeat(6000)} } } }`;
    const r = await env.as.alice.gql(tokens);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(r.body.errors[0].message).toMatch(/more th.. 5000 tokens/);
  });

  test('introspection is not counted against depth (GraphiQL works)', async ({ env }) => {
    const r = await env.as.alice.gql(
      '{ __schema { types { name fields { name type { kind ofType { kind ofType { kind ofType { kind ofType { kind ofType { kind ofType { kind ofType { name } } } } } } } } } } } }',
    );
    expect(r.body.errors).toBeUndefined();
  });
});

describe('errors on /graphql use the GraphQL shape', () => {
  test('a missing key is a 401 with errors[].extensions.code', async ({ env }) => {
    const r = await env.as.anon.gql('{ viewer { user { id } } }');
    expect(r.status).toBe(401);
    expect(r.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  test('unknown errors never leak: codes come only from the closed set', async ({ env }) => {
    const r = await env.as.alice.gql('{ nope }');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(JSON.stringify(r.body)).not.toMatch(/stack|at Object\./);
  });
});
