import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loggerOptions } from '../../src/logger.js';

/** A pino logger (the app's options) whose lines are kept, parsed, in `lines`. */
export function logSink(level = 'info') {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: pino(loggerOptions(level), stream) };
}
