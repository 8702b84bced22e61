import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../paths.js';

/** Where scripts/build-graphiql.mjs writes the browser assets (git-ignored). */
export const ASSET_DIR = join(PACKAGE_ROOT, 'src/graphiql/dist');

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  ttf: 'font/ttf',
  woff: 'font/woff',
  woff2: 'font/woff2',
  svg: 'image/svg+xml',
};

interface Asset {
  type: string;
  body: Buffer;
  gzip?: Buffer;
  etag: string;
}

/**
 * The built files of one asset folder, read once. Only names found at start-up are served, so a
 * request path can never reach outside the folder.
 */
export class AssetFolder {
  private readonly files = new Map<string, Asset>();

  constructor(readonly folder: string) {
    const dir = join(ASSET_DIR, folder);
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const ext = name.split('.').pop() ?? '';
      if (!TYPES[ext]) continue;
      const body = readFileSync(join(dir, name));
      const gz = join(dir, `${name}.gz`);
      this.files.set(name, {
        type: TYPES[ext],
        body,
        gzip: existsSync(gz) ? readFileSync(gz) : undefined,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      });
    }
  }

  get built(): boolean {
    return this.files.size > 0;
  }

  has(name: string): boolean {
    return this.files.has(name);
  }

  /** Sends one file; no-cache with an ETag, because the names carry no content hash. */
  send(req: FastifyRequest, reply: FastifyReply, name: string): FastifyReply | undefined {
    const a = this.files.get(name);
    if (!a) return undefined;
    reply.header('cache-control', 'no-cache').header('etag', a.etag).header('vary', 'accept-encoding');
    if (req.headers['if-none-match'] === a.etag) return reply.status(304).send();
    reply.type(a.type);
    if (a.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      return reply.header('content-encoding', 'gzip').send(a.gzip);
    }
    return reply.send(a.body);
  }
}
