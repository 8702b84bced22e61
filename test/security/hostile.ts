import { bulkInsertRecords } from '../../src/modules/records/repository.js';
import { REST_ROUTES, type RestRoute } from '../../src/rest/routes.js';
import { expect, type TestEnv } from '../helpers/fixtures.js';
import type { Res } from '../helpers/http.js';
import { PLURAL } from '../records-helpers.js';
import {
  type AuditRow,
  auditCursor,
  graphqlErrorProblems,
  installAudit,
  restErrorProblems,
} from './support.js';

/**
 * Shared by the hostile-input suites (hostile-input.test.ts, hostile-params.test.ts): the requests each
 * REST route would accept, and `refused`, which sends a bad variant and reports every way its answer
 * falls short: not a 4xx with the JSON error body and a code from the table, leaking a stack trace or
 * SQL, or writing any row at all (an audit trigger on every tenant table records each row change).
 */

export type Kind = 'project' | 'parcel' | 'contact';
export const NAME_PROP = { project: 'name', parcel: 'name', contact: 'first_name' } as const;

export interface Req {
  name: string;
  method: string;
  url: string;
  query?: Record<string, string | string[]>;
  /** A string is sent as it is (raw JSON text); anything else is JSON-encoded. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Ctx {
  env: TestEnv;
  scope: { orgId: string; portfolioId: string };
  /** Records of portfolio A1 the requests aim at, made for this file. */
  ids: Record<Kind, string> & { contact2: string };
  /** Records of org B (another tenant). */
  foreign: Record<Kind, string>;
  audit: () => Promise<AuditRow[]>;
  schema: Record<Kind, { id: string; property_type: string; select?: { options: { id: string }[] } }[]>;
}

/**
 * Each file's setup, by its env. Not a module variable: a worker runs its files in one module graph
 * (vitest `isolate: false`), and a module variable handed the next file the last file's closed app
 * and database (every test of hostile-params failed with "driver has already been destroyed").
 */
const made = new WeakMap<TestEnv, Promise<Ctx>>();

export function setup(env: TestEnv): Promise<Ctx> {
  let c = made.get(env);
  if (!c) {
    c = build(env);
    made.set(env, c);
  }
  return c;
}

async function build(env: TestEnv): Promise<Ctx> {
  const db = env.database.db;
  await installAudit(db);
  const scope = { orgId: env.demo.orgs.A.id, portfolioId: env.demo.orgs.A.portfolios.A1 };
  const ins = async (kind: Kind, org: 'A' | 'B', props: Record<string, unknown>[]) =>
    bulkInsertRecords(
      db,
      kind,
      env.demo.orgs[org].id,
      org === 'A' ? env.demo.orgs.A.portfolios.A1 : env.demo.orgs.B.portfolios.B1,
      props.map((properties) => ({ properties: properties as never })),
    );
  const [project] = await ins('project', 'A', [{ name: { text: 'hostile target' } }]);
  const [parcel] = await ins('parcel', 'A', [{ name: { text: 'hostile parcel' } }]);
  const [contact, contact2] = await ins('contact', 'A', [
    { first_name: { text: 'Hostile' } },
    { first_name: { text: 'Hostile 2' } },
  ]);
  const [fp] = await ins('project', 'B', [{ name: { text: 'theirs' } }]);
  const [fr] = await ins('parcel', 'B', [{ name: { text: 'theirs' } }]);
  const [fc] = await ins('contact', 'B', [{ first_name: { text: 'theirs' } }]);
  const schema = {} as Ctx['schema'];
  for (const k of ['project', 'parcel', 'contact'] as const)
    schema[k] = (await env.as.alice.get(`/${PLURAL[k]}/v1/schema`, { orgId: scope.orgId })).body.properties;
  return {
    env,
    scope,
    ids: { project, parcel, contact, contact2 },
    foreign: { project: fp, parcel: fr, contact: fc },
    audit: await auditCursor(db),
    schema,
  };
}

export const kindOf = (route: RestRoute): Kind => route.path.split('/')[1].replace(/s$/, '') as Kind;

/** A request to `route` that would succeed: real ids of A1 in the path, a valid body, the scope. */
export function valid(c: Ctx, route: RestRoute): Req {
  const kind = kindOf(route);
  const url = route.path.replace(':id', c.ids[kind]).replace(':contactId', c.ids.contact);
  const query: Record<string, string> = {};
  if (route.query.orgId) query.orgId = c.scope.orgId;
  if (route.query.portfolioId) query.portfolioId = c.scope.portfolioId;
  const body = route.body?.contactId
    ? { contactId: c.ids.contact2 }
    : route.body
      ? { properties: { [NAME_PROP[kind]]: { text: 'valid' } } }
      : undefined;
  return { name: `${route.method} ${route.path}`, method: route.method, url, query, body };
}

export const BODY_ROUTES = REST_ROUTES.filter((r) => r.body);
export const LIST_ROUTES = REST_ROUTES.filter((r) => r.query.paging);
export const RECORD_WRITES = REST_ROUTES.filter((r) => r.body?.properties);

export async function send(c: Ctx, r: Req): Promise<Res> {
  const a = c.env.as.alice;
  const headers = { ...r.headers };
  if (r.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  return a.send(r.method, r.url, { query: r.query, body: r.body, headers });
}

/**
 * Sends a request that must be refused and returns what is wrong with the answer: not the expected
 * status/code, not the JSON error body, leaking internals, or any row written.
 */
export async function refused(
  c: Ctx,
  r: Req,
  want: { status?: number; code?: string | string[] } = {},
): Promise<string[] & { res?: Res }> {
  await c.audit();
  const res = await send(c, r);
  const graphql = r.url === '/graphql';
  // GraphQL field errors come with 200 and `errors` (GraphQL over HTTP); graphqlErrorProblems checks them.
  const out = graphql ? graphqlErrorProblems(res) : restErrorProblems(res);
  if (want.status && res.status !== want.status) out.push(`status ${res.status}, want ${want.status}`);
  const code = graphql ? res.body?.errors?.[0]?.extensions?.code : res.body?.error?.code;
  const codes = want.code === undefined ? undefined : [want.code].flat();
  if (codes && !codes.includes(code)) out.push(`code ${code}, want ${codes.join('|')}`);
  const rows = await c.audit();
  if (rows.length) out.push(`wrote rows: ${rows.map((a) => `${a.op} ${a.tbl}`).join(', ')}`);
  return Object.assign(
    out.map((p) => `${r.name}: ${p}`),
    { res },
  );
}

/** Runs every request and expects no problem at all. */
export async function allRefused(c: Ctx, reqs: [Req, { status?: number; code?: string | string[] }][]) {
  const problems: string[] = [];
  for (const [r, want] of reqs) problems.push(...(await refused(c, r, want)));
  expect(problems).toEqual([]);
}

/** The body endpoints plus /graphql (with a createProject mutation) for the transport-level classes. */
export function bodyTargets(c: Ctx): Req[] {
  return [
    ...BODY_ROUTES.map((r) => valid(c, r)),
    {
      name: 'POST /graphql',
      method: 'POST',
      url: '/graphql',
      body: {
        query: 'mutation ($i: CreateRecordInput!) { createProject(input: $i) { project { id } } }',
        variables: { i: { ...c.scope, properties: { name: { text: 'valid' } } } },
      },
    },
  ];
}

export const withBody = (r: Req, body: unknown, headers?: Record<string, string>, tag = ''): Req => ({
  ...r,
  name: `${r.name} ${tag}`.trim(),
  body,
  headers,
});
