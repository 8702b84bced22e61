/**
 * The raw floor the gateway is measured against: node:http + pg, no framework, no GraphQL, no
 * Kysely. It serves the benchmark's read scenarios with the SQL statements the gateway sends (the
 * same texts as src/modules/auth/repository.ts findViewerByHash, records/repository.ts pagesFor,
 * org/repository.ts listPortfolios and listOrgUsers, schema/repository.ts schemasByKeys), keeps the
 * same process cache of per-org data keyed by the org version the key lookup returns (like
 * src/db/org-cache.ts), checks access and cursors the same way, and answers with bodies equal to the
 * gateway's (the runner compares them before measuring), serialized as the gateway serializes them.
 *
 *   GET /projects/v1?orgId&portfolioId&limit&startKey         REST page (scenarios 1, 2, 3)
 *   GET /nested?orgId&portfolioId&projects&contacts&parcels   the nested GraphQL result (scenario 7)
 *
 * Warm, a request is the key lookup plus one page statement per list level; the portfolio list,
 * property schemas and user list come from the cache, loaded once per org version.
 *
 * Environment: PORT, HOST, DATABASE_URL (Postgres) or SDG_DATA_DIR (PGlite), SDG_EXPOSE_SQL_COUNT=1.
 *
 * It runs with the gateway's V8 settings (src/v8-flags.ts), so that neither gets a runtime the
 * other does not.
 */
import '../src/v8-flags.js';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { isoString, parseTimestamptz } from '../src/db/timestamps.js';
import { jsonBytes } from '../src/http/json-bytes.js';
import {
  AUTH_SQL,
  type Kind,
  LIST,
  ORG_USERS_SQL,
  PORTFOLIOS_SQL,
  pagesSql,
  SCHEMA_SQL,
  STAMP_SQL,
} from './baseline-sql.js';
import { HttpError, intParam, required } from './http-params.js';

// The gateway's timestamptz parser (src/db/database.ts), so the floor reads rows no slower than it.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz);

interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** Per-org data keyed by (org, version), as src/db/org-cache.ts keeps it: never stale, LRU-bounded. */
class OrgCache {
  private readonly entries = new Map<string, unknown>();
  constructor(private readonly max = 5_000) {}
  peek<T>(orgId: string, version: number | undefined, what: string): T | undefined {
    if (version === undefined) return undefined;
    return this.entries.get(`${orgId}\0${version}\0${what}`) as T | undefined;
  }

  put<T>(orgId: string, version: number | undefined, what: string, value: T): void {
    if (version === undefined) return;
    this.entries.set(`${orgId}\0${version}\0${what}`, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  async get<T>(orgId: string, version: number | undefined, what: string, load: () => Promise<T>): Promise<T> {
    if (version === undefined) return load();
    const key = `${orgId}\0${version}\0${what}`;
    if (this.entries.has(key)) {
      const v = this.entries.get(key) as T;
      this.entries.delete(key);
      this.entries.set(key, v);
      return v;
    }
    const v = await load();
    this.entries.set(key, v);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return v;
  }
}

// ---- The request's work ----

interface Row {
  ord: number;
  org_id: string;
  portfolio_id: string;
  id: string;
  properties: Record<string, any>;
  created_at: Date;
  updated_at: Date;
  location?: unknown;
  sort_at: Date;
}

interface Def {
  id: string;
  name: string;
  property_type: string;
  options: { id: string; name: string; color: string }[];
}

/** Cursors exactly as src/pagination/cursor.ts makes them: base64url(JSON) "." HMAC-SHA256 truncated. */
class Cursors {
  constructor(private readonly secret: string) {}
  private sign(scope: string, payload: string) {
    return createHmac('sha256', this.secret)
      .update(scope)
      .update('\0')
      .update(payload)
      .digest('base64url')
      .slice(0, 16);
  }
  encode(scope: string, values: (string | number)[]) {
    const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
    return `${payload}.${this.sign(scope, payload)}`;
  }
  decode(scope: string, cursor: string): [number, string] {
    const bad = new HttpError(400, 'INVALID_CURSOR', 'The cursor is malformed.');
    const dot = cursor.indexOf('.');
    if (cursor.length > 512 || dot <= 0) throw bad;
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.sign(scope, payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad;
    const v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'number' || typeof v[1] !== 'string')
      throw bad;
    return v as [number, string];
  }
}

interface Caller {
  canRead(orgId: string, portfolioId: string): boolean;
  versions: Map<string, number>;
}

type Schema = { list: Def[]; byId: Map<string, Def> };

class Request {
  statements = 0;
  constructor(
    private readonly pool: Queryable,
    readonly cursors: Cursors,
    private readonly cache: OrgCache,
  ) {}

  async q<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    this.statements++;
    return (await this.pool.query<R>(text, values)).rows;
  }

  /** findViewerByHash: access, and the caller's org versions that key the cache. */
  async auth(key: string | string[] | undefined): Promise<Caller> {
    if (typeof key !== 'string' || !/^[A-Za-z0-9_-]{16,200}$/.test(key))
      throw new HttpError(401, 'UNAUTHENTICATED', 'Send your API key in the X-API-Key header.');
    const hash = createHash('sha256').update(key).digest('hex');
    const rows = await this.q<{
      key_id: string;
      stale: boolean;
      id: string;
      roles: { org: string; role: string }[];
      guest: { org: string; portfolio: string }[];
      versions: Record<string, number>;
    }>(AUTH_SQL, ['60 seconds', hash]);
    if (!rows[0])
      throw new HttpError(401, 'UNAUTHENTICATED', 'The API key in X-API-Key is unknown or revoked.');
    if (rows[0].stale) await this.q(STAMP_SQL, [rows[0].key_id, '60 seconds']);
    const member = new Set(rows[0].roles.map((r) => r.org));
    const guest = new Set(rows[0].guest.map((g) => `${g.org}\0${g.portfolio}`));
    return {
      canRead: (orgId, portfolioId) => member.has(orgId) || guest.has(`${orgId}\0${portfolioId}`),
      versions: new Map(Object.entries(rows[0].versions).map(([o, v]) => [o, Number(v)])),
    };
  }

  async portfolio(caller: Caller, orgId: string, portfolioId: string) {
    if (!caller.canRead(orgId, portfolioId)) throw notFound();
    const list = await this.cache.get(orgId, caller.versions.get(orgId), 'portfolios', () =>
      this.q<{ id: string }>(PORTFOLIOS_SQL, [orgId]),
    );
    if (!list.some((p) => p.id === portfolioId)) throw notFound();
  }

  async pages(
    listName: keyof typeof LIST,
    parents: { orgId: string; id: string }[],
    limit: number,
    bound?: [number, string],
  ): Promise<Row[][]> {
    const out: Row[][] = parents.map(() => []);
    if (!parents.length) return out;
    // One org per batch, as the gateway's loaders batch.
    const orgId = parents[0].orgId;
    const params = [
      parents.map((_, i) => i),
      parents.map((p) => p.id),
      parents.map(() => (bound ? new Date(bound[0]).toISOString() : '-infinity')),
      parents.map(() => bound?.[1] ?? ''),
      parents.map(() => limit + 1),
      orgId,
      ...(LIST[listName].link ? [orgId] : []),
    ];
    for (const r of await this.q<Row>(pagesSql(LIST[listName]), params)) out[r.ord].push(r);
    return out;
  }

  /** Schemas of these kinds: cached per org version; the missing kinds load in one statement. */
  async schemas(caller: Caller, orgId: string, kinds: Kind[]): Promise<Map<Kind, Schema>> {
    const version = caller.versions.get(orgId);
    const out = new Map<Kind, Schema>();
    const missing: Kind[] = [];
    for (const k of kinds) {
      const hit = this.cache.peek<Schema>(orgId, version, `schema:${k}`);
      if (hit) out.set(k, hit);
      else missing.push(k);
    }
    if (missing.length) {
      const rows = await this.q<Def & { kind: Kind }>(SCHEMA_SQL(missing.length), [orgId, ...missing]);
      for (const k of missing) {
        const list = rows.filter((r) => r.kind === k);
        const schema = { list, byId: new Map(list.map((d) => [d.id, d])) };
        this.cache.put(orgId, version, `schema:${k}`, schema);
        out.set(k, schema);
      }
    }
    return out;
  }

  /** The org's members and guests (people labels), cached per org version. */
  async users(caller: Caller, orgId: string): Promise<Map<string, { id: string; name: string }>> {
    const list = await this.cache.get(orgId, caller.versions.get(orgId), 'users', () =>
      this.q<{ id: string; email: string; name: string }>(ORG_USERS_SQL, [orgId, orgId, orgId]),
    );
    return new Map(list.map((u) => [u.id, u]));
  }
}

const notFound = () => new HttpError(404, 'NOT_FOUND', 'Not found, or your API key has no access to it.');

function hasPeople(rows: Row[]): boolean {
  for (const r of rows) for (const v of Object.values(r.properties)) if (v && 'people' in v) return true;
  return false;
}

// ---- Response shapes (the same JSON the gateway produces) ----

function restProperties(
  r: Row,
  byId: Map<string, Def>,
  users: Map<string, { name: string }>,
  project: boolean,
) {
  const out: Record<string, unknown> = {};
  for (const [id, v] of Object.entries(r.properties)) {
    if ('select' in v) {
      const def = byId.get(id);
      out[id] = {
        select: v.select,
        labels: v.select.map((o: string) => def?.options.find((x) => x.id === o)?.name ?? o),
      };
    } else if ('people' in v) {
      out[id] = { people: v.people, labels: v.people.map((u: string) => users.get(u)?.name ?? u) };
    } else out[id] = v;
  }
  if (project && r.location) out.location = { location: r.location };
  return out;
}

const TYPENAME: Record<string, string> = {
  text: 'TextValue',
  url: 'TextValue',
  email: 'TextValue',
  number: 'NumberValue',
  date: 'DateValue',
  select: 'SelectValue',
  multi_select: 'SelectValue',
  people: 'PeopleValue',
};

/** The typed `values` list of the GraphQL documents in bench/scenarios.ts (fragment V). */
function typedValues(r: Row, defs: Def[], users: Map<string, { id: string; name: string }>) {
  const out: Record<string, unknown>[] = [];
  for (const def of defs) {
    const v = r.properties[def.id];
    if (v === undefined) continue;
    const t = TYPENAME[def.property_type];
    const o: Record<string, unknown> = { __typename: t, propertyId: def.id };
    if (t === 'TextValue') o.text = v.text;
    else if (t === 'NumberValue') o.number = v.number;
    else if (t === 'DateValue') o.start = v.date.start;
    else if (t === 'SelectValue')
      o.options = v.select.map(
        (id: string) => def.options.find((x) => x.id === id) ?? { id, name: id, color: '#9ca3af' },
      );
    else if (t === 'PeopleValue') {
      // A loop, as the gateway's people reader (properties/people.ts): flatMap was the slower copy.
      const list: { id: string; name: string }[] = [];
      for (const id of v.people as string[]) {
        const u = users.get(id);
        if (u) list.push({ id: u.id, name: u.name });
      }
      o.users = list;
    }
    out.push(o);
  }
  return out;
}

async function restPage(req: Request, key: string | string[] | undefined, q: URLSearchParams) {
  const orgId = required(q, 'orgId');
  const portfolioId = required(q, 'portfolioId');
  const limit = intParam(q, 'limit', 100, 5000);
  const startKey = q.get('startKey');
  const caller = await req.auth(key);
  const scope = `portfolio-projects:${portfolioId}`;
  const bound = startKey ? req.cursors.decode(scope, startKey) : undefined;
  await req.portfolio(caller, orgId, portfolioId);
  const [rows] = await req.pages('portfolio-projects', [{ orgId, id: portfolioId }], limit, bound);
  const page = rows.slice(0, limit);
  const [schemas, users] = await Promise.all([
    req.schemas(caller, orgId, ['project']),
    hasPeople(page) ? req.users(caller, orgId) : new Map<string, { id: string; name: string }>(),
  ]);
  const schema = schemas.get('project')!;
  const last = page.at(-1);
  return {
    items: page.map((r) => ({
      id: r.id,
      properties: restProperties(r, schema.byId, users, true),
      // The gateway's DateTime formatting (timestamps.ts), so the floor keeps the same shortcut.
      created_at: isoString(r.created_at),
      updated_at: isoString(r.updated_at),
    })),
    nextKey:
      rows.length > limit && last ? req.cursors.encode(scope, [last.sort_at.getTime(), last.id]) : null,
  };
}

/** portfolio → projects(first) → contacts(first) → parcels(first), typed values at each level. */
async function nested(req: Request, key: string | string[] | undefined, q: URLSearchParams) {
  const orgId = required(q, 'orgId');
  const portfolioId = required(q, 'portfolioId');
  const nProjects = intParam(q, 'projects', 100, 5000);
  const nContacts = intParam(q, 'contacts', 10, 5000);
  const nParcels = intParam(q, 'parcels', 5, 5000);
  const caller = await req.auth(key);
  await req.portfolio(caller, orgId, portfolioId);
  const [projectRows] = await req.pages('portfolio-projects', [{ orgId, id: portfolioId }], nProjects);
  const projects = projectRows.slice(0, nProjects);
  const contactPages = await req.pages(
    'project-contacts',
    projects.map((p) => ({ orgId, id: p.id })),
    nContacts,
  );
  const contacts = contactPages.flatMap((rows) => rows.slice(0, nContacts));
  const parcelPages = await req.pages(
    'contact-parcels',
    contacts.map((c) => ({ orgId, id: c.id })),
    nParcels,
  );
  const [s, users] = await Promise.all([
    req.schemas(caller, orgId, ['project', 'contact', 'parcel']),
    req.users(caller, orgId),
  ]);
  const conn = (
    scopeList: string,
    parentId: string,
    rows: Row[],
    n: number,
    node: (r: Row, i: number) => unknown,
  ) => {
    const page = rows.slice(0, n);
    const last = page.at(-1);
    return {
      pageInfo: {
        hasNextPage: rows.length > n,
        endCursor: last
          ? req.cursors.encode(`${scopeList}:${parentId}`, [last.sort_at.getTime(), last.id])
          : null,
      },
      nodes: page.map(node),
    };
  };
  let ci = 0;
  const projectDefs = s.get('project')!.list;
  const contactDefs = s.get('contact')!.list;
  const parcelDefs = s.get('parcel')!.list;
  return {
    data: {
      organization: {
        portfolio: {
          projects: conn('portfolio-projects', portfolioId, projectRows, nProjects, (p, pi) => ({
            id: p.id,
            values: typedValues(p, projectDefs, users),
            contacts: conn('project-contacts', p.id, contactPages[pi], nContacts, (c) => {
              const parcels = parcelPages[ci++];
              return {
                id: c.id,
                values: typedValues(c, contactDefs, users),
                parcels: conn('contact-parcels', c.id, parcels, nParcels, (x) => ({
                  id: x.id,
                  values: typedValues(x, parcelDefs, users),
                })),
              };
            }),
          })),
        },
      },
    },
  };
}

// ---- Server ----

async function openPool(): Promise<{ pool: Queryable; close: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    pool.on('error', () => {});
    return { pool, close: () => pool.end() };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const pglite = await PGlite.create(process.env.SDG_DATA_DIR ?? './.data/pglite');
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 });
  return {
    pool,
    close: async () => {
      await pool.end();
      await pglite.close();
    },
  };
}

async function main() {
  const { pool, close } = await openPool();
  const secretRow = (
    await pool.query<{ value: string }>("select value from instance_settings where key = 'cursor_secret'")
  ).rows[0];
  const cursors = new Cursors(process.env.CURSOR_SECRET || secretRow.value);
  const expose = process.env.SDG_EXPOSE_SQL_COUNT === '1';
  const cache = new OrgCache();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const r = new Request(pool, cursors, cache);
    const send = (status: number, body: unknown) => {
      // The gateway's serializer (src/http/json-bytes.ts), so the floor writes no slower than it.
      const json = jsonBytes(body);
      const headers: Record<string, string | number> = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(json),
      };
      if (expose) headers['x-sql-statements'] = r.statements;
      res.writeHead(status, headers).end(json);
    };
    let work: Promise<unknown> | undefined;
    if (req.method === 'GET' && url.pathname === '/projects/v1')
      work = restPage(r, req.headers['x-api-key'], url.searchParams);
    else if (req.method === 'GET' && url.pathname === '/nested')
      work = nested(r, req.headers['x-api-key'], url.searchParams);
    else if (req.method === 'GET' && url.pathname === '/healthz') work = Promise.resolve({ status: 'ok' });
    if (!work) return send(404, { error: { code: 'NOT_FOUND', message: 'no such route' } });
    work.then(
      (body) => send(200, body),
      (err) =>
        err instanceof HttpError
          ? send(err.status, { error: { code: err.code, message: err.message } })
          : send(500, { error: { code: 'INTERNAL', message: String(err?.message ?? err) } }),
    );
  });
  server.keepAliveTimeout = 72_000;
  const port = Number(process.env.PORT ?? 4100);
  const host = process.env.HOST ?? '127.0.0.1';
  server.listen(port, host, () => process.stdout.write(`baseline listening on http://${host}:${port}\n`));
  const stop = () => {
    server.close();
    server.closeAllConnections();
    close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`baseline failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
