import type { FastifyBaseLogger } from 'fastify';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, isErrorCode, toAppError } from '../errors.js';

/** GraphQL-level codes (Apollo's and graphql-js's) mapped into the closed set. */
const GRAPHQL_CODES: Record<string, AppError['code']> = {
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  BAD_USER_INPUT: 'VALIDATION_FAILED',
  BAD_REQUEST: 'BAD_REQUEST',
  OPERATION_RESOLUTION_FAILURE: 'BAD_REQUEST',
  PERSISTED_QUERY_NOT_FOUND: 'BAD_REQUEST',
  PERSISTED_QUERY_NOT_SUPPORTED: 'BAD_REQUEST',
};

type Log = Pick<FastifyBaseLogger, 'error'>;

/** Any error from executing GraphQL, as an AppError; unknown ones are masked and logged with an id. */
export function graphqlErrorToAppError(err: GraphQLError, log?: Log): AppError {
  if (err.originalError)
    return toAppError(err.originalError, (errorId, e) => log?.error({ err: e, errorId }, 'unhandled error'));
  const code = err.extensions?.code;
  if (typeof code === 'string' && GRAPHQL_CODES[code]) return new AppError(GRAPHQL_CODES[code], err.message);
  if (isErrorCode(code)) return new AppError(code, err.message);
  // Errors without an original error come from graphql-js itself (coercion, validation): caller mistakes.
  return new AppError('VALIDATION_FAILED', err.message);
}

/** Apollo's formatError: every GraphQL error carries a code from the closed set, and nothing internal leaks. */
export function formatGraphQLError(log: Log) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = (error as GraphQLError)?.originalError ?? error;
    const code = formatted.extensions?.code;
    let appErr: AppError & { errorId?: string };
    if (original instanceof AppError) appErr = original;
    else if (typeof code === 'string' && GRAPHQL_CODES[code])
      appErr = new AppError(GRAPHQL_CODES[code], formatted.message);
    // Our own GraphQLErrors (the limits plugin) already carry a code from the closed set.
    else if (original instanceof GraphQLError && isErrorCode(code) && code !== 'INTERNAL')
      appErr = new AppError(code, formatted.message);
    // Anything else is a fault: masked, with an id that is also logged (database outages become UNAVAILABLE).
    else appErr = toAppError(original, (errorId, e) => log.error({ err: e, errorId }, 'unhandled error'));
    return {
      message: appErr.message,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: {
        code: appErr.code,
        ...(appErr.details?.length ? { details: appErr.details } : {}),
        ...(appErr.errorId ? { errorId: appErr.errorId } : {}),
      },
    };
  };
}
