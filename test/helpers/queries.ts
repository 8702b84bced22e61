/**
 * GraphQL texts the benchmark sends and the tests hold the fast paths to (planned reads, graphql-jit,
 * the direct executor): one copy, so that what the bench measures is what the tests compare.
 */

/** Typed values at every level: what a GraphQL client asks for instead of the raw `properties` map. */
export const VALUES_FRAGMENT = `fragment V on PropertyRecord { values { __typename propertyId
  ... on TextValue { text } ... on NumberValue { number } ... on DateValue { start }
  ... on SelectValue { options { id name color } } ... on PeopleValue { users { id name } } } }`;

export const FIRST_PAGE_QUERY = `query FirstPage($orgId: ID!, $portfolioId: ID!, $first: Int!) {
  organization(id: $orgId) { portfolio(id: $portfolioId) {
    projects(first: $first) { edges { cursor node { id createdAt updatedAt ...V } } pageInfo { hasNextPage endCursor } }
  } } } ${VALUES_FRAGMENT}`;

export const NESTED_QUERY = `query Nested($orgId: ID!, $portfolioId: ID!, $projects: Int!, $contacts: Int!, $parcels: Int!) {
  organization(id: $orgId) { portfolio(id: $portfolioId) {
    projects(first: $projects) { pageInfo { hasNextPage endCursor } nodes { id ...V
      contacts(first: $contacts) { pageInfo { hasNextPage endCursor } nodes { id ...V
        parcels(first: $parcels) { pageInfo { hasNextPage endCursor } nodes { id ...V } } } } } }
  } } } ${VALUES_FRAGMENT}`;
