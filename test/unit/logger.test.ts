import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { expect, test, vi } from 'vitest';
import { loggerOptions, withLazyChildren } from '../../src/logger.js';

function sink(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const root = pino(loggerOptions(level), stream);
  return { lines, root, log: withLazyChildren(root as FastifyBaseLogger) };
}

test("a request's logger makes its pino child only when it writes, and the line carries the bindings", () => {
  const { lines, root, log } = sink('warn');
  const made = vi.spyOn(root, 'child');
  const req = log.child({ reqId: 'r-1' }, {});
  req.info({ a: 1 }, 'not written at warn');
  req.debug('nor this');
  expect(made).not.toHaveBeenCalled();
  expect(lines).toEqual([]);
  req.warn({ b: 2, apiKey: 'sdg_secret' }, 'written');
  req.error('and this, by the same child');
  expect(made).toHaveBeenCalledTimes(1);
  expect(lines).toMatchObject([
    { level: 40, reqId: 'r-1', b: 2, apiKey: '[redacted]', msg: 'written' },
    { level: 50, reqId: 'r-1', msg: 'and this, by the same child' },
  ]);
  expect(req.level).toBe('warn');
});

test('a child with options is a real pino child, whose own children are lazy in turn', () => {
  const { lines, log } = sink('info');
  const scoped = log.child({ plugin: 'p' }, { msgPrefix: '[p] ' });
  const req = scoped.child({ reqId: 'r-2' }, {});
  req.info('hello');
  expect(lines).toMatchObject([{ level: 30, plugin: 'p', reqId: 'r-2', msg: '[p] hello' }]);
  // Children of a request's logger are real ones, made from its (now made) child.
  req.child({ step: 'x' }).info('deeper');
  expect(lines[1]).toMatchObject({ reqId: 'r-2', step: 'x', msg: '[p] deeper' });
});

test('the API key, authorization and cookie headers are redacted wherever the redact paths reach them', () => {
  const { lines, root } = sink('info');
  const headers = { 'x-api-key': 'sdg_k_secret', authorization: 'Bearer t_secret', cookie: 'c=1_secret' };
  // A raw request (through the req serializer), a serialized one, and headers logged on their own.
  root.info({ req: { method: 'GET', url: '/x', headers: { ...headers, 'user-agent': 'ua' } } }, 'raw');
  root.info({ req: { headers } }, 'headers only');
  root.info({ headers: { 'x-api-key': 'sdg_k_secret' } }, 'bare headers');
  root.info({ apiKey: 'sdg_k_secret', socket: { apiKey: 'sdg_k_secret' } }, 'a key by name');
  const redacted = { 'x-api-key': '[redacted]', authorization: '[redacted]', cookie: '[redacted]' };
  expect(lines).toMatchObject([
    { req: { method: 'GET', url: '/x', headers: { ...redacted, 'user-agent': 'ua' } } },
    { req: { headers: redacted } },
    { headers: { 'x-api-key': '[redacted]' } },
    { apiKey: '[redacted]', socket: { apiKey: '[redacted]' } },
  ]);
  expect(JSON.stringify(lines)).not.toMatch(/secret/);
});
