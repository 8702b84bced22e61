import { AppError, notFound } from '../errors.js';
import type * as Q from '../generated/rest.js';
import { fromEnum, toEnum } from '../graphql/enums.js';
import { propertyType } from '../modules/properties/index.js';
import { detailOf, RECORD_TYPENAME, validationFailed } from '../modules/records/index.js';
import type { ParamChecker } from './params.js';

/**
 * The REST v1 surface, as data. Each route names a GraphQL operation, how the request becomes its
 * variables, and how the result becomes the spec's JSON shape. The adapter runs the operation on the
 * same schema as /graphql; no route touches a resolver or the database. Each `respond` reads its
 * operation's result as codegen types it (src/generated/rest.ts, named by src/rest/names.ts).
 */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify path pattern, `:id` style. */
  path: string;
  summary: string;
  /** The query parameters it takes besides its path's. */
  query: { orgId?: true; portfolioId?: true; paging?: true };
  body?: Record<string, 'object' | 'string'>;
  document: string;
  variables(p: {
    check: ParamChecker;
    params: Record<string, string>;
    body: Record<string, unknown>;
    base: Vars;
    /** The version an `If-Match` header names (PUT only); absent without the header or with `*`. */
    ifMatch?: Date;
  }): Vars;
  /** The response body; undefined sends 200 with an empty body. A method, so each route types its own data. */
  respond(data: never): unknown;
  /** What the success response is, for the OpenAPI document. */
  returns: 'organizations' | 'portfolios' | 'users' | 'schema' | 'page' | 'record' | 'empty';
}

type Vars = Record<string, unknown>;

/**
 * A record, asked for under REST's own names, and a page as `nodes`: the result is then already the
 * spec's JSON, so a page answers its records as they come, without an edge or a copy per item.
 */
const RECORD = 'fragment R on PropertyRecord { id properties created_at: createdAt updated_at: updatedAt }';
const PAGE = `nodes { ...R } pageInfo { hasNextPage endCursor }`;

type RecordIn = Q.RFragment;
type PageIn = { nodes: RecordIn[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };

export interface RecordOut {
  id: string;
  properties: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const page = (c: PageIn) => ({
  items: c.nodes as RecordOut[],
  nextKey: c.pageInfo.hasNextPage ? c.pageInfo.endCursor : null,
});

/** The portfolio a result names; null or undefined when absent or out of reach. */
const portfolioIn = <P>(d: { organization: { portfolio: P | null } | null }) => d.organization?.portfolio;

/** A null on the way to what a route reads means "not found or out of reach". */
function found<T>(v: T | null | undefined, what: string): T {
  if (v == null) throw notFound(what);
  return v;
}

const pagingVars = ({ check, base }: { check: ParamChecker; base: Vars }) => ({
  ...base,
  first: check.limit(),
  after: check.startKey() ?? null,
});

const scoped = { orgId: true, portfolioId: true } as const;
const listed = { ...scoped, paging: true } as const;

const base: RestRoute[] = [
  {
    method: 'GET',
    path: '/organizations/v1',
    summary: 'Organizations the caller can access',
    query: {},
    document: 'query { organizations { id name } }',
    variables: () => ({}),
    respond: (d: Q.ListOrganizationsQuery) => d.organizations,
    returns: 'organizations',
  },
  {
    method: 'GET',
    path: '/portfolios/v1',
    summary: 'Portfolios of an organization that the caller can access',
    query: { orgId: true },
    document: 'query ($orgId: ID!) { organization(id: $orgId) { id portfolios { id name createdAt } } }',
    variables: ({ base }) => base,
    respond: (d: Q.ListPortfoliosQuery) => {
      const org = found(d.organization, 'Organization');
      return org.portfolios.map((p) => ({ org_id: org.id, id: p.id, name: p.name, created_at: p.createdAt }));
    },
    returns: 'portfolios',
  },
  {
    method: 'GET',
    path: '/users/v1',
    summary: 'Members of an organization and guests with portfolio access',
    query: { orgId: true },
    document: 'query ($orgId: ID!) { organization(id: $orgId) { users { id email name role } } }',
    variables: ({ base }) => base,
    respond: (d: Q.ListUsersQuery) =>
      found(d.organization, 'Organization').users.map((u) => ({
        uid: u.id,
        email: u.email,
        name: u.name,
        role: u.role ? fromEnum('Role', u.role) : null,
      })),
    returns: 'users',
  },
];

type Kind = 'project' | 'contact' | 'parcel';
type Plural = `${Kind}s`;
const TYPE = RECORD_TYPENAME;

type SchemaIn = {
  properties: { id: string; name: string; type: Q.PropertyType; required: boolean; options: unknown[] }[];
};
const schemaRoute = <D>(kind: Kind, read: (d: D) => SchemaIn | undefined): RestRoute => ({
  method: 'GET',
  path: `/${kind}s/v1/schema`,
  summary: `The ${kind} property schema of an organization`,
  query: { orgId: true },
  document: `query ($orgId: ID!) { organization(id: $orgId) { propertySchema(kind: ${toEnum('RecordKind', kind)}) { properties { id name type required options { id name color } } } } }`,
  variables: ({ base }) => base,
  respond: (d: D) => ({
    properties: found(read(d), 'Organization').properties.map((p) => {
      const type = fromEnum('PropertyType', p.type);
      return {
        id: p.id,
        name: p.name,
        property_type: type,
        ...(propertyType(type)?.hasOptions ? { select: { options: p.options } } : {}),
        // Beyond the spec, and only when true: a client can see why a create without it fails.
        ...(p.required ? { required: true } : {}),
      };
    }),
  }),
  returns: 'schema',
});

/** A page of a portfolio's records; `read` finds the connection in the result. */
const listRoute = <D>(plural: Plural, read: (d: D) => PageIn | null | undefined): RestRoute => ({
  method: 'GET',
  path: `/${plural}/v1`,
  summary: `A page of the portfolio's ${plural}`,
  query: listed,
  document: `query ($orgId: ID!, $portfolioId: ID!, $first: Int, $after: String) { organization(id: $orgId) { portfolio(id: $portfolioId) { ${plural}(first: $first, after: $after) { ${PAGE} } } } } ${RECORD}`,
  variables: pagingVars,
  respond: (d: D) => page(found(read(d), 'Portfolio')),
  returns: 'page',
});

type UserErrorIn = { code: string; propertyId?: string | null; path?: string[] | null; message: string };
type WriteIn = { record: RecordIn | null; userErrors: UserErrorIn[] };
const USER_ERRORS = 'userErrors { code message propertyId path }';

/**
 * The written record, or REST v1's 400 VALIDATION_FAILED for the payload's userErrors: the same
 * message and details the spec's clients have always read.
 */
const written = ({ record: r, userErrors }: WriteIn): RecordOut => {
  if (userErrors.length || !r) throw validationFailed(userErrors.map(detailOf));
  return r as RecordOut;
};

const createRoute = <D>(kind: Kind, read: (d: D) => WriteIn): RestRoute => ({
  method: 'POST',
  path: `/${kind}s/v1`,
  summary: `Create a ${kind}`,
  query: scoped,
  body: { properties: 'object' },
  document: `mutation ($input: CreateRecordInput!) { create${TYPE[kind]}(input: $input) { ${kind} { ...R } ${USER_ERRORS} } } ${RECORD}`,
  variables: ({ base, body }) => ({ input: { ...base, properties: body.properties } }),
  respond: (d: D) => written(read(d)),
  returns: 'record',
});

const deleteRoute = (kind: Kind): RestRoute => ({
  method: 'DELETE',
  path: `/${kind}s/v1/:id`,
  summary: `Delete a ${kind} and its links`,
  query: scoped,
  document: `mutation ($input: DeleteRecordInput!) { delete${TYPE[kind]}(input: $input) { deletedId } }`,
  variables: ({ base, params }) => ({ input: { ...base, id: params.id } }),
  respond: () => undefined,
  returns: 'empty',
});

const updateRoute = <D>(kind: Kind, read: (d: D) => WriteIn): RestRoute => ({
  method: 'PUT',
  path: `/${kind}s/v1/:id`,
  summary: `Change the listed properties of a ${kind}`,
  query: scoped,
  body: { properties: 'object' },
  document: `mutation ($input: UpdateRecordInput!) { update${TYPE[kind]}(input: $input) { ${kind} { ...R } ${USER_ERRORS} } } ${RECORD}`,
  variables: ({ base, params, body, ifMatch }) => ({
    input: {
      ...base,
      id: params.id,
      properties: body.properties,
      ...(ifMatch ? { expectedUpdatedAt: ifMatch.toISOString() } : {}),
    },
  }),
  respond: (d: D) => {
    const out = read(d);
    // A CONFLICT comes only from If-Match (expectedUpdatedAt): 412, with the record as it is now.
    if (out.record && out.userErrors.some((e) => e.code === 'CONFLICT'))
      throw preconditionFailed(TYPE[kind], out.record.updated_at);
    return written(out);
  },
  returns: 'record',
});

/** `GET /{parent}/v1/{id}/{children}`: a link list, scoped to the portfolio named in the query. */
const linkListRoute = <D>(
  kind: Kind,
  children: Plural,
  read: (d: D) => PageIn | null | undefined,
): RestRoute => ({
  method: 'GET',
  path: `/${kind}s/v1/:id/${children}`,
  summary: `A page of the ${children} linked to a ${kind}`,
  query: listed,
  document: `query ($orgId: ID!, $portfolioId: ID!, $id: ID!, $first: Int, $after: String) { organization(id: $orgId) { portfolio(id: $portfolioId) { ${kind}(id: $id) { ${children}(first: $first, after: $after) { ${PAGE} } } } } } ${RECORD}`,
  variables: (p) => ({ ...pagingVars(p), id: p.params.id }),
  respond: (d: D) => page(found(read(d), TYPE[kind])),
  returns: 'page',
});

/** Linking (POST) or unlinking (DELETE) a contact under a project or parcel. */
const contactLinkRoute = (kind: 'project' | 'parcel', link: boolean): RestRoute => {
  const type = TYPE[kind];
  return {
    method: link ? 'POST' : 'DELETE',
    path: link ? `/${kind}s/v1/:id/contacts` : `/${kind}s/v1/:id/contacts/:contactId`,
    summary: link
      ? `Link a contact of the same portfolio to a ${kind} (idempotent)`
      : `Unlink a contact from a ${kind}; both records stay`,
    query: scoped,
    ...(link ? { body: { contactId: 'string' as const } } : {}),
    document: `mutation ($input: ${type}ContactInput!) { ${link ? 'link' : 'unlink'}${type}Contact(input: $input) { linked } }`,
    variables: ({ base, params, body }) => ({
      input: { ...base, [`${kind}Id`]: params.id, contactId: link ? body.contactId : params.contactId },
    }),
    respond: () => undefined,
    returns: 'empty',
  };
};

export const REST_ROUTES: RestRoute[] = [
  ...base,
  schemaRoute('project', (d: Q.GetProjectSchemaQuery) => d.organization?.propertySchema),
  schemaRoute('contact', (d: Q.GetContactSchemaQuery) => d.organization?.propertySchema),
  schemaRoute('parcel', (d: Q.GetParcelSchemaQuery) => d.organization?.propertySchema),
  listRoute('projects', (d: Q.ListProjectsQuery) => portfolioIn(d)?.projects),
  createRoute('project', (d: Q.CreateProjectMutation) => ({
    record: d.createProject.project,
    userErrors: d.createProject.userErrors,
  })),
  deleteRoute('project'),
  updateRoute('project', (d: Q.UpdateProjectMutation) => ({
    record: d.updateProject.project,
    userErrors: d.updateProject.userErrors,
  })),
  listRoute('contacts', (d: Q.ListContactsQuery) => portfolioIn(d)?.contacts),
  createRoute('contact', (d: Q.CreateContactMutation) => ({
    record: d.createContact.contact,
    userErrors: d.createContact.userErrors,
  })),
  deleteRoute('contact'),
  updateRoute('contact', (d: Q.UpdateContactMutation) => ({
    record: d.updateContact.contact,
    userErrors: d.updateContact.userErrors,
  })),
  updateRoute('parcel', (d: Q.UpdateParcelMutation) => ({
    record: d.updateParcel.parcel,
    userErrors: d.updateParcel.userErrors,
  })),
  linkListRoute('project', 'contacts', (d: Q.ListProjectContactsQuery) => portfolioIn(d)?.project?.contacts),
  linkListRoute('project', 'parcels', (d: Q.ListProjectParcelsQuery) => portfolioIn(d)?.project?.parcels),
  linkListRoute('parcel', 'contacts', (d: Q.ListParcelContactsQuery) => portfolioIn(d)?.parcel?.contacts),
  linkListRoute('parcel', 'projects', (d: Q.ListParcelProjectsQuery) => portfolioIn(d)?.parcel?.projects),
  linkListRoute('contact', 'projects', (d: Q.ListContactProjectsQuery) => portfolioIn(d)?.contact?.projects),
  linkListRoute('contact', 'parcels', (d: Q.ListContactParcelsQuery) => portfolioIn(d)?.contact?.parcels),
  contactLinkRoute('project', true),
  contactLinkRoute('project', false),
  contactLinkRoute('parcel', true),
  contactLinkRoute('parcel', false),
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

/** A record's ETag: its version, the millisecond of its `updated_at` (which grows on every update). */
export const etagOf = (updatedAt: string) => `"${Date.parse(updatedAt)}"`;

/**
 * The version an If-Match header asks for: undefined for `*` (any current record); otherwise
 * exactly one ETag as etagOf makes it. Anything else cannot match any version: 412.
 */
export function ifMatchVersion(header: string | undefined, what: string): Date | undefined {
  if (header === undefined) return undefined;
  const v = header.trim();
  if (v === '*') return undefined;
  const m = /^"(\d{1,15})"$/.exec(v);
  if (!m) throw preconditionFailed(what);
  return new Date(Number(m[1]));
}

export const preconditionFailed = (what: string, now?: string) =>
  new AppError(
    'PRECONDITION_FAILED',
    `If-Match does not match the ${what}'s current version${now ? ` (its ETag is now ${etagOf(now)}, updated_at ${now})` : ''}; nothing was changed. Read it again and retry with its ETag. If-Match takes one ETag as returned, or *.`,
  );

export const methodNotAllowed = (path: string, allow: string[]) =>
  new AppError(
    'METHOD_NOT_ALLOWED',
    `${METHOD_EXPLANATIONS[path] ?? 'This method is not supported on this path.'} Allowed: ${allow.join(', ') || 'none'}.`,
  );
