import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.js';
import { appErrorOf, isPersistedQueryMiss } from '../http/error-response.js';
import type { RequestObservation } from '../observability/http.js';
import { rejection } from './errors.js';
import { checkQueryText } from './input-limits.js';
import type { GraphQLLimits } from './limits.js';
import { noOperation } from './seam.js';

/**
 * An unknown `operationName` is the caller's mistake: without this, Apollo hands the executor no
 * operation and the answer is a 500.
 */
export const operationResolvedPlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ document, operation, request }) {
        if (!operation) throw rejection(noOperation(document, request.operationName));
      },
    };
  },
};

/**
 * Counts a /graphql response's errors by code for the request's access line and metrics
 * (src/observability/http.ts), which logs a 5xx-kind or limit code once, at warn. Unknown errors
 * are logged at error by formatError, with their error id.
 */
export const errorCodesPlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        if (contextValue?.obs) countErrorCodes(contextValue.obs, errors);
      },
    };
  },
};

/** Adds the errors' codes to the request's observation (Apollo's own errors, and the Executor's). */
export function countErrorCodes(obs: RequestObservation, errors: readonly unknown[]): void {
  obs.graphqlErrors ??= new Map();
  for (const e of errors) {
    if (isPersistedQueryMiss(e)) continue;
    const { code } = appErrorOf(e);
    obs.graphqlErrors.set(code, (obs.graphqlErrors.get(code) ?? 0) + 1);
  }
}

/** The query text is bounded (bytes, bracket nesting) before anything parses it; on the /graphql scope. */
export function installQueryTextLimits(graphql: FastifyInstance, limits: GraphQLLimits): void {
  graphql.addHook('preHandler', async (req) => {
    const q =
      (req.body as { query?: unknown } | undefined)?.query ?? (req.query as { query?: unknown }).query;
    if (typeof q === 'string') checkQueryText(q, limits);
  });
}
