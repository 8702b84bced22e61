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
