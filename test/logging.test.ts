import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, test } from 'vitest';
import { buildApp } from '../src/app.js';
import { loggerOptions } from '../src/logger.js';
import { seededDatabase } from './helpers/database.js';

const seeded = seededDatabase();

test('API keys never reach the logs; request lines carry a request id and redacted headers', async () => {
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
    expect(lines.length).toBeGreaterThan(3);
    expect(log).not.toContain(key);
    expect(log).not.toContain(key.slice(4, 20));
    expect(log).not.toContain(badKey);
    const incoming = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'incoming request');
    expect(incoming.length).toBe(3);
    for (const l of incoming) {
      expect(l.req.headers['x-api-key']).toBe('[redacted]');
      expect(typeof l.reqId).toBe('string');
    }
  } finally {
    await app.close();
  }
});
