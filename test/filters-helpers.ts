import { expect } from 'vitest';
import type { Client, Res } from './helpers/http.js';
import type { Scope } from './records-helpers.js';

/** Shared helpers of the list filter tests (test/filters-*.test.ts). */

export const PROJECTS = `query($pf: ID!, $filter: RecordFilter, $orderBy: [RecordOrder!], $search: String,
  $first: Int, $after: String, $last: Int, $before: String) {
  node(id: $pf) { ... on Portfolio {
    projects(filter: $filter, orderBy: $orderBy, search: $search, first: $first, after: $after, last: $last, before: $before) {
      totalCount
      edges { cursor node { id properties } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  } }
}`;

/** The ids a project filter returns (one page of up to 500), and its totalCount. */
export async function projectIds(
  c: Client,
  scope: Scope,
  args: { filter?: unknown; orderBy?: unknown; search?: string; first?: number },
): Promise<{ ids: string[]; total: number }> {
  const r = await c.gql(PROJECTS, { pf: scope.portfolioId, first: 500, ...args });
  expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
  const conn = r.body.data.node.projects;
  return { ids: conn.edges.map((e: { node: { id: string } }) => e.node.id), total: conn.totalCount };
}

/** The single error of a GraphQL response. */
export function gqlError(r: Res) {
  expect(r.body.errors, JSON.stringify(r.body)).toHaveLength(1);
  const e = r.body.errors[0];
  return {
    code: e.extensions.code as string,
    details: e.extensions.details as any[],
    message: e.message as string,
  };
}

export const prop = (id: string, ops: Record<string, unknown>) => ({ property: { id, ...ops } });
