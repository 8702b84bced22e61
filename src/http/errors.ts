import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { type ErrorResponse, errorResponse, graphqlBody } from './error-response.js';

/**
 * Fastify's `frameworkErrors`: errors raised before routing, which skip the error handler. A malformed
 * percent-encoding or a path segment over `maxParamLength` gets the JSON error body, not Fastify's own.
 */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  const r = errorResponse(
    new AppError(
      'BAD_REQUEST',
      err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'A path segment is too long; ids are short strings such as prj_….'
        : 'The URL is not valid; check its percent-encoding.',
    ),
  );
  return reply.status(r.status).send(r.body);
}

/**
 * Sends an error in the shape the caller's protocol expects: the REST error body, or on /graphql
 * a GraphQL response (`errors[].extensions.code`) so GraphQL clients can read it. A fault is masked,
 * and logged to the request's log with its id.
 */
export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown) {
  return send(req, reply, errorResponse(err, req.log));
}

function send(req: FastifyRequest, reply: FastifyReply, r: ErrorResponse) {
  if (req.obs) req.obs.code = r.error.code;
  if (r.retryAfter) reply.header('Retry-After', String(r.retryAfter));
  if ((req.routeOptions.url ?? req.url.split('?')[0]) === '/graphql')
    return reply.status(r.status).send(graphqlBody(r));
  return reply.status(r.status).send(r.body);
}

/** One place where every error leaving the HTTP layer becomes the JSON error body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const r = errorResponse(err, req.log);
    // The access log line (src/observability/http.ts) reports it once, at warn, with this detail.
    if (r.status >= 500 && r.error.code !== 'INTERNAL' && req.obs) req.obs.detail = err.message;
    return send(req, reply, r);
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(
      req,
      reply,
      new AppError(
        'NOT_FOUND',
        `No route ${req.method} ${req.url.split('?')[0]}. See /openapi.json for the routes.`,
      ),
    ),
  );
}
