/**
 * Benchmark scenarios f1–f4 for GraphQL list filters, sorting, search and facets, run with
 * `npm run bench -- --filters`. For them the runner (bench/runner.ts)
 *   1. once per dataset, creates the sort index the deep-sort scenario relies on: `sortIndexes(db, orgId)`
 *      (what an operator does for a property front-ends sort by; see order.ts propertyIndexSql);
 *   2. before loading, fetches the deep cursor under the sort: `sortCursor(post, ctx)`;
 *   3. adds FILTER_SCENARIOS to SCENARIOS, with the context extended by `sortCursor`.
 * Plans of the same three shapes are checked on every test run by test/filters-plan.test.ts.
 */
import { type Kysely, sql } from 'kysely';
import type { DB } from '../src/db/types.js';
import { createPropertyIndexes } from '../src/modules/records/index.js';
import { schemasByKeys } from '../src/modules/schema/index.js';
import type { RequestSpec, Scenario, ScenarioContext } from './scenarios.js';

export interface FilterScenarioContext extends ScenarioContext {
  /** Cursor of the 150th project from the end under SORT (capacity_mw DESC). */
  sortCursor: string;
}

const gql = (query: string, variables: Record<string, unknown>): RequestSpec => ({
  method: 'POST',
  path: '/graphql',
  body: JSON.stringify({ query, variables }),
});

/** The sort of the deep-sort scenario. */
export const SORT = [{ property: 'capacity_mw', direction: 'DESC' }];

export const FILTER_PAGE_QUERY = `query Filtered($orgId: ID!, $portfolioId: ID!, $first: Int!, $after: String,
  $filter: RecordFilter, $orderBy: [RecordOrder!], $search: String) {
  organization(id: $orgId) { portfolio(id: $portfolioId) {
    projects(first: $first, after: $after, filter: $filter, orderBy: $orderBy, search: $search) {
      edges { cursor node { id properties } } pageInfo { hasNextPage endCursor }
    }
  } } }`;

export const SORT_LAST_QUERY = `query SortLast($orgId: ID!, $portfolioId: ID!, $orderBy: [RecordOrder!]) {
  organization(id: $orgId) { portfolio(id: $portfolioId) {
    projects(last: 150, orderBy: $orderBy) { edges { cursor } } } } }`;

/** Seed-time DDL: the two expression indexes of the sort property, for the bench org. */
export async function sortIndexes(db: Kysely<DB>, orgId: string): Promise<void> {
  const [schema] = await schemasByKeys(db, [{ orgId, kind: 'project' }]);
  await createPropertyIndexes(db, 'projects', schema, 'capacity_mw');
}

/** Fetches the deep-sort cursor through the public API (like the runner's deepCursor). */
export async function sortCursor(
  post: (
    spec: RequestSpec,
  ) => Promise<{ data: { organization: { portfolio: { projects: { edges: { cursor: string }[] } } } } }>,
  c: ScenarioContext,
): Promise<string> {
  const r = await post(gql(SORT_LAST_QUERY, { orgId: c.orgId, portfolioId: c.portfolioId, orderBy: SORT }));
  return r.data.organization.portfolio.projects.edges[0].cursor;
}

const page = (variables: (c: FilterScenarioContext) => Record<string, unknown>) => (c: ScenarioContext) => {
  const spec = gql(FILTER_PAGE_QUERY, {
    orgId: c.orgId,
    portfolioId: c.portfolioId,
    first: 100,
    ...variables(c as FilterScenarioContext),
  });
  return () => spec;
};

export const FILTER_SCENARIOS: Scenario[] = [
  {
    id: 'f1',
    title: 'GraphQL selective filter: capacity ≥ 295 MW and stage operating, first 100',
    write: false,
    gateway: page(() => ({
      filter: {
        and: [
          { property: { id: 'capacity_mw', number: { gte: 295 } } },
          { property: { id: 'stage', select: { in: ['operating'] } } },
        ],
      },
    })),
  },
  {
    id: 'f2',
    title: 'GraphQL sort by capacity DESC, deep cursor (150 from the end), 100',
    write: false,
    gateway: page((c) => ({ orderBy: SORT, after: c.sortCursor })),
  },
  {
    id: 'f3',
    title: 'GraphQL search "solar 4242" (trigram), first 100',
    write: false,
    gateway: page(() => ({ search: 'Solar 4242' })),
  },
  {
    id: 'f4',
    title: 'GraphQL facets: stage counts under a filter',
    write: false,
    gateway: (c) => {
      const spec = gql(
        `query Facets($orgId: ID!, $portfolioId: ID!) { organization(id: $orgId) { portfolio(id: $portfolioId) {
          projects(first: 0, filter: { property: { id: "capacity_mw", number: { gte: 200 } } }) {
            totalCount facets(propertyId: "stage") { value label count } } } } }`,
        { orgId: c.orgId, portfolioId: c.portfolioId },
      );
      return () => spec;
    },
  },
];

/**
 * The parcel grid cases of issue 41's "grids at county scale", measured by `npm run bench -- --grids`
 * (bench/grids.ts): each `first: 50` with `totalCount` and `totalCountIsEstimate` on the first
 * portfolio's parcels (100,000 at scale 1). The sort case relies on the operator-made sort index of
 * `acreage` (gridSortIndexes), created once per dataset as sortIndexes does for f2.
 */
export const GRID_QUERY = `query Grid($orgId: ID!, $portfolioId: ID!, $filter: RecordFilter,
  $orderBy: [RecordOrder!], $search: String) {
  organization(id: $orgId) { portfolio(id: $portfolioId) {
    parcels(first: 50, filter: $filter, orderBy: $orderBy, search: $search) {
      totalCount totalCountIsEstimate edges { cursor node { id properties } } pageInfo { hasNextPage endCursor }
    } } } }`;

export const GRID_CASES: { id: string; title: string; variables: Record<string, unknown> }[] = [
  { id: 'plain', title: 'plain page', variables: {} },
  { id: 'search', title: 'search "county" (matches every parcel)', variables: { search: 'county' } },
  {
    id: 'number',
    title: 'number filter: acreage >= 600',
    variables: { filter: { property: { id: 'acreage', number: { gte: 600 } } } },
  },
  {
    id: 'sort',
    title: 'sort by acreage DESC',
    variables: { orderBy: [{ property: 'acreage', direction: 'DESC' }] },
  },
];

/** Seed-time DDL: the two expression indexes of `acreage` on parcels, for the bench org. */
export async function gridSortIndexes(db: Kysely<DB>, orgId: string): Promise<void> {
  const [schema] = await schemasByKeys(db, [{ orgId, kind: 'parcel' }]);
  await createPropertyIndexes(db, 'parcels', schema, 'acreage');
  await sql`analyze parcels`.execute(db);
}
