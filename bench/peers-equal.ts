/**
 * The nested query as PostGraphile 5 asks it, and the normalisation that makes its answer and the
 * gateway's comparable (`npm run bench -- --peers` checks them equal before it measures anything).
 *
 * Both answers become the same tree: per connection `hasNextPage` and its nodes in order; per node
 * its id and its stored values `{ propertyId: { text } | { number } | { date: { start } } |
 * { select: [option ids] } | { people: [user ids] } }`. What is dropped: cursors (each server signs
 * its own), the gateway's labels (option names and colours, user names: PostGraphile reads the raw
 * jsonb and has no labels to give, so it does strictly less work here), `__typename`, and
 * PostGraphile's link-table level (its connections run over project_contacts and parcel_contacts
 * rows, each holding its contact or parcel).
 */
import { isDeepStrictEqual } from 'node:util';

/** portfolio → projects(first, by created_at, id) → contacts(first, by linked_at, contact id) → parcels(first, by linked_at, parcel id). */
export const POSTGRAPHILE_NESTED_QUERY = `query Nested($orgId: String!, $portfolioId: String!, $projects: Int!, $contacts: Int!, $parcels: Int!) {
  portfolioByOrgIdAndRowId(orgId: $orgId, rowId: $portfolioId) {
    projectsByOrgIdAndPortfolioId(first: $projects, orderBy: [CREATED_AT_ASC, ROW_ID_ASC]) {
      pageInfo { hasNextPage endCursor }
      nodes { rowId properties
        projectContactsByOrgIdAndPortfolioIdAndProjectId(first: $contacts, orderBy: [LINKED_AT_ASC, CONTACT_ID_ASC]) {
          pageInfo { hasNextPage endCursor }
          nodes { contactByOrgIdAndPortfolioIdAndContactId { rowId properties
            parcelContactsByOrgIdAndPortfolioIdAndContactId(first: $parcels, orderBy: [LINKED_AT_ASC, PARCEL_ID_ASC]) {
              pageInfo { hasNextPage endCursor }
              nodes { parcelByOrgIdAndPortfolioIdAndParcelId { rowId properties } } } } } } } } } }`;

/**
 * The nested query of scenario 7 with the raw `properties` map instead of typed values: what the
 * gateway is asked beside the one-statement floor (bench/one-statement-sql.ts), whose answer must be
 * this one's JSON, cursors included.
 */
export const NESTED_PROPERTIES_QUERY = `query NestedProperties($orgId: ID!, $portfolioId: ID!, $projects: Int!, $contacts: Int!, $parcels: Int!) {
  organization(id: $orgId) { portfolio(id: $portfolioId) {
    projects(first: $projects) { pageInfo { hasNextPage endCursor } nodes { id properties
      contacts(first: $contacts) { pageInfo { hasNextPage endCursor } nodes { id properties
        parcels(first: $parcels) { pageInfo { hasNextPage endCursor } nodes { id properties } } } } } }
  } } }`;

export interface NestedNode {
  id: string;
  values: Record<string, unknown>;
  children?: NestedList;
}
export interface NestedList {
  hasNextPage: boolean;
  nodes: NestedNode[];
}

/** A shape that is not the expected one fails loudly: an empty tree must never compare equal. */
function need<T>(v: T | null | undefined, what: string): T {
  if (v === null || v === undefined) throw new Error(`the answer has no ${what}`);
  return v;
}

/** One typed value of the gateway (fragment V of bench/scenarios.ts) back in its stored shape. */
export function storedValue(v: any): [string, unknown] {
  switch (v.__typename) {
    case 'TextValue':
      return [v.propertyId, { text: v.text }];
    case 'NumberValue':
      return [v.propertyId, { number: v.number }];
    case 'DateValue':
      return [v.propertyId, { date: { start: v.start } }];
    case 'SelectValue':
      return [v.propertyId, { select: v.options.map((o: { id: string }) => o.id) }];
    case 'PeopleValue':
      return [v.propertyId, { people: v.users.map((u: { id: string }) => u.id) }];
    default:
      throw new Error(`unknown value type ${v.__typename} of ${v.propertyId}`);
  }
}

const gatewayList = (c: any, what: string, child?: (n: any) => NestedList): NestedList => ({
  hasNextPage: need(c?.pageInfo, `${what} pageInfo`).hasNextPage,
  nodes: need(c?.nodes as any[], `${what} nodes`).map((n) => ({
    id: n.id,
    values: Object.fromEntries(need(n.values as any[], `${what} values`).map(storedValue)),
    ...(child ? { children: child(n) } : {}),
  })),
});

/** The gateway's answer to NESTED_QUERY (or the raw floor's, which is the same JSON). */
export function fromGateway(body: any): NestedList {
  if (body?.errors)
    throw new Error(`the gateway answered errors: ${JSON.stringify(body.errors).slice(0, 300)}`);
  const projects = need(body?.data?.organization?.portfolio?.projects, 'projects');
  return gatewayList(projects, 'projects', (p) =>
    gatewayList(p.contacts, 'contacts', (c) => gatewayList(c.parcels, 'parcels')),
  );
}

const peerList = (
  c: any,
  what: string,
  node: (n: any) => any,
  child?: (n: any) => NestedList,
): NestedList => ({
  hasNextPage: need(c?.pageInfo, `${what} pageInfo`).hasNextPage,
  nodes: need(c?.nodes as any[], `${what} nodes`).map((link) => {
    const n = need(node(link), what);
    return {
      id: n.rowId,
      values: need(n.properties, `${what} properties`),
      ...(child ? { children: child(n) } : {}),
    };
  }),
});

/** PostGraphile's answer to POSTGRAPHILE_NESTED_QUERY. */
export function fromPostgraphile(body: any): NestedList {
  if (body?.errors)
    throw new Error(`PostGraphile answered errors: ${JSON.stringify(body.errors).slice(0, 300)}`);
  const projects = need(body?.data?.portfolioByOrgIdAndRowId?.projectsByOrgIdAndPortfolioId, 'projects');
  return peerList(
    projects,
    'projects',
    (p) => p,
    (p) =>
      peerList(
        p.projectContactsByOrgIdAndPortfolioIdAndProjectId,
        'contacts',
        (l) => l.contactByOrgIdAndPortfolioIdAndContactId,
        (c) =>
          peerList(
            c.parcelContactsByOrgIdAndPortfolioIdAndContactId,
            'parcels',
            (l) => l.parcelByOrgIdAndPortfolioIdAndParcelId,
          ),
      ),
  );
}

export interface NestedComparison {
  equal: boolean;
  /** Nodes compared at each level (of the first tree). */
  counts: { projects: number; contacts: number; parcels: number };
  /** Where the trees first differ, e.g. `projects[3].contacts[1].values`. */
  difference?: string;
}

const LEVELS = ['projects', 'contacts', 'parcels'] as const;

/** Compares two normalised trees node by node, in order, and says where they first differ. */
export function compareNested(a: NestedList, b: NestedList): NestedComparison {
  const counts = { projects: 0, contacts: 0, parcels: 0 };
  let difference: string | undefined;
  const walk = (x: NestedList, y: NestedList | undefined, depth: number, path: string) => {
    const level = LEVELS[depth];
    counts[level] += x.nodes.length;
    const at = `${path}${path ? '.' : ''}${level}`;
    if (difference) return;
    if (!y || x.hasNextPage !== y.hasNextPage) difference ??= `${at}.hasNextPage`;
    else if (x.nodes.length !== y.nodes.length)
      difference ??= `${at}: ${x.nodes.length} nodes against ${y.nodes.length}`;
    x.nodes.forEach((n, i) => {
      const m = y?.nodes[i];
      if (!difference && n.id !== m?.id) difference = `${at}[${i}].id`;
      if (!difference && !isDeepStrictEqual(n.values, m?.values)) difference = `${at}[${i}].values`;
      if (n.children) walk(n.children, m?.children, depth + 1, `${at}[${i}]`);
    });
  };
  walk(a, b, 0, '');
  return { equal: difference === undefined, counts, ...(difference ? { difference } : {}) };
}

/** Where two JSON answers first differ (a path like `data.organization….nodes[3].properties`), or undefined. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return path || '(the whole answer)';
  if (Array.isArray(a) !== Array.isArray(b)) return path;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    if (a.length !== y.length) return `${path}: ${a.length} items against ${y.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], y[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const d = firstDifference(x[k], y[k], path ? `${path}.${k}` : k);
    if (d) return d;
  }
  return undefined;
}

/** Nodes at each level of a nested answer in the gateway's shape, typed values or raw properties. */
export function nestedCounts(body: any): { projects: number; contacts: number; parcels: number } {
  const projects: any[] = body?.data?.organization?.portfolio?.projects?.nodes ?? [];
  const contacts = projects.flatMap((p) => p.contacts?.nodes ?? []);
  const parcels = contacts.flatMap((c) => c.parcels?.nodes ?? []);
  return { projects: projects.length, contacts: contacts.length, parcels: parcels.length };
}
