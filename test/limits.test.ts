import { describe, expect, test } from './helpers/fixtures.js';

/**
 * GraphQL abuse limits over HTTP: each rejection is a 400 with QUERY_TOO_COMPLEX and a message naming
 * the limit. The limit walk itself is tested without a database in test/unit/limits.test.ts, and the
 * attacks of issue 12 in test/security/graphql-abuse.test.ts.
 */
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

  test('query text and token count are bounded before parsing', async ({ env }) => {
    const big = `{ viewer { user { id } } } # ${'x'.repeat(20_001)}`;
    rejected(await env.as.alice.gql(big), /bytes; the limit is 20000/);
    const tokens = `{ viewer { user { ${'id '.repeat(6000)} } } }`;
    const r = await env.as.alice.gql(tokens);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(r.body.errors[0].message).toMatch(/more th.. 5000 tokens/);
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
