import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger, LoggerOptions } from 'pino';

/** Paths pino blanks out: API keys (and any bearer token) must never reach a log line. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
];

interface RawReq {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  socket?: { remoteAddress?: string };
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      // Headers help debugging (user agent, request ids); the redaction above removes the secrets.
      req: (req: RawReq) => ({
        method: req.method,
        url: req.url,
        headers: { ...req.headers },
        remoteAddress: req.socket?.remoteAddress,
      }),
    },
  };
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogCall = (...args: unknown[]) => void;

/** Whether the logger writes lines of this level (pino's check; any other logger is taken to). */
export const writes = (log: FastifyBaseLogger, level: Level) =>
  (log as Partial<Logger>).isLevelEnabled?.(level) ?? true;

/**
 * The app's logger as Fastify gets it: the same pino logger, except that a child without options
 * (Fastify makes one for every request, bound to its id) is a RequestLogger. A child with options
 * (Fastify makes its own logger so, with its serializers) is a real one whose children are lazy in
 * turn. Done here, not with Fastify's `childLoggerFactory`: Fastify checks every logger a custom
 * factory makes, which costs about half of what the lazy child saves
 * (docs/decisions.md#a-requests-logger-is-made-when-it-logs).
 */
export function withLazyChildren(log: FastifyBaseLogger): FastifyBaseLogger {
  const lazy = Object.create(log) as FastifyBaseLogger;
  lazy.child = (bindings, options) =>
    options && !isEmpty(options)
      ? withLazyChildren(log.child(bindings, options))
      : (new RequestLogger(log, bindings) as unknown as FastifyBaseLogger);
  return lazy;
}

const isEmpty = (o: object) => {
  for (const _ in o) return false;
  return true;
};

/**
 * A request's logger, whose pino child is made when the request first logs at an enabled level.
 * pino runs a child's bindings through the `*.apiKey` redaction as it makes it, the largest single
 * item of a one-item REST page under the profiler, paid even at LOG_LEVEL=warn, where most requests
 * never log (docs/decisions.md#a-requests-logger-is-made-when-it-logs).
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}
  get level(): string {
    return (this.made ?? this.parent).level;
  }
  set level(level: string) {
    this.logger().level = level;
  }
  fatal(...args: unknown[]) {
    this.at('fatal', args);
  }
  error(...args: unknown[]) {
    this.at('error', args);
  }
  warn(...args: unknown[]) {
    this.at('warn', args);
  }
  info(...args: unknown[]) {
    this.at('info', args);
  }
  debug(...args: unknown[]) {
    this.at('debug', args);
  }
  trace(...args: unknown[]) {
    this.at('trace', args);
  }
  silent() {}
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
  private logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings);
    return this.made;
  }
  private at(level: Level, args: unknown[]) {
    // A level the parent does not write is one its child would not write either.
    if (this.made || writes(this.parent, level)) (this.logger()[level] as LogCall)(...args);
  }
}
