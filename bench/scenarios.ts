/** The benchmark's scenarios: what each sends to the gateway and, for 1, 2, 3 and 7, to the raw baseline. */

import { FIRST_PAGE_QUERY, NESTED_QUERY, VALUES_FRAGMENT } from '../test/helpers/queries.js';

export interface ScenarioContext {
  apiKey: string;
  orgId: string;
  /** The portfolio every read scenario reads (the first seeded one). */
  portfolioId: string;
  /** Where writes go. */
  scratchPortfolioId: string;
  /** Cursor of the 150th project from the end: `startKey` of the deep page. */
  deepCursor: string;
  /** A project with several contacts (scenario 4). */
  contactsProjectId: string;
  /** Projects of the scratch portfolio that PUTs and update mutations rotate over. */
  writeProjectIds: string[];
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: string;
}

export interface Scenario {
  id: string;
  title: string;
  /** Reads can be compared with the baseline and checked for equal bodies; writes cannot. */
  write: boolean;
  /** A request factory: `n` counts requests, so writes can rotate over targets and make unique names. */
  gateway: (c: ScenarioContext) => (n: number) => RequestSpec;
  baseline?: (c: ScenarioContext) => (n: number) => RequestSpec;
  /** Only probed (SQL statements, bytes), not loaded: extra evidence for a target. */
  probeOnly?: boolean;
  /**
   * Slow enough (hundreds of ms of CPU a request) that a fixed-duration run at 64 connections may
   * complete nothing: measured by a fixed number of requests per connection instead.
   */
  heavy?: boolean;
}

const qs = (o: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(o).map(([k, v]): [string, string] => [k, String(v)])).toString();

export const UPDATE_MUTATION = `mutation Update($input: UpdateRecordInput!) {
  updateProject(input: $input) { project { id updatedAt ...V } } } ${VALUES_FRAGMENT}`;

/** Used by the runner to find the deep page's cursor through the public API. */
export const LAST_PAGE_QUERY = `query Last($orgId: ID!, $portfolioId: ID!, $last: Int!) {
  organization(id: $orgId) { portfolio(id: $portfolioId) { projects(last: $last) { edges { cursor } } } } }`;

const STAGES = ['origination', 'site-control', 'permitting', 'construction', 'operating'];

const gql = (query: string, variables: Record<string, unknown>): RequestSpec => ({
  method: 'POST',
  path: '/graphql',
  body: JSON.stringify({ query, variables }),
});

const nested = (projects: number) => ({
  gateway: (c: ScenarioContext) => {
    const spec = gql(NESTED_QUERY, {
      orgId: c.orgId,
      portfolioId: c.portfolioId,
      projects,
      contacts: 10,
      parcels: 5,
    });
    return () => spec;
  },
  baseline: (c: ScenarioContext) => {
    const spec: RequestSpec = {
      method: 'GET',
      path: `/nested?${qs({ orgId: c.orgId, portfolioId: c.portfolioId, projects, contacts: 10, parcels: 5 })}`,
    };
    return () => spec;
  },
});

const restPage = (extra: Record<string, string | number>) => (c: ScenarioContext) => {
  const spec: RequestSpec = {
    method: 'GET',
    path: `/projects/v1?${qs({ orgId: c.orgId, portfolioId: c.portfolioId, ...extra })}`,
  };
  return () => spec;
};

export const SCENARIOS: Scenario[] = [
  {
    id: '1',
    title: 'REST GET /projects/v1?limit=100 (first page)',
    write: false,
    gateway: restPage({ limit: 100 }),
    baseline: restPage({ limit: 100 }),
  },
  {
    id: '2',
    title: 'REST GET /projects/v1?limit=100&startKey=… (deep page, 150 from the end)',
    write: false,
    gateway: (c) => restPage({ limit: 100, startKey: c.deepCursor })(c),
    baseline: (c) => restPage({ limit: 100, startKey: c.deepCursor })(c),
  },
  {
    id: '3',
    title: 'REST GET /projects/v1?limit=5000',
    write: false,
    heavy: true,
    gateway: restPage({ limit: 5000 }),
    baseline: restPage({ limit: 5000 }),
  },
  {
    id: '4',
    title: 'REST GET /projects/v1/{id}/contacts',
    write: false,
    gateway: (c) => {
      const spec: RequestSpec = {
        method: 'GET',
        path: `/projects/v1/${c.contactsProjectId}/contacts?${qs({ orgId: c.orgId, portfolioId: c.portfolioId })}`,
      };
      return () => spec;
    },
  },
  {
    id: '5a',
    title: 'REST POST /projects/v1',
    write: true,
    gateway: (c) => {
      const path = `/projects/v1?${qs({ orgId: c.orgId, portfolioId: c.scratchPortfolioId })}`;
      return (n) => ({
        method: 'POST',
        path,
        body: JSON.stringify({
          properties: {
            name: { text: `Bench project ${n}` },
            capacity_mw: { number: 5 + (n % 295) },
            stage: { select: [STAGES[n % STAGES.length]] },
            cod: { date: { start: '2028-06-30' } },
          },
        }),
      });
    },
  },
  {
    id: '5b',
    title: 'REST PUT /projects/v1/{id}',
    write: true,
    gateway: (c) => {
      const q = qs({ orgId: c.orgId, portfolioId: c.scratchPortfolioId });
      return (n) => ({
        method: 'PUT',
        path: `/projects/v1/${c.writeProjectIds[n % c.writeProjectIds.length]}?${q}`,
        body: JSON.stringify({
          properties: {
            capacity_mw: { number: 5 + (n % 295) },
            stage: { select: [STAGES[n % STAGES.length]] },
          },
        }),
      });
    },
  },
  {
    id: '6',
    title: 'GraphQL first page: 100 projects with typed values',
    write: false,
    gateway: (c) => {
      const spec = gql(FIRST_PAGE_QUERY, { orgId: c.orgId, portfolioId: c.portfolioId, first: 100 });
      return () => spec;
    },
  },
  {
    id: '7',
    title: 'GraphQL nested: projects(100) → contacts(10) → parcels(5), typed values',
    write: false,
    heavy: true,
    ...nested(100),
  },
  {
    id: '7@10',
    title: 'GraphQL nested, 10 projects (SQL count only)',
    write: false,
    probeOnly: true,
    ...nested(10),
  },
  {
    id: '8',
    title: 'GraphQL mutation: updateProject, typed values back',
    write: true,
    gateway: (c) => (n) =>
      gql(UPDATE_MUTATION, {
        input: {
          id: c.writeProjectIds[(n * 7) % c.writeProjectIds.length],
          orgId: c.orgId,
          portfolioId: c.scratchPortfolioId,
          properties: {
            capacity_mw: { number: 10 + (n % 200) },
            stage: { select: [STAGES[(n + 2) % STAGES.length]] },
          },
        },
      }),
  },
];
