import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type DocumentNode, Kind } from 'graphql';
import type { Context } from '../context.js';
import { AppError, toAppError } from '../errors.js';
import { rejection } from './errors.js';
import { checkQueryText } from './input-limits.js';
import type { GraphQLLimits } from './limits.js';

/** The document has no operation to run: name the ones it has, so the caller can pick. */
function noOperation(document: DocumentNode, name?: string | null) {
  const names = document.definitions
    .filter((d) => d.kind === Kind.OPERATION_DEFINITION)
    .map((d) => (d.name ? `"${d.name.value}"` : '(anonymous)'));
  return new AppError(
    'BAD_REQUEST',
    name
      ? `The document has no operation named "${name}"; it has ${names.join(', ')}. Set operationName to one of them.`
      : `The document has ${names.length} operations (${names.join(', ')}); set operationName to the one to run.`,
  );
}

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
 * Logs GraphQL answers that mean the service could not serve (pool exhausted, database down,
 * overloaded) at warn with their code, as the REST error handler does. Unknown errors are logged at
 * error by formatError, with their error id.
 */
export function unavailableLogPlugin(log: Pick<FastifyBaseLogger, 'warn'>): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          const codes = new Set<string>();
          for (const e of errors) {
            const original = e.originalError ?? e;
            const code = original instanceof AppError ? original.code : toAppError(original).code;
            if (code === 'UNAVAILABLE' || code === 'TIMEOUT' || code === 'OVERLOADED') codes.add(code);
          }
          // One line per code and request, however many fields failed the same way.
          for (const code of codes)
            log.warn({ reqId: contextValue?.requestId, code }, 'graphql request failed');
        },
      };
    },
  };
}

/** The query text is bounded (bytes, bracket nesting) before anything parses it. */
export function installQueryTextLimits(app: FastifyInstance, limits: GraphQLLimits): void {
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.url !== '/graphql') return;
    const q =
      (req.body as { query?: unknown } | undefined)?.query ?? (req.query as { query?: unknown }).query;
    if (typeof q === 'string') checkQueryText(q, limits);
  });
}
