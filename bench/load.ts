import autocannon from 'autocannon';
import type { RequestSpec } from './scenarios.js';
import { r2 } from './stats.js';

export interface LoadOptions {
  url: string;
  apiKey: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Run until this many responses instead of for `duration` (slow scenarios: every connection completes some). */
  amount?: number;
  next: (n: number) => RequestSpec;
  /** Also return every latency, to merge runs that went to several servers at once. */
  keepLatencies?: boolean;
  /** Extra request headers (e.g. Accept-Encoding for the compression bench). */
  headers?: Record<string, string>;
}

export interface LoadResult {
  connections: number;
  durationSec: number;
  /** Successful (2xx) responses; req/s and latencies count only these. */
  requests: number;
  rps: number;
  latencyMs: { p50: number; p95: number; p99: number; mean: number; max: number };
  errors: number;
  /** Of which: non-2xx answers, connection errors, timeouts. */
  errorDetail: { non2xx: number; connection: number; timeouts: number };
  /** Response body bytes (Content-Length), mean. */
  bodyBytes: number;
  /** Bytes on the wire per response, headers included. */
  wireBytes: number;
  /** `x-sql-statements` over all responses. */
  sql: { min: number; max: number; mean: number } | null;
  /** Latencies (ms) of the successful responses, sorted; only with `keepLatencies`. */
  latencies?: Float64Array;
}

export const percentile = (sorted: Float64Array, p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;

/**
 * One fixed-duration, fixed-concurrency run with autocannon (as a library). Latencies of every
 * response are kept, so p95 is exact (autocannon itself reports p97.5, not p95).
 */
export function runLoad(o: LoadOptions): Promise<LoadResult> {
  let n = 0;
  let latencies = new Float64Array(1 << 14);
  let count = 0;
  let wire = 0;
  let body = 0;
  let bodies = 0;
  let sqlMin = Number.POSITIVE_INFINITY;
  let sqlMax = 0;
  let sqlSum = 0;
  let sqlCount = 0;
  const baseHeaders = { 'x-api-key': o.apiKey, 'content-type': 'application/json', ...o.headers };
  const startedAt = performance.now();
  let lastAt = startedAt;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: o.url,
        connections: o.connections,
        ...(o.amount ? { amount: o.amount } : { duration: o.duration }),
        timeout: 120,
        requests: [
          {
            setupRequest: (req) => {
              const spec = o.next(n++);
              return { ...req, method: spec.method, path: spec.path, body: spec.body, headers: baseHeaders };
            },
            onResponse: (status, _body, _ctx, headers) => {
              if (status < 200 || status > 299) return;
              const h = headers as Record<string, string>;
              const len = Number(h['content-length'] ?? h['Content-Length']);
              if (Number.isFinite(len)) {
                body += len;
                bodies++;
              }
              const s = Number(h['x-sql-statements']);
              if (Number.isFinite(s)) {
                sqlMin = Math.min(sqlMin, s);
                sqlMax = Math.max(sqlMax, s);
                sqlSum += s;
                sqlCount++;
              }
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        const sorted = latencies.slice(0, count).sort();
        let sum = 0;
        for (const v of sorted) sum += v;
        const non2xx = result.non2xx;
        const connection = result.errors - result.timeouts;
        // autocannon notices a reached `amount` only on its next 1 s tick: time those runs up to the last response.
        const elapsed = o.amount
          ? (lastAt - startedAt) / 1000
          : result.duration > 0
            ? result.duration
            : o.duration;
        resolve({
          connections: o.connections,
          durationSec: r2(elapsed),
          requests: count,
          rps: r2(elapsed > 0 ? count / elapsed : 0),
          latencyMs: {
            p50: r2(percentile(sorted, 50)),
            p95: r2(percentile(sorted, 95)),
            p99: r2(percentile(sorted, 99)),
            mean: r2(count ? sum / count : 0),
            max: r2(sorted[sorted.length - 1] ?? 0),
          },
          errors: non2xx + result.errors + result.mismatches,
          errorDetail: { non2xx, connection, timeouts: result.timeouts },
          bodyBytes: bodies ? Math.round(body / bodies) : 0,
          wireBytes: count ? Math.round(wire / count) : 0,
          sql: sqlCount ? { min: sqlMin, max: sqlMax, mean: r2(sqlSum / sqlCount) } : null,
          ...(o.keepLatencies ? { latencies: sorted } : {}),
        });
      },
    );
    // autocannon emits (client, status, bytes, ms) although its types omit the client.
    (instance as unknown as NodeJS.EventEmitter).on(
      'response',
      (_client: unknown, status: number, bytes: number, ms: number) => {
        // Failed answers are errors, not throughput: a fast 503 must not count as a served request.
        if (status < 200 || status > 299) return;
        if (count === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[count++] = ms;
        lastAt = performance.now();
        wire += bytes;
      },
    );
  });
}
