import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Context } from '../context.js';
import type { DB } from '../db/types.js';
import { AppError } from '../errors.js';
import { findViewerByHash, hashApiKey } from '../modules/auth/index.js';
import type { CursorCodec } from '../pagination/cursor.js';
import { createContext } from '../request-context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's GraphQL context; set for every authenticated API request. */
    ctx: Context;
    /** presentedKeyHash's memo: null until asked, '' when no key was sent. */
    keyHash: string | null;
  }
}

/** Gives requests the keyHash memo (the rate limit and authentication both read it). */
export function declareKeyHash(app: FastifyInstance): void {
  if (!app.hasRequestDecorator('keyHash')) app.decorateRequest('keyHash', null);
}

/**
 * The hash of the X-API-Key the request presented (hashApiKey), made once per request: the rate
 * limit buckets by it before authentication and after the response, and authentication looks the
 * key up by it. Undefined when no key was sent.
 */
export function presentedKeyHash(req: FastifyRequest): string | undefined {
  if (req.keyHash === null) {
    const key = req.headers['x-api-key'];
    req.keyHash = typeof key === 'string' && key !== '' ? hashApiKey(key) : '';
  }
  return req.keyHash || undefined;
}

/** What an API key can look like: anything else is refused without a lookup. */
export const KEY_SHAPE = /^[A-Za-z0-9_-]{16,200}$/;

/**
 * Authenticates API requests by their `X-API-Key` header and builds the shared request context.
 * Missing, unknown and revoked keys get the same 401.
 */
export function installAuth(
  app: FastifyInstance,
  cursors: CursorCodec,
  isPublic: (req: FastifyRequest) => boolean,
  /**
   * The request's handles: the primary, and the read pool if there is one. The key lookup itself
   * always runs on the primary (it stamps last_used_at).
   */
  handles: (req: FastifyRequest) => { db: Kysely<DB>; readDb?: Kysely<DB> },
) {
  app.decorateRequest('ctx', null as unknown as Context);
  declareKeyHash(app);
  app.addHook('preHandler', async (req) => {
    if (isPublic(req)) return;
    const key = req.headers['x-api-key'];
    if (key === undefined || key === '') {
      throw new AppError(
        'UNAUTHENTICATED',
        'Send your API key in the X-API-Key header. `sdg key create --user <email>` makes one.',
      );
    }
    const { db, readDb } = handles(req);
    const viewer =
      typeof key === 'string' && KEY_SHAPE.test(key)
        ? await findViewerByHash(db, presentedKeyHash(req) as string)
        : null;
    if (!viewer)
      throw new AppError(
        'UNAUTHENTICATED',
        'The API key in X-API-Key is unknown or revoked. Create a new one with `sdg key create`.',
      );
    req.ctx = createContext(db, viewer, cursors, req.id, readDb);
    req.ctx.obs = req.obs;
  });
  // Once answered, the request (kept until a full collection if it is old) lets go of its context,
  // and with it what the context read: see admittedContext in graphql/executor.ts. Registered after the hooks that read it.
  app.addHook('onResponse', (req, _reply, done) => {
    (req as { ctx: Context | null }).ctx = null;
    done();
  });
}
