import { type ApolloServerPlugin, type GraphQLResponse, HeaderMap } from '@apollo/server';
import { type ExecutionResult, GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Context } from '../context.js';
import { HEAVY_GRAPHQL_COST, LARGE_GRAPHQL_COST } from '../http/admission.js';
import { graphqlStatus } from '../http/error-response.js';
import { countErrorCodes } from './apollo-plugins.js';
import type { Seam } from './seam.js';

export type FormatError = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * For the requests Apollo reads (GET, persisted queries, other content types: direct.ts takes plain
 * POSTs), Apollo parses and validates; this plugin's `responseForOperation` then hands the operation
 * to the seam (seam.ts), the same as REST and WebSocket operations, so Apollo never executes
 * anything itself.
 *
 * Not Apollo's gateway hook, which did the same before: for every request that hook builds a
 * `response.http` object with a getter and setter that close over the whole request context, and
 * through them each request's context, with our Context, its pages and its answer, stayed reachable
 * to the young-generation collector until the next full collection, so all of it was copied and
 * promoted to the old generation; a copy of Apollo without those accessors promoted nothing
 * (docs/decisions.md#apollo-hands-graphql-to-the-executor-through-responseforoperation).
 *
 * Apollo formats the errors of the responses it executes itself, not of one a plugin gives, so
 * `answer` does here what it did for the gateway's results: counts their codes, formats them with
 * our formatError, takes each one's `extensions.http` (status, Retry-After) into the response, and
 * answers 400 when a request's variables were refused before it ran (no data, no other status) or
 * an argument was refused while it ran (VALIDATION_FAILED), or 500 when the executor threw.
 */
export function executorPlugin(seam: Seam, formatError: FormatError): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async responseForOperation(rc) {
          let result: ExecutionResult;
          try {
            result = await seam.run(
              rc.contextValue,
              { document: rc.document, operation: rc.operation, operationName: rc.operationName },
              rc.request.variables ?? {},
              // Apollo's answer goes through jsonBytes (graphql/server.ts), which takes written JSON.
              { heavyCost: HEAVY_GRAPHQL_COST, largeCost: LARGE_GRAPHQL_COST, writesJson: true },
            );
          } catch (err) {
            // As Apollo answered an executor that threw (a client gone while it waited for a slot).
            return answer(rc.contextValue, { errors: [err as GraphQLError] }, formatError, true);
          }
          return answer(rc.contextValue, result, formatError, false);
        },
      };
    },
  };
}

/**
 * The response for a result: its errors formatted by formatError, its status and Retry-After those
 * the errors carry, else as Apollo answers (http/error-response.ts `graphqlStatus`). Also what a
 * known query answered without Apollo sends (direct.ts).
 */
export function answer(
  ctx: Context,
  result: ExecutionResult,
  formatError: FormatError,
  thrown: boolean,
): GraphQLResponse {
  const http = { status: undefined as number | undefined, headers: new HeaderMap() };
  if (!result.errors?.length) return { http, body: { kind: 'single', singleResult: result } };
  if (ctx.obs) countErrorCodes(ctx.obs, result.errors);
  const errors = result.errors.map((e) => formatError(enriched(e, http), e));
  http.status = graphqlStatus(
    http.status,
    thrown,
    result.data,
    errors.map((e) => e.extensions?.code),
  );
  return { http, body: { kind: 'single', singleResult: { ...result, errors } } };
}

/**
 * An error as Apollo hands it to formatError: its JSON form, a code (INTERNAL_SERVER_ERROR when it
 * has none), and without `extensions.http`, which goes into the response's head instead.
 */
function enriched(
  error: unknown,
  head: { status: number | undefined; headers: HeaderMap },
): GraphQLFormattedError {
  const e =
    error instanceof GraphQLError
      ? error
      : error instanceof Error
        ? new GraphQLError(error.message, { originalError: error })
        : new GraphQLError(String(error));
  const { http, ...extensions } = e.extensions as Record<string, unknown> & {
    http?: { status?: number; headers?: Map<string, string> };
  };
  if (http?.status) head.status = http.status;
  for (const [name, value] of http?.headers ?? []) head.headers.set(name, value);
  return { ...e.toJSON(), extensions: { ...extensions, code: extensions.code ?? 'INTERNAL_SERVER_ERROR' } };
}
