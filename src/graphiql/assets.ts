import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
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
  path: string;
  type: string;
  gzip?: string;
  /** The ETag of the file as it was at `version`, made on the first request that needed it. */
  etag?: { version: string; value: string };
}

/**
 * The built files of one asset folder. Only names found at start-up are served, so a request path
 * can never reach outside the folder. The files are read when asked for, not held: with their gzip
 * copies they are megabytes, and a server that no browser visits should not carry them.
 */
export class AssetFolder {
  private readonly files = new Map<string, Asset>();

  /** `folder` names a folder of the build; `dir` is where it is, for tests. */
  constructor(
    readonly folder: string,
    dir = join(ASSET_DIR, folder),
  ) {
    if (!existsSync(dir)) return;
    const names = new Set(readdirSync(dir));
    for (const name of names) {
      const type = TYPES[name.split('.').pop() ?? ''];
      if (!type) continue;
      const gzip = names.has(`${name}.gz`) ? join(dir, `${name}.gz`) : undefined;
      this.files.set(name, { path: join(dir, name), type, gzip });
    }
  }

  get built(): boolean {
    return this.files.size > 0;
  }

  has(name: string): boolean {
    return this.files.has(name);
  }

  /**
   * Sends one file; no-cache with an ETag, because the names carry no content hash. The ETag is
   * the file's content hash, kept per size and mtime, so a rebuild under a running server is seen.
   */
  async send(req: FastifyRequest, reply: FastifyReply, name: string): Promise<FastifyReply | undefined> {
    const a = this.files.get(name);
    if (!a) return undefined;
    // A file removed since start-up (a rebuild in progress) is answered like an unknown name.
    const s = await stat(a.path).catch(() => undefined);
    if (!s) return undefined;
    const version = `${s.size}:${s.mtimeMs}`;
    let body: Buffer | undefined;
    if (a.etag?.version !== version) {
      body = await readFile(a.path);
      a.etag = { version, value: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    }
    const etag = a.etag.value;
    reply.header('cache-control', 'no-cache').header('etag', etag).header('vary', 'accept-encoding');
    if (req.headers['if-none-match'] === etag) return reply.status(304).send();
    reply.type(a.type);
    if (a.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      return reply.header('content-encoding', 'gzip').send(await readFile(a.gzip));
    }
    return reply.send(body ?? (await readFile(a.path)));
  }
}
