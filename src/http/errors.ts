import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody, RETRY_AFTER_SECONDS, toAppError } from '../errors.js';

const JSON_ONLY = 'Send the body as JSON, with Content-Type: application/json.';

/** Fastify's own errors, mapped into the closed set of codes. */
function fromFastify(err: FastifyError): AppError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'PAYLOAD_TOO_LARGE',
        'The request body is larger than the limit; send less data per request.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', JSON_ONLY);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The body is not valid JSON.');
  }
  if (err.statusCode === 400 && /JSON/i.test(err.message))
    return new AppError('BAD_REQUEST', 'The body is not valid JSON.');
  if (err.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
  if (err.statusCode === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', JSON_ONLY);
  return undefined;
}

/**
 * Fastify's `frameworkErrors`: errors raised before routing, which skip the error handler. A malformed
 * percent-encoding or a path segment over `maxParamLength` gets the JSON error body, not Fastify's own.
 */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  const appErr = new AppError(
    'BAD_REQUEST',
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path segment is too long; ids are short strings such as prj_….'
      : 'The URL is not valid; check its percent-encoding.',
  );
  return reply.status(appErr.status).send(errorBody(appErr));
}

/**
 * Sends an error in the shape the caller's protocol expects: the REST error body, or on /graphql
 * a GraphQL response (`errors[].extensions.code`) so GraphQL clients can read it.
 */
export function sendError(req: FastifyRequest, reply: FastifyReply, err: AppError & { errorId?: string }) {
  const body = errorBody(err);
  if (req.obs) req.obs.code = err.code;
  const retryAfter = RETRY_AFTER_SECONDS[err.code];
  if (retryAfter) reply.header('Retry-After', String(retryAfter));
  if ((req.routeOptions.url ?? req.url.split('?')[0]) === '/graphql') {
    const { message, ...extensions } = body.error;
    return reply.status(err.status).send({ errors: [{ message, extensions }] });
  }
  return reply.status(err.status).send(body);
}

/** One place where every error leaving the HTTP layer becomes the JSON error body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const appErr =
      fromFastify(err) ??
      toAppError(err, (errorId, e) => req.log.error({ err: e, errorId }, 'unhandled error'));
    // The access log line (src/observability/http.ts) reports it once, at warn, with this detail.
    if (appErr.status >= 500 && appErr.code !== 'INTERNAL' && req.obs) req.obs.detail = err.message;
    return sendError(req, reply, appErr);
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
