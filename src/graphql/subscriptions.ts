import type { FastifyInstance } from 'fastify';
import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  parse,
  validate,
} from 'graphql';
import { useServer as graphqlWsServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { createContext } from '../context.js';
import type { Database } from '../db/database.js';
import { forRequest } from '../db/database.js';
import { AppError } from '../errors.js';
import { hashApiKey } from '../modules/auth/keys.js';
import { findViewerByKey } from '../modules/auth/repository.js';
import type { Viewer } from '../modules/auth/viewer.js';
import type { ChangeHub, Connection } from '../modules/changes/hub.js';
import type { CursorCodec } from '../pagination/cursor.js';
import { formatGraphQLError, rejection } from './errors.js';
import { checkLiteralDepth, checkQueryText, checkVariables } from './input-limits.js';
import { enforceLimits, type GraphQLLimits } from './limits.js';

const KEY_SHAPE = /^[A-Za-z0-9_-]{16,200}$/;

type Extra = {
  viewer?: Viewer;
  connection?: Connection;
};

/** The API key from connection_init's payload: `apiKey`, or an `X-API-Key` as GraphiQL sends headers. */
function keyOf(params: Record<string, unknown> | undefined): string | undefined {
  const headers = (params?.headers ?? {}) as Record<string, unknown>;
  const key =
    params?.apiKey ??
    params?.['x-api-key'] ??
    params?.['X-API-Key'] ??
    headers['x-api-key'] ??
    headers['X-API-Key'];
  return typeof key === 'string' && KEY_SHAPE.test(key) ? key : undefined;
}

/**
 * GraphQL subscriptions over WebSocket (graphql-ws) on the same port and path as /graphql. The key
 * is checked at connection_init (a bad one closes with 4403), every subscription document passes
 * the same limits as queries, and the hub (src/modules/changes/hub.ts) bounds and feeds them.
 */
export function registerSubscriptions(
  app: FastifyInstance,
  opts: {
    schema: GraphQLSchema;
    database: Database;
    cursors: CursorCodec;
    hub: ChangeHub;
    limits: GraphQLLimits;
  },
): void {
  const { schema, database, cursors, hub, limits } = opts;
  const format = formatGraphQLError(app.log);
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxQueryBytes + 64 * 1024 });
  app.server.on('upgrade', async (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== '/graphql') {
      socket.destroy();
      return;
    }
    // The rate limit's per-address budget, before the handshake: opening sockets is not free either.
    const r = await app.admitUpgrade?.(req).catch(() => ({ allowed: true, retryAfterSeconds: 0 }));
    if (r && !r.allowed) {
      const body = JSON.stringify({
        error: {
          code: 'RATE_LIMITED',
          message: `Too many WebSocket connections from this address. Retry after ${r.retryAfterSeconds} s.`,
        },
      });
      socket.end(
        `HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${r.retryAfterSeconds}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    if (socket.destroyed) return;
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  const server = graphqlWsServer<Record<string, unknown>, Extra>(
    {
      schema,
      onConnect: async (ctx) => {
        const key = keyOf(ctx.connectionParams);
        const viewer = key ? await findViewerByKey(database.db, key) : null;
        if (!key || !viewer) return false;
        const socket = ctx.extra.socket;
        ctx.extra.viewer = viewer;
        ctx.extra.connection = {
          keyHash: hashApiKey(key),
          queued: 0,
          close: (code, reason) => socket.close(code, reason),
        };
        return true;
      },
      // Errors carry their code from the closed set, as on /graphql.
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors?.length
          ? { ...result, errors: result.errors.map((e) => format(e.toJSON(), e)) as never }
          : result,
      onSubscribe: (ctx, id, payload) => {
        let document: DocumentNode;
        try {
          checkQueryText(payload.query, limits);
          document = parse(payload.query);
        } catch (err) {
          return [err instanceof AppError ? rejection(err) : (err as GraphQLError)];
        }
        const errors = validate(schema, document);
        if (errors.length) return errors;
        const op = getOperationAST(document, payload.operationName);
        if (!op) return [new GraphQLError('Name the operation to run (operationName).')];
        const variables = (payload.variables ?? {}) as Record<string, unknown>;
        try {
          checkLiteralDepth(document, limits.maxInputDepth);
          checkVariables(variables, limits.maxInputDepth);
          enforceLimits(limits, schema, document, op, variables);
        } catch (err) {
          if (err instanceof AppError) return [rejection(err)];
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
        const viewer = ctx.extra.viewer!;
        const contextValue = createContext(forRequest(database, { count: 0 }), viewer, cursors, `ws:${id}`);
        contextValue.changes = hub;
        contextValue.connection = ctx.extra.connection;
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: variables,
          contextValue,
        };
      },
    },
    wss,
  );
  app.decorate('changeHub', hub);
  // Closing the HTTP server does not end upgraded sockets: end them first.
  app.addHook('preClose', async () => {
    for (const ws of wss.clients) ws.terminate();
  });
  app.addHook('onClose', async () => {
    await server.dispose();
    wss.close();
    await hub.stop();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's live subscriptions (tests wait on its size). */
    changeHub: ChangeHub;
  }
}
