import { type Span, SpanStatusCode } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import { writes } from '../logger.js';
import type { Engine, Metrics, Transport } from './metrics.js';
import { NO_OPERATION } from './names.js';
import { refusalSampler } from './sampling.js';
import { type RequestTrace, startHttpSpan, tracingEnabled } from './tracing.js';

/** What the layers of one request report about it, read once when its response has gone. */
export interface RequestObservation {
  transport: Transport;
  /** The metric label: a REST route's operation id, a bounded GraphQL operation name, or a route. */
  operation: string;
  /** The code of the error body the HTTP layer sent (REST, and refusals before /graphql runs). */
  code?: ErrorCode;
  /** Errors in a /graphql response, counted by code. */
  graphqlErrors?: Map<ErrorCode, number>;
  /** The message of a 5xx other than INTERNAL (which logs its own line with the stack). */
  detail?: string;
  /** The engine that answered the operation (src/graphql/executor.ts); none when refused before one ran. */
  engine?: Engine;
  /** The operation was answered by its plan (src/graphql/plan): `engine` is 'plan'. */
  planned?: boolean;
  /** A known /graphql query, answered without Apollo's request pipeline (src/graphql/direct.ts). */
  direct?: boolean;
  /** The plan failed unexpectedly (a fault of the plan, not of the request); the executor answered. */
  planError?: string;
  span?: Span;
  /** With tracing on: the parent of the request's next span, passed on explicitly (tracing.ts). */
  trace?: RequestTrace;
}

declare module 'fastify' {
  interface FastifyRequest {
    obs: RequestObservation;
  }
  interface FastifyContextConfig {
    /** A REST route's operation id (src/rest/names.ts): its metric label and log name. */
    operation?: string;
  }
}

/** Refusals by a limit: each is logged once at warn, like every 5xx. */
export const LIMIT_CODES: ReadonlySet<ErrorCode> = new Set([
  'RATE_LIMITED',
  'OVERLOADED',
  'QUERY_TOO_COMPLEX',
  'PAYLOAD_TOO_LARGE',
  // Refused by Node's parser before a request exists (src/http/client-errors.ts logs those).
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
]);

/** Codes an access line (HTTP's or a socket operation's) reports at warn: a 5xx, or a refusal by a limit. */
export const warnWorthy = (code: ErrorCode) => ERROR_STATUS[code] >= 500 || LIMIT_CODES.has(code);

/** The codes a request answered with: the error body's, or every code of a /graphql response. */
function codesOf(o: RequestObservation): ErrorCode[] {
  const codes = o.graphqlErrors ? [...o.graphqlErrors.keys()] : [];
  if (o.code && !codes.includes(o.code)) codes.unshift(o.code);
  return codes;
}

/** The caller's org for the log: the one a REST request names, else the viewer's only org. */
function orgOf(req: FastifyRequest): string | string[] | undefined {
  const viewer = req.ctx?.viewer;
  if (!viewer) return undefined;
  const asked = (req.query as { orgId?: unknown } | undefined)?.orgId;
  if (typeof asked === 'string' && viewer.canReadOrg(asked)) return asked;
  const orgs = viewer.orgIds;
  return orgs.length === 1 ? orgs[0] : orgs.slice(0, 10);
}

/**
 * The HTTP side of observability, in one place: for every request one access-log line (info; warn
 * for a 5xx or a refusal by a limit, with its code), the request metrics, and with tracing on its
 * server span. Registered first, so its hooks see every request, refused ones included.
 */
export function installObservability(app: FastifyInstance, metrics: Metrics): void {
  app.decorateRequest('obs', null as unknown as RequestObservation);
  app.addHook('onRequest', (req, _reply, done) => {
    const url = req.routeOptions.url;
    const operation = req.routeOptions.config?.operation;
    req.obs =
      url === '/graphql'
        ? { transport: 'graphql', operation: NO_OPERATION }
        : operation
          ? { transport: 'rest', operation }
          : { transport: 'other', operation: url ?? NO_OPERATION };
    if (tracingEnabled()) {
      const { span, trace } = startHttpSpan(req.method, url ?? '(unmatched)', req.headers);
      req.obs.span = span;
      req.obs.trace = trace;
    }
    done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    const o = req.obs;
    if (!o) return done();
    const status = reply.statusCode;
    const statements = req.statements?.count ?? 0;
    metrics.observeRequest({
      transport: o.transport,
      operation: o.operation,
      status,
      seconds: reply.elapsedTime / 1000,
      statements,
    });
    const codes = codesOf(o);
    if (o.transport === 'graphql') {
      if (o.graphqlErrors) for (const [code, n] of o.graphqlErrors) metrics.graphqlErrors.inc({ code }, n);
      else if (o.code) metrics.graphqlErrors.inc({ code: o.code });
    }
    for (const code of codes) if (LIMIT_CODES.has(code)) metrics.refusals.inc({ code });
    const bad = codes.find(warnWorthy) ?? (status >= 500 ? 'INTERNAL' : undefined);
    // Built only when it is written: at LOG_LEVEL=warn an ordinary request writes nothing.
    const line = () => ({
      transport: o.transport,
      operation: o.operation,
      method: req.method,
      route: req.routeOptions.url,
      status,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      sqlStatements: statements,
      org: orgOf(req),
      ...(codes.length ? { codes } : {}),
      ...(bad ? { code: bad } : {}),
      ...(o.detail ? { err: o.detail } : {}),
      ...(o.engine ? { engine: o.engine } : {}),
      ...(o.planned ? { planned: true } : {}),
      ...(o.direct ? { direct: true } : {}),
      ...(o.planError ? { planError: o.planError } : {}),
    });
    if (o.planError) metrics.planFailures.inc();
    if (bad) {
      // A refusal by a limit is logged sampled per code (sampling.ts), or a flood writes a line each.
      const sampled = LIMIT_CODES.has(bad) ? refusalSampler(app).take(bad) : {};
      if (sampled) req.log.warn({ ...line(), ...sampled }, 'request refused or failed');
    } else if (o.planError) req.log.warn(line(), 'request answered by the executor after its plan failed');
    else if (writes(app.log, 'info')) req.log.info(line(), 'request');
    if (o.span) {
      o.span.setAttributes({
        'http.response.status_code': status,
        'sdg.operation': o.operation,
        'sdg.sql_statements': statements,
        ...(o.engine ? { 'sdg.engine': o.engine } : {}),
        ...(bad ? { 'error.type': bad } : {}),
      });
      if (status >= 500) o.span.setStatus({ code: SpanStatusCode.ERROR });
      o.span.end();
    }
    done();
  });
}
