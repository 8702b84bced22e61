import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type GraphQLSchema, parse, validate } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { routeToReadPool } from '../context.js';
import { AppError, errorBody } from '../errors.js';
import { graphqlErrorToAppError } from '../graphql/errors.js';
import { HEAVY_PAGE } from '../http/admission.js';
import { ParamChecker } from './params.js';
import { METHOD_EXPLANATIONS, methodNotAllowed, REST_ROUTES, type RestRoute } from './routes.js';

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
 * Parsed, validated and compiled once at start-up: a broken operation fails the boot, not a request.
 * The documents are fixed, so graphql-jit compiles each into a function once; it runs the same
 * resolvers as graphql-js's execute() with less work per field.
 */
function compile(schema: GraphQLSchema, route: RestRoute): CompiledQuery {
  const doc = parse(route.document);
  const errors = validate(schema, doc);
  if (errors.length)
    throw new Error(`REST ${route.method} ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
  const compiled = compileQuery(schema, doc);
  if (!isCompiledQuery(compiled))
    throw new Error(
      `REST ${route.method} ${route.path}: ${compiled.errors?.map((e) => e.message).join('; ')}`,
    );
  return compiled;
}

/**
 * Serves the spec's REST v1 paths by executing each route's GraphQL operation against the same
 * schema and request context as /graphql (the SOFA approach).
 */
export function registerRest(app: FastifyInstance, schema: GraphQLSchema): void {
  const byPath = new Map<string, string[]>();
  for (const route of REST_ROUTES) {
    const document = compile(schema, route);
    byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
    app.route({
      method: route.method,
      url: route.path,
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
        const variables = route.variables({
          check,
          params: req.params as Record<string, string>,
          body,
          base,
        });
        check.done();
        if (typeof variables.first === 'number' && variables.first > HEAVY_PAGE) await req.ctx.admit?.();
        if (route.method === 'GET') routeToReadPool(req.ctx);
        const result = await document.query(undefined, req.ctx, variables);
        if (result.errors?.length) throw graphqlErrorToAppError(result.errors[0], req.log);
        const out = route.respond(result.data);
        if (out === undefined) return reply.status(200).send();
        return reply.status(200).send(out);
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
      handler: async (_req, reply) => {
        reply
          .header('Allow', allow.join(', '))
          .status(405)
          .send(errorBody(methodNotAllowed(path, allow)));
      },
    });
  }
}

export { AppError };
