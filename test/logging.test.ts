import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { DEFAULT_LIMITS } from '../src/graphql/limits.js';
import { loggerOptions } from '../src/logger.js';
import { seededDatabase } from './helpers/database.js';
import { logSink } from './helpers/logs.js';

const seeded = seededDatabase();

test('API keys never reach the logs; one access line per request, with its request id', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({ database: seeded.database, logger: pino(loggerOptions('debug'), sink) });
  try {
    const key = seeded.demo.users.alice.apiKey;
    const badKey = 'sdg_thisKeyIsWrongButStillSecret0000000000000000';
    await app.inject({ url: '/organizations/v1', headers: { 'x-api-key': key } });
    await app.inject({ url: '/organizations/v1', headers: { 'x-api-key': badKey } });
    await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: '{"query":"{ nope }"}',
    });
    const log = lines.join('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(log).not.toContain(key);
    expect(log).not.toContain(key.slice(4, 20));
    expect(log).not.toContain(badKey);
    const access = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(access.length).toBe(3);
    for (const l of access) {
      expect(l.level).toBe(30);
      expect(typeof l.reqId).toBe('string');
      expect(l.req).toBeUndefined();
    }
  } finally {
    await app.close();
  }
});

test('the access line names the operation, status, duration, SQL count, org and request id', async () => {
  const s = logSink('info');
  const app = await buildApp({ database: seeded.database, logger: s.logger, exposeStatementCount: true });
  try {
    const key = seeded.demo.users.alice.apiKey;
    const { A } = seeded.demo.orgs;
    const rest = await app.inject({
      url: `/projects/v1?orgId=${A.id}&portfolioId=${A.portfolios.A1}&limit=3`,
      headers: { 'x-api-key': key, 'x-request-id': 'trace-me-1' },
    });
    const gql = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'query MyOrgs { organizations { id } }' }),
    });
    const [a, b] = s.lines.filter((l) => l.msg === 'request');
    expect(a).toMatchObject({
      level: 30,
      reqId: 'trace-me-1',
      transport: 'rest',
      operation: 'listProjects',
      route: '/projects/v1',
      status: 200,
      sqlStatements: Number(rest.headers['x-sql-statements']),
      org: A.id,
    });
    expect(a.durationMs).toBeGreaterThan(0);
    expect(b).toMatchObject({ transport: 'graphql', operation: 'MyOrgs', status: 200, org: A.id });
    expect(b.sqlStatements).toBe(Number(gql.headers['x-sql-statements']));
    expect(JSON.stringify(s.lines)).not.toContain(key);
  } finally {
    await app.close();
  }
});

test('a refusal by a limit is logged once at warn with its code; LOG_LEVEL=warn drops the info lines', async () => {
  const s = logSink('warn');
  const app = await buildApp({
    database: seeded.database,
    logger: s.logger,
    graphqlLimits: { ...DEFAULT_LIMITS, maxDepth: 2 },
  });
  try {
    const key = seeded.demo.users.alice.apiKey;
    await app.inject({ url: '/organizations/v1', headers: { 'x-api-key': key } });
    const r = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: '{ organizations { portfolios { projects { totalCount } } } }' }),
    });
    expect(JSON.parse(r.body).errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(s.lines).toHaveLength(1);
    expect(s.lines[0]).toMatchObject({
      level: 40,
      code: 'QUERY_TOO_COMPLEX',
      transport: 'graphql',
      status: 400,
    });
    // The request's logger is made only now (src/logger.ts), still bound to the request's id.
    expect(s.lines[0].reqId).toBe(r.headers['x-request-id']);
  } finally {
    await app.close();
  }
});
