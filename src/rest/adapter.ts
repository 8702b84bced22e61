import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { Seam } from '../graphql/seam.js';
import { HEAVY_PAGE } from '../http/admission.js';
import { appErrorOf } from '../http/error-response.js';
import { sendError } from '../http/errors.js';
import { JSON_UTF8, jsonBytes } from '../http/json-bytes.js';
import { operationId } from './names.js';
import { ParamChecker } from './params.js';
import {
  etagOf,
  ifMatchVersion,
  METHOD_EXPLANATIONS,
  methodNotAllowed,
  REST_ROUTES,
  type RecordOut,
  type RestRoute,
} from './routes.js';

const ALL_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The query parameters a route takes. */
function queryParams(route: RestRoute): string[] {
  return [
    ...(route.query.orgId ? ['orgId'] : []),
    ...(route.query.portfolioId ? ['portfolioId'] : []),
    ...(route.query.paging ? ['limit', 'startKey'] : []),
  ];
}

/**
 * Serves the spec's REST v1 paths by running each route's GraphQL operation through the same seam,
 * schema and request context as /graphql (the SOFA approach).
 */
export function registerRest(app: FastifyInstance, seam: Seam): void {
  const byPath = new Map<string, string[]>();
  for (const route of REST_ROUTES) {
    // Parsed, validated and compiled once at start-up: a broken operation fails the boot, not a request.
    const operation = seam.executor.prepare(route.document, `REST ${route.method} ${route.path}`);
    byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
    app.route({
      method: route.method,
      url: route.path,
      config: { operation: operationId(route) },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        // Fastify also parses text/plain; a REST body is JSON only.
        if (route.body && req.body !== undefined && !JSON_TYPE.test(req.headers['content-type'] ?? ''))
          throw new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            'Send the body as JSON, with Content-Type: application/json.',
          );
        const check = new ParamChecker(req.query as Record<string, unknown>);
        const base: Record<string, unknown> = {};
        if (route.query.orgId) base.orgId = check.required('orgId');
        if (route.query.portfolioId) base.portfolioId = check.required('portfolioId');
        check.only(queryParams(route));
        const body = route.body ? check.body(req.body, route.body) : {};
        const ifMatch =
          route.method === 'PUT' ? ifMatchVersion(req.headers['if-match'], 'record') : undefined;
        const variables = route.variables({
          check,
          params: req.params as Record<string, string>,
          body,
          base,
          ifMatch,
        });
        check.done();
        // A page of more than HEAVY_PAGE items waits for a heavy slot (its cost is its size).
        const result = await seam.run(req.ctx, operation, variables, {
          heavyCost: HEAVY_PAGE,
          inputsChecked: true,
        });
        if (result.errors?.length) throw appErrorOf(result.errors[0], req.log);
        // The data is this route's own document's result, the type its respond was written for.
        const out = route.respond(result.data as never);
        if (out === undefined) return reply.status(200).send();
        // A record's version, for If-Match on a later PUT. Only a header: the body is the spec's.
        if (route.returns === 'record') reply.header('ETag', etagOf((out as RecordOut).updated_at));
        // Returned, not sent: an async handler that returns the reply waits on it (Reply.then).
        reply.status(200).type(JSON_UTF8);
        return jsonBytes(out);
      },
    });
  }
  // Known paths answer 405 (with Allow) for the methods the spec does not give them.
  for (const path of new Set([...byPath.keys(), ...Object.keys(METHOD_EXPLANATIONS)])) {
    const allow = byPath.get(path) ?? [];
    const refused = ALL_METHODS.filter((m) => !allow.includes(m));
    app.route({
      method: refused,
      url: path,
      handler: async (req, reply) => {
        reply.header('Allow', allow.join(', '));
        return sendError(req, reply, methodNotAllowed(path, allow));
      },
    });
  }
}
