import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
  type OperationDefinitionNode,
  subscribe,
} from 'graphql';
import { useServer as graphqlWsServer } from 'graphql-ws/use/ws';
import type { Kysely } from 'kysely';
import WebSocket, { WebSocketServer } from 'ws';
import type { Context } from '../context.js';
import type { Database } from '../db/database.js';
import { forRequest, type StatementCounter } from '../db/database.js';
import type { DB } from '../db/types.js';
import { AppError } from '../errors.js';
import {
  type Admission,
  type AdmissionTier,
  HEAVY_GRAPHQL_COST,
  LARGE_GRAPHQL_COST,
  operationAdmitter,
} from '../http/admission.js';
import { KEY_SHAPE } from '../http/auth.js';
import { errorResponse, rawErrorResponse } from '../http/error-response.js';
import { findViewerByHash, hashApiKey, type Viewer } from '../modules/auth/index.js';
import { type ChangeHub, CLOSE, type Connection } from '../modules/changes/index.js';
import { LIMIT_CODES, type RequestObservation, warnWorthy } from '../observability/http.js';
import type { Metrics } from '../observability/metrics.js';
import { NO_OPERATION } from '../observability/names.js';
import { refusalSampler } from '../observability/sampling.js';
import type { CursorCodec } from '../pagination/cursor.js';
import { createContext } from '../request-context.js';
import { formatGraphQLError, rejection } from './errors.js';
import { checkLiteralDepth, checkVariables } from './input-limits.js';
import { enforceLimits, type GraphQLLimits } from './limits.js';
import type { Seam } from './seam.js';
import type { SocketLimits } from './socket-limits.js';

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

/** One open socket, once its key was accepted. */
interface Socket {
  keyHash: string;
  /** The key's access as last looked up: at each operation, and every `recheckMs`. */
  viewer: Viewer;
  /** What the change hub knows of it. */
  connection: Connection;
  /**
   * Operations taken and not yet answered: queries and mutations until their answer, subscriptions
   * until they are set up (then the hub bounds them).
   */
  pending: number;
  /** Until when its messages are not read: its key's budget ran out (the refusal's Retry-After). */
  heldUntil: number;
  ws: WebSocket;
  /** Aborts once the socket has closed: an operation waiting for an admission slot leaves the queue. */
  gone: AbortController;
}

type Extra = { socket: WebSocket; request: IncomingMessage; state?: Socket };

/** What one operation carries from its subscribe message to its answer. */
interface Running {
  socket: Socket;
  op: OperationDefinitionNode;
  started: number;
  statements: StatementCounter;
  release?: () => void;
}

export interface WebSocketOptions {
  seam: Seam;
  database: Database;
  readDatabase?: Database;
  cursors: CursorCodec;
  hub: ChangeHub;
  limits: GraphQLLimits;
  socketLimits: SocketLimits;
  admission: Record<AdmissionTier, Admission>;
  metrics: Metrics;
  webhooks: { allowPrivateTargets: boolean };
}

/**
 * GraphQL over WebSocket (graphql-ws) on the same port and path as /graphql: queries and mutations
 * as well as subscriptions. A socket is a second door to the same house, so every operation that
 * arrives on one passes what an HTTP request passes, in the same order (docs/architecture.md):
 *
 * 1. the key's rate-limit budget, the same bucket as its HTTP requests (once it is spent, the
 *    socket is not read until it refills), then a bound on the operations one socket may have in
 *    progress;
 * 2. its key, looked up again (a revoked key closes the socket with 4403, a changed role applies);
 * 3. the seam (seam.ts): trusted documents, the query-text limits, parsing and validation;
 * 4. the input limits and the measured cost; a query or mutation then runs through the seam's
 *    Executor (admission tiers, the read pool, the engine), and a subscription holds its cost against
 *    its organization's fan-out bound (changes/hub.ts);
 * 5. an access-log line and the request metrics, with transport `ws`.
 *
 * Beyond those, a socket is closed as a slow consumer before `queuedBytesPerSocket` wait in its
 * send buffer, and has its key looked up again every `recheckMs`, so a revocation or a lost grant
 * reaches running subscriptions without an event.
 */
export function registerWebSocket(app: FastifyInstance, opts: WebSocketOptions): void {
  const { seam, database, readDatabase, cursors, hub, limits, socketLimits, metrics } = opts;
  const schema = seam.schema;
  const format = formatGraphQLError(app.log);
  const sockets = new Set<Socket>();
  const running = new WeakMap<Context, Running>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxQueryBytes + 64 * 1024 });

  app.server.on('upgrade', async (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== '/graphql') {
      socket.destroy();
      return;
    }
    // The rate limit's per-address budget, before the handshake: opening sockets is not free either.
    const r = await app.admitUpgrade?.(req).catch(() => ({ allowed: true, retryAfterSeconds: 0 }));
    if (r && !r.allowed) {
      const refusal = new AppError(
        'RATE_LIMITED',
        `Too many WebSocket connections from this address. Retry after ${r.retryAfterSeconds} s.`,
        undefined,
        r.retryAfterSeconds,
      );
      // This answer's Content-Type has never named the charset; kept as clients have seen it.
      socket.end(rawErrorResponse(errorResponse(refusal), 'application/json'));
      return;
    }
    if (socket.destroyed) return;
    wss.handleUpgrade(req, socket, head, (ws) => {
      boundSendQueue(ws, socketLimits.queuedBytesPerSocket);
      wss.emit('connection', ws, req);
    });
  });

  /** The key's access now; a revoked key closes the socket. */
  const lookUp = async (s: Socket): Promise<Viewer | null> => {
    const viewer = await findViewerByHash(database.db, s.keyHash);
    if (!viewer) {
      closeSocket(s.ws, CLOSE.KEY_REVOKED, 'The API key was revoked');
      return null;
    }
    s.viewer = viewer;
    hub.recheck(s.connection, viewer);
    return viewer;
  };

  const server = graphqlWsServer<Record<string, unknown>, Extra>(
    {
      schema,
      onConnect: async (ctx) => {
        const key = keyOf(ctx.connectionParams);
        const keyHash = key && hashApiKey(key);
        const viewer = keyHash ? await findViewerByHash(database.db, keyHash) : null;
        if (!keyHash || !viewer) return false;
        const ws = ctx.extra.socket;
        const state: Socket = {
          keyHash,
          viewer,
          pending: 0,
          heldUntil: 0,
          ws,
          gone: new AbortController(),
          connection: { keyHash, queued: 0, close: (code, reason) => closeSocket(ws, code, reason) },
        };
        ctx.extra.state = state;
        sockets.add(state);
        ws.once('close', () => {
          sockets.delete(state);
          state.gone.abort(new Error('the socket closed'));
        });
        return true;
      },
      onSubscribe: async (ctx, id, payload) => {
        const s = ctx.extra.state!;
        const obs: RequestObservation = { transport: 'ws', operation: NO_OPERATION };
        const r: Omit<Running, 'op'> = { socket: s, started: performance.now(), statements: { count: 0 } };
        // Every message pays from the key's budget first, as an HTTP request does before its key is
        // looked up: a flood is refused by the bucket, without a database lookup per message, and
        // once the budget is spent the socket is not read until it refills (holdFor).
        const budget = await app.takeKeyBudget?.(s.keyHash);
        if (budget && !budget.allowed) {
          holdFor(s, budget.retryAfterSeconds * 1000);
          const refusal = rejection(keyRateLimited(budget.retryAfterSeconds));
          observe(obs, r, payload.operationName ?? null, [refusal], true);
          return [refusal];
        }
        // Messages a socket sends faster than they are answered must not pile up here, each
        // holding a lookup or a database connection.
        if (s.pending >= socketLimits.inFlightPerSocket) {
          const refusal = rejection(tooManyPending(s.pending));
          observe(obs, r, payload.operationName ?? null, [refusal], true);
          return [refusal];
        }
        s.pending++;
        let handedOn = false;
        try {
          const viewer = await lookUp(s);
          if (!viewer)
            throw new AppError(
              'UNAUTHENTICATED',
              'The API key is unknown or revoked. Create a new one with `sdg key create`.',
            );
          const read = seam.read(payload, viewer.admin);
          if ('errors' in read) {
            observe(obs, r, payload.operationName ?? null, read.errors, true);
            return read.errors;
          }
          const { document, operation: op } = read;
          obs.operation = metrics.operations.label(payload.operationName ?? op.name?.value, viewer.orgIds);
          const variables = (payload.variables ?? {}) as Record<string, unknown>;
          const contextValue = operationContext(viewer, r.statements, `ws:${id}`);
          contextValue.obs = obs;
          contextValue.connection = s.connection;
          if (op.operation === 'subscription') {
            // A subscription's events run outside the Executor, so its limits are applied here, and
            // its cost is held against its organization's bound for as long as it lives.
            checkLiteralDepth(document, limits.maxInputDepth);
            checkVariables(variables, limits.maxInputDepth);
            contextValue.operationCost = enforceLimits(limits, schema, document, op, variables).cost;
            running.set(contextValue, { ...r, op });
          } else {
            const admit = operationAdmitter(opts.admission, s.gone.signal, (t, secs) =>
              metrics.admissionWait.observe({ tier: t }, secs),
            );
            contextValue.admit = admit.admit;
            running.set(contextValue, { ...r, op, release: admit.release });
          }
          // graphql-ws calls execute or subscribe next, which give the place back.
          handedOn = true;
          return executionArgs(document, payload.operationName, variables, contextValue);
        } catch (err) {
          const refusal = rejection(err, app.log);
          observe(obs, r, payload.operationName ?? null, [refusal], true);
          return [refusal];
        } finally {
          if (!handedOn) s.pending--;
        }
      },
      execute: async (args) => {
        const ctx = args.contextValue as Context;
        const r = running.get(ctx)!;
        let result: ExecutionResult;
        try {
          result = await seam.run(
            ctx,
            { document: args.document, operation: r.op, operationName: args.operationName },
            (args.variableValues ?? {}) as Record<string, unknown>,
            { heavyCost: HEAVY_GRAPHQL_COST, largeCost: LARGE_GRAPHQL_COST },
          );
        } catch (err) {
          // The socket closed while the operation waited for a slot: nobody is left to answer.
          result = { errors: [rejection(err, app.log)] };
        } finally {
          r.release?.();
          r.socket.pending--;
        }
        observe(ctx.obs!, r, args.operationName ?? null, result.errors ?? [], result.data === undefined);
        return result;
      },
      subscribe: async (args) => {
        const ctx = args.contextValue as Context;
        const r = running.get(ctx)!;
        let result: Awaited<ReturnType<typeof subscribe>>;
        try {
          result = await subscribe(args);
        } finally {
          // A live subscription is bounded by the hub (per key and organization), not by this count.
          r.socket.pending--;
        }
        const refused = 'errors' in result ? (result.errors ?? []) : [];
        observe(ctx.obs!, r, args.operationName ?? null, refused, refused.length > 0);
        return result;
      },
      // Errors carry their code from the closed set, as on /graphql.
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors?.length
          ? { ...result, errors: result.errors.map((e) => format(e.toJSON(), e)) as never }
          : result,
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => format(e.toJSON(), e)) as never,
    },
    wss,
  );

  const executionArgs = (
    document: DocumentNode,
    operationName: string | null | undefined,
    variableValues: Record<string, unknown>,
    contextValue: Context,
  ): ExecutionArgs => ({ schema, document, operationName, variableValues, contextValue });

  /**
   * Once a socket's key has spent its budget, its messages are not read until the budget refills
   * (the Retry-After of its refusal): they wait in the network, where they cost nothing, instead of
   * each being read, parsed and refused. Refusing them one by one still cost a flood's worth of
   * CPU: a client sending subscribe and complete pairs as fast as it could held the event loop.
   */
  const holdFor = (s: Socket, ms: number) => {
    s.heldUntil = Math.max(s.heldUntil, Date.now() + ms);
    s.ws.pause();
    setTimeout(() => {
      if (Date.now() >= s.heldUntil) s.ws.resume();
    }, ms + 1).unref();
  };

  /** A context as HTTP authentication builds one, for one operation of a socket. */
  function operationContext(viewer: Viewer, statements: StatementCounter, requestId: string): Context {
    const ctx = createContext(
      forRequest(database, statements),
      viewer,
      cursors,
      requestId,
      readDatabase && (forRequest(readDatabase, statements) as Kysely<DB>),
    );
    ctx.changes = hub;
    ctx.webhooks = opts.webhooks;
    return ctx;
  }

  /** The access-log line and request metrics of one socket operation, as HTTP's onResponse writes them. */
  function observe(
    obs: RequestObservation,
    r: Pick<Running, 'socket' | 'started' | 'statements'> & { op?: OperationDefinitionNode },
    operationName: string | null,
    errors: readonly GraphQLError[],
    /** Refused before it ran or answered (no data), as /graphql answers 4xx. */
    refused: boolean,
  ): void {
    // Unlogged here: formatting the error for the client logs a masked fault once, with its id.
    const answers = errors.map((e) => errorResponse(e));
    const codes = [...new Set(answers.map((a) => a.error.code))];
    const bad = codes.find(warnWorthy);
    // A refusal's status as HTTP answers it: its first error's.
    const status = refused && answers.length ? answers[0].status : 200;
    const seconds = (performance.now() - r.started) / 1000;
    metrics.observeRequest({
      transport: 'ws',
      operation: obs.operation,
      status,
      seconds,
      statements: r.statements.count,
    });
    for (const code of codes) {
      metrics.graphqlErrors.inc({ code });
      if (LIMIT_CODES.has(code)) metrics.refusals.inc({ code });
    }
    const line = {
      transport: 'ws',
      operation: obs.operation,
      ...(operationName ? { operationName } : {}),
      type: r.op?.operation,
      status,
      durationMs: Math.round(seconds * 10_000) / 10,
      sqlStatements: r.statements.count,
      org: orgOf(r.socket.viewer),
      ...(obs.engine ? { engine: obs.engine } : {}),
      ...(obs.planned ? { planned: true } : {}),
      ...(codes.length ? { codes } : {}),
      ...(bad ? { code: bad } : {}),
    };
    if (!bad) app.log.info(line, 'socket operation');
    else {
      // A refusal by a limit is logged sampled per code, as HTTP's are (observability/sampling.ts).
      const sampled = LIMIT_CODES.has(bad) ? refusalSampler(app).take(bad) : {};
      if (sampled) app.log.warn({ ...line, ...sampled }, 'socket operation refused or failed');
    }
  }

  // Revocations and lost grants reach open sockets between their operations too: each key is looked
  // up once per round, whatever the number of its sockets.
  const recheck = setInterval(async () => {
    const byKey = new Map<string, Socket[]>();
    for (const s of sockets) {
      const group = byKey.get(s.keyHash);
      if (group) group.push(s);
      else byKey.set(s.keyHash, [s]);
    }
    for (const [hash, group] of byKey) {
      const viewer = await findViewerByHash(database.db, hash).catch(() => undefined);
      if (viewer === undefined) continue; // the database did not answer: try again next round
      for (const s of group) {
        if (!viewer) s.connection.close(CLOSE.KEY_REVOKED, 'The API key was revoked');
        else {
          s.viewer = viewer;
          hub.recheck(s.connection, viewer);
        }
      }
    }
  }, socketLimits.recheckMs).unref();

  app.decorate('changeHub', hub);
  // Closing the HTTP server does not end upgraded sockets: end them first.
  app.addHook('preClose', async () => {
    clearInterval(recheck);
    for (const ws of wss.clients) ws.terminate();
  });
  app.addHook('onClose', async () => {
    await server.dispose();
    wss.close();
    await hub.stop();
  });
}

const keyRateLimited = (retryAfter: number) =>
  new AppError(
    'RATE_LIMITED',
    `Too many operations for this API key, over HTTP and WebSocket together. Retry after ${retryAfter} s.`,
  );

const tooManyPending = (n: number) =>
  new AppError(
    'RATE_LIMITED',
    `This socket already has ${n} operations in progress, the most one socket may have; wait for their answers, or open another socket.`,
  );

function orgOf(viewer: Viewer): string | string[] | undefined {
  const orgs = viewer.orgIds;
  return orgs.length === 1 ? orgs[0] : orgs.slice(0, 10);
}

/**
 * Closes a socket with a code the client can read, and ends it a moment later if the close frame
 * cannot get out (a client that does not read never takes it, and its queued bytes stay held).
 */
function closeSocket(ws: WebSocket, code: number, reason: string): void {
  if (ws.readyState === WebSocket.CLOSED) return;
  ws.close(code, reason);
  setTimeout(() => ws.terminate(), 1_000).unref();
}

/**
 * Caps what waits in a socket's send buffer. A client that stops reading leaves every answer
 * queued in this process; past the cap the socket is closed as a slow consumer and the message that
 * would have crossed it is dropped (graphql-ws waits for its callback, so it is still called).
 */
export function boundSendQueue(ws: WebSocket, maxBytes: number): void {
  const send = ws.send.bind(ws) as (data: unknown, ...rest: unknown[]) => void;
  ws.send = ((data: string | Buffer, optsOrCb?: unknown, cb?: (err?: Error) => void) => {
    const done = (typeof optsOrCb === 'function' ? optsOrCb : cb) as ((err?: Error) => void) | undefined;
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    if (ws.bufferedAmount + size > maxBytes) {
      closeSocket(ws, CLOSE.SLOW_CONSUMER, `Slow consumer: more than ${maxBytes} bytes queued`);
      done?.();
      return;
    }
    send(data, optsOrCb, cb);
  }) as typeof ws.send;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's live subscriptions (tests wait on its size). */
    changeHub: ChangeHub;
  }
}
