import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Which browser origins may call the gateway: any (`*`), or an exact list. */
export type CorsOrigins = '*' | string[];

/** Browsers cache a preflight this long (seconds); Chromium caps it at 2 hours. */
export const CORS_MAX_AGE = 7200;

/**
 * Headers a page may send: the key, a JSON body, a request id, If-Match (so a page's REST PUT can be
 * conflict-safe), and Apollo's CSRF opt-in headers.
 */
const ALLOWED_HEADERS = [
  'X-API-Key',
  'Content-Type',
  'X-Request-Id',
  'If-Match',
  'Apollo-Require-Preflight',
  'X-Apollo-Operation-Name',
];
/**
 * Response headers a page may read: rate-limit state, retry hints, the request id for support, and
 * a record's ETag (not CORS-safelisted, so without this a page cannot send it back in If-Match).
 */
export const EXPOSED_HEADERS = [
  'ETag',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'Retry-After',
  'x-request-id',
];

/**
 * CORS_ORIGINS: `*` or a comma-separated list of origins (`http://localhost:5173`). Keys travel in
 * the X-API-Key header, never in cookies, so no credentials are allowed and `*` is a safe default.
 */
export function parseCorsOrigins(v: string | undefined): CorsOrigins {
  if (v === undefined || v.trim() === '' || v.trim() === '*') return '*';
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.includes('*')) return '*';
  for (const o of list) {
    let url: URL | undefined;
    try {
      url = new URL(o);
    } catch {}
    if (!url || url.origin !== o)
      throw new Error(
        `CORS_ORIGINS must list origins such as http://localhost:5173 (scheme, host, port; no path or trailing slash), got "${o}"`,
      );
  }
  return list;
}

/**
 * Answers preflights (OPTIONS with Origin) itself, before the rate limit and before authentication
 * (a browser sends no key on a preflight), and adds the CORS headers to every answer to an allowed
 * origin, error answers included, so a page can read a 401 or a 429 and its Retry-After.
 * Registered before every other hook.
 */
export function installCors(app: FastifyInstance, origins: CorsOrigins): void {
  const allowed = origins === '*' ? undefined : new Set(origins);
  void app.register(cors, {
    // No Origin: not a browser's cross-origin call, so no CORS headers (and no preflight handling).
    origin: (origin, cb) => {
      if (!origin) return cb(null, false);
      cb(null, allowed ? allowed.has(origin) && origin : '*');
    },
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: CORS_MAX_AGE,
    strictPreflight: false,
  });
}
