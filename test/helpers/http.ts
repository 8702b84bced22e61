import type { FastifyInstance } from 'fastify';

export interface Res {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
  raw: string;
  /** SQL statements the server ran for this request. */
  sql: number;
}

type Query = Record<string, string | number | undefined | string[]>;

function qs(query?: Query): string {
  if (!query) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) p.append(k, String(x));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** A tiny client over `app.inject()`: real routing, hooks and serialization, no sockets. */
export function client(app: FastifyInstance, apiKey?: string) {
  const send = async (
    method: string,
    url: string,
    opts: { query?: Query; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...opts.headers };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const r = await app.inject({ method: method as 'GET', url: url + qs(opts.query), headers, payload });
    let body: any = r.body;
    try {
      body = r.body ? JSON.parse(r.body) : '';
    } catch {}
    return {
      status: r.statusCode,
      headers: r.headers,
      body,
      raw: r.body,
      sql: Number(r.headers['x-sql-statements'] ?? Number.NaN),
    } as Res;
  };
  return {
    get: (url: string, query?: Query) => send('GET', url, { query }),
    post: (url: string, body: unknown, query?: Query) => send('POST', url, { body, query }),
    put: (url: string, body: unknown, query?: Query) => send('PUT', url, { body, query }),
    delete: (url: string, query?: Query) => send('DELETE', url, { query }),
    send,
    /** POST /graphql; returns the whole response (body.data, body.errors). */
    gql: (query: string, variables?: Record<string, unknown>) =>
      send('POST', '/graphql', { body: { query, variables } }),
  };
}
export type Client = ReturnType<typeof client>;
