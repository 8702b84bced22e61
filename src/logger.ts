import type { LoggerOptions } from 'pino';

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
