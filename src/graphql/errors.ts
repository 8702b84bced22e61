/**
 * GraphQL's side of the one mapping from an error to its answer (http/error-response.ts): the
 * GraphQL error a refusal travels as, and Apollo's formatError.
 */
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import {
  type ErrorLog,
  errorResponse,
  isPersistedQueryMiss,
  PERSISTED_QUERY_NOT_FOUND,
} from '../http/error-response.js';

/**
 * A refusal before execution (limits, admission, a fault while waiting), as the GraphQL error Apollo
 * sends: its HTTP status and Retry-After ride in `extensions.http`, and appErrorOf gets its AppError
 * back. A fault is masked, and logged to `log` if given.
 */
export function rejection(err: unknown, log?: ErrorLog): GraphQLError {
  const r = errorResponse(err, log);
  return new GraphQLError(r.error.message, {
    originalError: r.error,
    extensions: {
      code: r.error.code,
      http: {
        status: r.status,
        headers: new Map(r.retryAfter ? [['retry-after', String(r.retryAfter)]] : []),
      },
    },
  });
}

/** Apollo's formatError: every GraphQL error carries a code from the closed set, and nothing internal leaks. */
export function formatGraphQLError(log: ErrorLog) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    if (isPersistedQueryMiss(error)) return PERSISTED_QUERY_NOT_FOUND;
    const r = errorResponse(error, log);
    return {
      message: r.error.message,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: r.extensions,
    };
  };
}
