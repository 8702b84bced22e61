import { AppError, notFound } from '../errors.js';
import { fromEnum, toEnum } from '../graphql/enums.js';
import { propertyType } from '../modules/properties/registry.js';
import type { ParamChecker } from './params.js';

/**
 * The REST v1 surface, as data. Each route names a GraphQL operation, how the request becomes its
 * variables, and how the result becomes the spec's JSON shape. The adapter runs the operation on the
 * same schema as /graphql; no route touches a resolver or the database.
 */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify path pattern, `:id` style. */
  path: string;
  summary: string;
  query: { orgId: true; portfolioId?: true; paging?: true };
  body?: Record<string, 'object' | 'string'>;
  document: string;
  variables: (p: {
    check: ParamChecker;
    params: Record<string, string>;
    body: Record<string, unknown>;
    base: Vars;
  }) => Vars;
  /** The response body; undefined sends 200 with an empty body. */
  respond: (data: any) => unknown;
  /** What the success response is, for the OpenAPI document. */
  returns: 'organizations' | 'portfolios' | 'users' | 'schema' | 'page' | 'record' | 'empty';
}

type Vars = Record<string, unknown>;

const RECORD = 'fragment R on PropertyRecord { id properties createdAt updatedAt }';
const PAGE = `edges { node { ...R } } pageInfo { hasNextPage endCursor }`;

export interface RecordOut {
  id: string;
  properties: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const record = (r: {
  id: string;
  properties: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}): RecordOut => ({
  id: r.id,
  properties: r.properties,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

const page = (c: {
  edges: { node: any }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}) => ({
  items: c.edges.map((e) => record(e.node)),
  nextKey: c.pageInfo.hasNextPage ? c.pageInfo.endCursor : null,
});

/** Follows a path of fields; a null on the way means "not found or out of reach". */
function dig(data: any, path: string[], what: string): any {
  let v = data;
  for (const k of path) {
    v = v?.[k];
    if (v == null) throw notFound(what);
  }
  return v;
}

const pagingVars = ({ check, base }: { check: ParamChecker; base: Vars }) => ({
  ...base,
  first: check.limit(),
  after: check.optional('startKey') ?? null,
});

const KINDS = [
  { kind: 'project', plural: 'projects', type: 'Project' },
  { kind: 'contact', plural: 'contacts', type: 'Contact' },
  { kind: 'parcel', plural: 'parcels', type: 'Parcel' },
] as const;

const base: RestRoute[] = [
  {
    method: 'GET',
    path: '/organizations/v1',
    summary: 'Organizations the caller can access',
    query: {} as { orgId: true },
    document: 'query { organizations { id name } }',
    variables: () => ({}),
    respond: (d) => d.organizations,
    returns: 'organizations',
  },
  {
    method: 'GET',
    path: '/portfolios/v1',
    summary: 'Portfolios of an organization that the caller can access',
    query: { orgId: true },
    document: 'query ($orgId: ID!) { organization(id: $orgId) { id portfolios { id name createdAt } } }',
    variables: ({ base }) => base,
    respond: (d) =>
      dig(d, ['organization'], 'Organization').portfolios.map((p: any) => ({
        org_id: d.organization.id,
        id: p.id,
        name: p.name,
        created_at: p.createdAt,
      })),
    returns: 'portfolios',
  },
  {
    method: 'GET',
    path: '/users/v1',
    summary: 'Members of an organization and guests with portfolio access',
    query: { orgId: true },
    document: 'query ($orgId: ID!) { organization(id: $orgId) { users { id email name role } } }',
    variables: ({ base }) => base,
    respond: (d) =>
      dig(d, ['organization'], 'Organization').users.map((u: any) => ({
        uid: u.id,
        email: u.email,
        name: u.name,
        role: u.role ? fromEnum('Role', u.role) : null,
      })),
    returns: 'users',
  },
];

const schemaRoutes: RestRoute[] = KINDS.map(({ plural, kind }) => ({
  method: 'GET',
  path: `/${plural}/v1/schema`,
  summary: `The ${kind} property schema of an organization`,
  query: { orgId: true },
  document: `query ($orgId: ID!) { organization(id: $orgId) { propertySchema(kind: ${toEnum('RecordKind', kind)}) { properties { id name type options { id name color } } } } }`,
  variables: ({ base }) => base,
  respond: (d) => ({
    properties: dig(d, ['organization', 'propertySchema'], 'Organization').properties.map((p: any) => {
      const type = fromEnum('PropertyType', p.type);
      return {
        id: p.id,
        name: p.name,
        property_type: type,
        ...(propertyType(type)?.hasOptions ? { select: { options: p.options } } : {}),
      };
    }),
  }),
  returns: 'schema',
}));

const scoped = { orgId: true, portfolioId: true } as const;
const listed = { ...scoped, paging: true } as const;

const recordRoutes: RestRoute[] = [];
for (const { kind, plural, type } of KINDS) {
  const cap = type;
  if (kind !== 'parcel') {
    recordRoutes.push(
      {
        method: 'GET',
        path: `/${plural}/v1`,
        summary: `A page of the portfolio's ${plural}`,
        query: listed,
        document: `query ($orgId: ID!, $portfolioId: ID!, $first: Int, $after: String) { organization(id: $orgId) { portfolio(id: $portfolioId) { ${plural}(first: $first, after: $after) { ${PAGE} } } } } ${RECORD}`,
        variables: pagingVars,
        respond: (d) => page(dig(d, ['organization', 'portfolio', plural], 'Portfolio')),
        returns: 'page',
      },
      {
        method: 'POST',
        path: `/${plural}/v1`,
        summary: `Create a ${kind}`,
        query: scoped,
        body: { properties: 'object' },
        document: `mutation ($input: CreateRecordInput!) { create${cap}(input: $input) { ${kind} { ...R } } } ${RECORD}`,
        variables: ({ base, body }) => ({ input: { ...base, properties: body.properties } }),
        respond: (d) => record(d[`create${cap}`][kind]),
        returns: 'record',
      },
      {
        method: 'DELETE',
        path: `/${plural}/v1/:id`,
        summary: `Delete a ${kind} and its links`,
        query: scoped,
        document: `mutation ($input: DeleteRecordInput!) { delete${cap}(input: $input) { deletedId } }`,
        variables: ({ base, params }) => ({ input: { ...base, id: params.id } }),
        respond: () => undefined,
        returns: 'empty',
      },
    );
  }
  recordRoutes.push({
    method: 'PUT',
    path: `/${plural}/v1/:id`,
    summary: `Change the listed properties of a ${kind}`,
    query: scoped,
    body: { properties: 'object' },
    document: `mutation ($input: UpdateRecordInput!) { update${cap}(input: $input) { ${kind} { ...R } } } ${RECORD}`,
    variables: ({ base, params, body }) => ({
      input: { ...base, id: params.id, properties: body.properties },
    }),
    respond: (d) => record(d[`update${cap}`][kind]),
    returns: 'record',
  });
}

/** Link lists: `GET /{parent}/v1/{id}/{children}`, scoped to the portfolio named in the query. */
const LINK_LISTS = [
  ['projects', 'project', 'contacts'],
  ['projects', 'project', 'parcels'],
  ['parcels', 'parcel', 'contacts'],
  ['parcels', 'parcel', 'projects'],
  ['contacts', 'contact', 'projects'],
  ['contacts', 'contact', 'parcels'],
] as const;

const linkRoutes: RestRoute[] = LINK_LISTS.map(([plural, kind, children]) => ({
  method: 'GET',
  path: `/${plural}/v1/:id/${children}`,
  summary: `A page of the ${children} linked to a ${kind}`,
  query: listed,
  document: `query ($orgId: ID!, $portfolioId: ID!, $id: ID!, $first: Int, $after: String) { organization(id: $orgId) { portfolio(id: $portfolioId) { ${kind}(id: $id) { ${children}(first: $first, after: $after) { ${PAGE} } } } } } ${RECORD}`,
  variables: (p) => ({ ...pagingVars(p), id: p.params.id }),
  respond: (d) =>
    page(dig(d, ['organization', 'portfolio', kind, children], kind[0].toUpperCase() + kind.slice(1))),
  returns: 'page',
}));

const CONTACT_LINKS = [
  ['projects', 'Project', 'projectId'],
  ['parcels', 'Parcel', 'parcelId'],
] as const;

const linkWrites: RestRoute[] = CONTACT_LINKS.flatMap(([plural, type, idField]) => [
  {
    method: 'POST' as const,
    path: `/${plural}/v1/:id/contacts`,
    summary: `Link a contact of the same portfolio to a ${type.toLowerCase()} (idempotent)`,
    query: scoped,
    body: { contactId: 'string' as const },
    document: `mutation ($input: ${type}ContactInput!) { link${type}Contact(input: $input) { linked } }`,
    variables: ({ base, params, body }) => ({
      input: { ...base, [idField]: params.id, contactId: body.contactId },
    }),
    respond: () => undefined,
    returns: 'empty' as const,
  },
  {
    method: 'DELETE' as const,
    path: `/${plural}/v1/:id/contacts/:contactId`,
    summary: `Unlink a contact from a ${type.toLowerCase()}; both records stay`,
    query: scoped,
    document: `mutation ($input: ${type}ContactInput!) { unlink${type}Contact(input: $input) { linked } }`,
    variables: ({ base, params }) => ({
      input: { ...base, [idField]: params.id, contactId: params.contactId },
    }),
    respond: () => undefined,
    returns: 'empty' as const,
  },
]);

export const REST_ROUTES: RestRoute[] = [
  ...base,
  ...schemaRoutes,
  ...recordRoutes,
  ...linkRoutes,
  ...linkWrites,
];

/** Paths that exist but refuse some methods (405 with Allow); parcels are never created or deleted here. */
export const METHOD_EXPLANATIONS: Record<string, string> = {
  '/parcels/v1':
    'Parcels come from cadastral data (`sdg parcels import`); the API cannot create or list them here.',
  '/parcels/v1/:id': 'Parcels can only be updated (PUT); they are created and deleted from cadastral data.',
  '/projects/v1/:id/parcels': 'Project–parcel links are read-only in the API.',
  '/parcels/v1/:id/projects': 'Project–parcel links are read-only in the API.',
  '/projects/v1/:id/parcels/:parcelId': 'Project–parcel links are read-only in the API.',
  '/parcels/v1/:id/projects/:projectId': 'Project–parcel links are read-only in the API.',
};

export const methodNotAllowed = (path: string, allow: string[]) =>
  new AppError(
    'METHOD_NOT_ALLOWED',
    `${METHOD_EXPLANATIONS[path] ?? 'This method is not supported on this path.'} Allowed: ${allow.join(', ') || 'none'}.`,
  );
