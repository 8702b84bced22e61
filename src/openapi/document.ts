import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordKind } from '../db/types.js';
import { ERROR_STATUS, type ErrorCode, RETRY_AFTER_CODES } from '../errors.js';
import { ID_PREFIX } from '../ids.js';
import {
  PROPERTY_TYPE_NAMES,
  PROPERTY_TYPES,
  strictObject,
  VALUE_SHAPES,
} from '../modules/properties/index.js';
import { MAX_PROPERTIES_PER_WRITE, RECORD_TYPENAME } from '../modules/records/index.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination/connection.js';
import { PACKAGE_ROOT } from '../paths.js';
import { operationId } from '../rest/names.js';
import { METHOD_EXPLANATIONS, REST_ROUTES, type RestRoute } from '../rest/routes.js';

/**
 * The OpenAPI 3.1 document of REST v1, built from REST_ROUTES: the same route table whose `query`
 * and `body` flags drive request validation (src/rest/params.ts), so the two cannot drift. The
 * schemas below describe what the adapter's `respond` functions produce; test/openapi.test.ts checks
 * real responses of every route against them.
 */

type Json = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A record kind by its REST plural: its schema name and its id prefix. */
const kind = <K extends RecordKind>(k: K) => ({
  kind: k,
  type: RECORD_TYPENAME[k],
  prefix: `${ID_PREFIX[RECORD_TYPENAME[k]]}_`,
});
const KINDS = { projects: kind('project'), parcels: kind('parcel'), contacts: kind('contact') };
type Plural = keyof typeof KINDS;
const isPlural = (s: string): s is Plural => s in KINDS;

/** Properties the default schemas require on create (spec); an organization's schema may add more. */
const REQUIRED_ON_CREATE: Partial<Record<Plural, string>> = { projects: 'name', contacts: 'first_name' };

const ROLES = ['owner', 'admin', 'member', 'viewer', 'guest'];

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad input: a missing or invalid query parameter, body or property value. `details` lists every problem.',
  401: 'The X-API-Key header is missing, or the key is unknown or revoked.',
  403: 'The key is valid, but its role cannot do this (the viewer role is read-only).',
  404: 'Not found, or outside what the key can reach: both answer the same, so ids cannot be probed.',
  405: 'The path exists but does not take this method; the Allow header lists the methods it takes.',
  412: 'If-Match names a version the record no longer has (someone changed it since): nothing was changed; read it again and retry with its ETag.',
  422: 'GraphQL bulk writes only (docs/sync.md): the idempotencyKey was used in the last 24 hours with a different input.',
  408: 'The request was not received within the time allowed (REQUEST_TIMEOUT_MS).',
  413: 'The request body is larger than the limit.',
  415: 'The body is not JSON; send Content-Type: application/json.',
  429: 'Too many requests for this API key (or, without a valid key, from this address); retry after Retry-After seconds.',
  431: 'The request line and headers are larger than 16 KB (a startKey or id far longer than any the service returns).',
  500: 'An internal fault. The message quotes an errorId that is also in the server log.',
  503: 'The database is unavailable, the request took too long, or the server is busy with other large pages (OVERLOADED); retry after Retry-After seconds.',
};

/** Codes of each status, from the one closed error table. */
function codesByStatus(): Map<number, ErrorCode[]> {
  const m = new Map<number, ErrorCode[]>();
  for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) {
    m.set(status, [...(m.get(status) ?? []), code]);
  }
  return m;
}

const text = (description: string) => ({ type: 'string', description });

/**
 * Property value objects, read and written: each value shape of the property-type registry
 * contributes `<Name>` and `<Name>Input`; the project location is the one value no type owns.
 */
function valueSchemas(): Json {
  const reads = VALUE_SHAPES.map((s) => [s.openapi.name, s.openapi.read] as const);
  const writes = VALUE_SHAPES.map((s) => [`${s.openapi.name}Input`, s.openapi.write] as const);
  return {
    ...Object.fromEntries(reads),
    PropertyValue: {
      description:
        'A property value object: exactly one member named after the value kind, as the schema property type decides.',
      oneOf: reads.map(([name]) => ref(name)),
    },
    ...locationSchemas(),
    // Writes: the same value objects, where a null inner member clears the value.
    ...Object.fromEntries(writes),
    PropertyValueInput: {
      description: 'A property value object to write. `labels` may be sent back as read; it is ignored.',
      oneOf: writes.map(([name]) => ref(name)),
    },
    PropertiesInput: {
      type: 'object',
      description: `Schema property id → value object. Only the listed properties change. At most ${MAX_PROPERTIES_PER_WRITE} per write.`,
      additionalProperties: ref('PropertyValueInput'),
      maxProperties: MAX_PROPERTIES_PER_WRITE,
      examples: [{ name: { text: 'Mesa Verde Solar' }, capacity_mw: { number: 120.5 } }],
    },
  };
}

function locationSchemas(): Json {
  return {
    GeoJsonPoint: strictObject(
      {
        type: { const: 'Point' },
        coordinates: {
          type: 'array',
          prefixItems: [
            { type: 'number', minimum: -180, maximum: 180 },
            { type: 'number', minimum: -90, maximum: 90 },
          ],
          minItems: 2,
          maxItems: 2,
          description: '[longitude, latitude] in WGS 84.',
        },
      },
      ['type', 'coordinates'],
      'A GeoJSON point.',
    ),
    LocationValue: strictObject(
      { location: ref('GeoJsonPoint') },
      ['location'],
      'The read-only project location: the area-weighted centroid of the linked parcels. Present only when the project has parcels.',
      { readOnly: true },
    ),
  };
}

function recordSchema(plural: Plural): Json {
  const { type, prefix } = KINDS[plural];
  const properties: Json = {
    type: 'object',
    description: 'Schema property id → value object. Only set properties appear.',
    additionalProperties: ref('PropertyValue'),
  };
  if (plural === 'projects') properties.properties = { location: ref('LocationValue') };
  return {
    type: 'object',
    description: `A ${type.toLowerCase()}.`,
    required: ['id', 'properties', 'created_at', 'updated_at'],
    additionalProperties: false,
    properties: {
      id: {
        type: 'string',
        description: `Generated by the service (\`${prefix}…\`).`,
        examples: [`${prefix}…`],
      },
      properties,
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time', description: 'Changes on every update.' },
    },
  };
}

function pageSchema(plural: Plural): Json {
  return {
    type: 'object',
    description: `A page of ${plural}. Send \`nextKey\` as \`startKey\` for the next page.`,
    required: ['items', 'nextKey'],
    additionalProperties: false,
    properties: {
      items: { type: 'array', items: ref(KINDS[plural].type) },
      nextKey: { type: ['string', 'null'], description: 'null when no further page exists.' },
    },
  };
}

function errorSchema(codes?: ErrorCode[]): Json {
  return {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: {
            type: 'string',
            enum: codes ?? Object.keys(ERROR_STATUS),
            description: 'A stable, machine-readable code.',
          },
          message: { type: 'string', description: 'What was wrong and how to fix it.' },
          details: { type: 'array', items: ref('ErrorDetail'), minItems: 1 },
          errorId: {
            type: 'string',
            description: 'On internal errors: the id to quote; it is in the server log.',
          },
        },
      },
    },
  };
}

function schemas(byStatus: Map<number, ErrorCode[]>): Json {
  const out: Json = {
    Organization: {
      type: 'object',
      required: ['id', 'name'],
      additionalProperties: false,
      properties: { id: text('Organization id (`org_…`).'), name: { type: 'string' } },
    },
    Portfolio: {
      type: 'object',
      required: ['org_id', 'id', 'name', 'created_at'],
      additionalProperties: false,
      properties: {
        org_id: text('The owning organization.'),
        id: text('Portfolio id (`pf_…`).'),
        name: { type: 'string' },
        created_at: { type: 'string', format: 'date-time', description: 'ISO 8601, UTC.' },
      },
    },
    User: {
      type: 'object',
      required: ['uid', 'email', 'name', 'role'],
      additionalProperties: false,
      properties: {
        uid: text('User id (`usr_…`), the value used in people properties.'),
        email: { type: 'string', format: 'email' },
        name: { type: 'string' },
        role: {
          type: 'string',
          enum: ROLES,
          description:
            'owner, admin and member read and write every portfolio; viewer reads only; guest reaches only granted portfolios.',
        },
      },
    },
    SelectOption: {
      type: 'object',
      required: ['id', 'name', 'color'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        color: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$', description: 'A hex colour.' },
      },
    },
    SchemaProperty: {
      type: 'object',
      required: ['id', 'name', 'property_type'],
      additionalProperties: false,
      properties: {
        id: text('The key to use when setting or reading the property.'),
        name: text('Display name.'),
        property_type: { type: 'string', enum: PROPERTY_TYPE_NAMES },
        select: {
          type: 'object',
          required: ['options'],
          additionalProperties: false,
          properties: { options: { type: 'array', items: ref('SelectOption') } },
        },
        required: {
          type: 'boolean',
          const: true,
          description:
            'Present (true) when the property must be set on create and cannot be cleared; absent otherwise.',
        },
      },
      // `select` is there exactly for the types with options (select and multi_select).
      if: {
        properties: {
          property_type: { enum: PROPERTY_TYPES.filter((t) => t.hasOptions).map((t) => t.name) },
        },
      },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
      then: { required: ['select'] },
      else: { not: { required: ['select'] } },
    },
    Schema: {
      type: 'object',
      description: 'The property schema of one record kind in one organization.',
      required: ['properties'],
      additionalProperties: false,
      properties: { properties: { type: 'array', items: ref('SchemaProperty') } },
    },
    ...valueSchemas(),
    ErrorDetail: {
      type: 'object',
      required: ['reason'],
      properties: {
        field: text('The property id, parameter or body member the problem is about.'),
        reason: { type: 'string' },
      },
    },
    Error: { description: 'The error body of every error response.', ...errorSchema() },
  };
  for (const plural of Object.keys(KINDS) as Plural[]) {
    out[KINDS[plural].type] = recordSchema(plural);
    out[`${KINDS[plural].type}Page`] = pageSchema(plural);
  }
  for (const [status, codes] of byStatus) out[`Error${status}`] = errorSchema(codes);
  return out;
}

// ---- operations ---------------------------------------------------------------------------------

const segments = (path: string) => path.split('/').filter(Boolean);
const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

/** The record kind a page or record response holds: the last plural resource named in the path. */
function recordsOf(route: RestRoute): Plural {
  const segs = segments(route.path).filter(isPlural);
  return route.returns === 'page' ? segs[segs.length - 1] : segs[0];
}

function pathParams(route: RestRoute): Json[] {
  const segs = segments(route.path);
  return segs
    .map((s, i) => ({ s, owner: segs[i - 1] === 'v1' ? segs[i - 2] : segs[i - 1] }))
    .filter(({ s }) => s.startsWith(':'))
    .map(({ s, owner }) => {
      const name = s.slice(1);
      const what = name === 'contactId' ? KINDS.contacts : isPlural(owner) ? KINDS[owner] : undefined;
      return {
        name,
        in: 'path',
        required: true,
        description: what ? `The ${what.kind} id (\`${what.prefix}…\`).` : 'The id.',
        schema: { type: 'string', minLength: 1 },
      };
    });
}

function queryParams(route: RestRoute): Json[] {
  const p: Json[] = [];
  if (route.query.orgId) p.push({ $ref: '#/components/parameters/orgId' });
  if (route.query.portfolioId) p.push({ $ref: '#/components/parameters/portfolioId' });
  if (route.query.paging) {
    p.push({ $ref: '#/components/parameters/limit' }, { $ref: '#/components/parameters/startKey' });
  }
  return p;
}

function requestBody(route: RestRoute): Json | undefined {
  if (!route.body) return undefined;
  const plural = recordsOf(route);
  const required = route.method === 'POST' ? REQUIRED_ON_CREATE[plural] : undefined;
  const members: Json = {};
  // The same member list ParamChecker.body() enforces: every member required, no others.
  for (const [name, type] of Object.entries(route.body)) {
    if (type === 'object' && name === 'properties') {
      members[name] = required
        ? {
            allOf: [ref('PropertiesInput')],
            required: [required],
            properties: { [required]: ref('TextValueInput') },
            description: `Must set \`${required}\` (a \`{ text }\` value) and any other property the organization's schema marks required.`,
          }
        : ref('PropertiesInput');
    } else if (type === 'object') {
      members[name] = { type: 'object' };
    } else {
      members[name] = {
        type: 'string',
        minLength: 1,
        pattern: '\\S',
        ...(name === 'contactId' ? { description: 'A contact of the same portfolio (`con_…`).' } : {}),
      };
    }
  }
  return {
    required: true,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: Object.keys(route.body),
          additionalProperties: false,
          properties: members,
        },
      },
    },
  };
}

function successResponse(route: RestRoute): Json {
  const json = (schema: Json, description: string) => ({
    description,
    content: { 'application/json': { schema } },
  });
  switch (route.returns) {
    case 'organizations':
      return json({ type: 'array', items: ref('Organization') }, 'The organizations the key can reach.');
    case 'portfolios':
      return json({ type: 'array', items: ref('Portfolio') }, 'The portfolios the key can reach.');
    case 'users':
      return json({ type: 'array', items: ref('User') }, 'Members, and guests with portfolio access.');
    case 'schema':
      return json(ref('Schema'), 'The property schema.');
    case 'page':
      return json(ref(`${KINDS[recordsOf(route)].type}Page`), 'A page.');
    case 'record':
      return {
        ...json(
          ref(KINDS[recordsOf(route)].type),
          route.method === 'POST'
            ? 'The created record, with its generated id.'
            : 'The whole updated record.',
        ),
        headers: {
          ETag: {
            description: "The record's version, for If-Match on a later PUT.",
            schema: { type: 'string' },
          },
        },
      };
    case 'empty':
      return { description: 'Done. The body is empty.' };
  }
}

/** The error statuses a route can answer, from what its request carries. */
export function errorStatuses(route: RestRoute): number[] {
  const s = [401];
  const takesInput = Object.keys(route.query).length > 0 || !!route.body;
  if (takesInput) s.push(400);
  if (route.method !== 'GET') s.push(403);
  if (route.query.orgId) s.push(404);
  if (route.body) s.push(413, 415);
  if (route.method === 'PUT') s.push(412);
  s.push(429, 500, 503);
  return s.sort();
}

/** PUT takes an optional If-Match: the ETag of the version the change is based on. */
const ifMatchParam = (route: RestRoute): Json[] =>
  route.method === 'PUT'
    ? [
        {
          name: 'If-Match',
          in: 'header',
          required: false,
          description:
            'Optional. The ETag of the record as last read (record responses carry it); if the record has changed since, the answer is 412 PRECONDITION_FAILED and nothing is written. `*` matches any version.',
          schema: { type: 'string' },
        },
      ]
    : [];

function operation(route: RestRoute): Json {
  const plural = segments(route.path)[0];
  const responses: Json = { 200: successResponse(route) };
  for (const status of errorStatuses(route))
    responses[status] = { $ref: `#/components/responses/Error${status}` };
  const body = requestBody(route);
  return {
    operationId: operationId(route),
    summary: route.summary,
    tags: [cap(plural)],
    parameters: [...pathParams(route), ...queryParams(route), ...ifMatchParam(route)],
    ...(body ? { requestBody: body } : {}),
    responses,
    'x-graphql-operation': route.document,
  };
}

function errorResponses(byStatus: Map<number, ErrorCode[]>): Json {
  const out: Json = {};
  for (const [status, codes] of byStatus) {
    out[`Error${status}`] = {
      description: `${STATUS_TEXT[status] ?? 'An error.'} Codes: ${codes.join(', ')}.`,
      ...(codes.some((c) => RETRY_AFTER_CODES.has(c))
        ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
        : status === 405
          ? { headers: { Allow: { description: 'The methods the path takes.', schema: { type: 'string' } } } }
          : {}),
      content: { 'application/json': { schema: ref(`Error${status}`) } },
    };
  }
  return out;
}

const TAG_TEXT: Record<string, string> = {
  Organizations: 'Organizations the key can reach.',
  Portfolios: 'Portfolios of an organization.',
  Users: 'Members and guests of an organization.',
  Projects: 'Projects, their property schema, and their links to contacts and parcels.',
  Parcels:
    'Parcels come from cadastral data: the API reads, updates and links them, but never creates or deletes them.',
  Contacts: 'Contacts (land owners, brokers, counsel) and their links.',
};

function packageVersion(): string {
  try {
    return JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version;
  } catch {
    return '0.0.0';
  }
}

export function buildOpenApiDocument(routes: RestRoute[] = REST_ROUTES): Json {
  const byStatus = codesByStatus();
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const p = toOpenApiPath(route.path);
    paths[p] ??= {};
    paths[p][route.method.toLowerCase()] = operation(route);
  }
  // Say which methods a path refuses, and why (the adapter answers them with 405 and Allow).
  for (const [path, why] of Object.entries(METHOD_EXPLANATIONS)) {
    const p = toOpenApiPath(path);
    if (paths[p]) paths[p].description = `${why} Other methods answer 405 with an Allow header.`;
  }
  const used = new Set(routes.map((r) => segments(r.path)[0]).map(cap));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Solar Project Data Service: REST v1',
      version: packageVersion(),
      description: [
        'The REST v1 interface of the Solar Data Gateway. Every route runs a GraphQL operation (shown as `x-graphql-operation`) on the same schema as `/graphql`.',
        '',
        'Every call carries the `X-API-Key` header. Anything outside what the key can reach answers 404, exactly like something that does not exist.',
        '',
        'Every error has the body `{ "error": { "code", "message", "details"? } }`. A path that exists answers 405 (with `Allow`) to methods it does not take.',
      ].join('\n'),
    },
    // Relative to where this document is served, so it stays right behind any path prefix.
    servers: [{ url: '.', description: 'This server' }],
    security: [{ ApiKey: [] }],
    tags: Object.keys(TAG_TEXT)
      .filter((t) => used.has(t))
      .map((name) => ({ name, description: TAG_TEXT[name] })),
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description:
            'A personal API key (`sdg key create`). Results are limited to what its user may access.',
        },
      },
      parameters: {
        orgId: {
          name: 'orgId',
          in: 'query',
          required: true,
          description: 'The organization (`org_…`).',
          schema: { type: 'string', minLength: 1, pattern: '\\S' },
        },
        portfolioId: {
          name: 'portfolioId',
          in: 'query',
          required: true,
          description: 'The portfolio (`pf_…`) of the organization.',
          schema: { type: 'string', minLength: 1, pattern: '\\S' },
        },
        limit: {
          name: 'limit',
          in: 'query',
          required: false,
          description: `Most items to return, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when omitted.`,
          schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
        },
        startKey: {
          name: 'startKey',
          in: 'query',
          required: false,
          description: 'The `nextKey` of the previous page. Keys are opaque and signed.',
          schema: { type: 'string', minLength: 1 },
        },
      },
      schemas: schemas(byStatus),
      responses: errorResponses(byStatus),
    },
  };
}
