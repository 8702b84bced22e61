import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';

export const EXAMPLE_WEB = join(PACKAGE_ROOT, 'examples/web');
/** What the example's build writes for GRAPHQL_TRUSTED_DOCUMENTS. */
export const EXAMPLE_MANIFEST = join(EXAMPLE_WEB, 'src/gql/persisted-documents.json');

/**
 * Installs examples/web (its own package and lock file) when it has no node_modules, then builds it:
 * codegen (types and the trusted-documents manifest), tsc, vite build.
 */
export function buildExampleWeb(): void {
  const npm = (...args: string[]) =>
    execFileSync('npm', args, { cwd: EXAMPLE_WEB, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (!existsSync(join(EXAMPLE_WEB, 'node_modules/.package-lock.json')))
    npm('ci', '--no-audit', '--no-fund', '--loglevel=error');
  npm('run', '--silent', 'build');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Serves examples/web/dist on its own port: another origin than the gateway's. */
export async function serveExampleWeb(): Promise<{ origin: string; close: () => Promise<void> }> {
  const root = join(EXAMPLE_WEB, 'dist');
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = normalize(join(root, path === '/' ? 'index.html' : path));
    if (!file.startsWith(root) || !existsSync(file) || !extname(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
