import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';

export interface MetricsServerOptions {
  port: number;
  /** 127.0.0.1 unless given: a scraper on another host needs METRICS_HOST set on purpose. */
  host?: string;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token?: string;
}

function authorized(header: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const given = Buffer.from(header ?? '');
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * `/metrics` on a listener of its own (METRICS_PORT), never on the API port: a load balancer or
 * ingress that exposes the API does not expose it, and METRICS_TOKEN adds a bearer token where
 * the port itself is reachable by more than the scraper.
 */
export async function startMetricsServer(
  metrics: Metrics,
  opts: MetricsServerOptions,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: scrape GET /metrics\n');
      return;
    }
    if (!authorized(req.headers.authorization, opts.token)) {
      res
        .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
        .end('Send Authorization: Bearer <METRICS_TOKEN>\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
