import type { FastifyBaseLogger } from 'fastify';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, isErrorCode, RETRY_AFTER_SECONDS, toAppError } from '../errors.js';

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

const isClientStatus = (http: unknown) => {
  const status = (http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
};

/**
 * The one mapping from a GraphQL error to the closed set of codes, for REST bodies and /graphql
 * `extensions` alike. A domain error travels inside the GraphQL error as its originalError and
 * comes out as the same object; unknown faults are masked, and logged with the id the caller sees.
 */
export function appErrorOf(err: GraphQLError, log?: Log): AppError & { errorId?: string } {
  const original = err.originalError;
  if (original instanceof AppError) return original;
  const code = err.extensions?.code;
  const mapped =
    typeof code === 'string'
      ? (GRAPHQL_CODES[code] ?? (isErrorCode(code) && code !== 'INTERNAL' ? code : undefined))
      : undefined;
  if (mapped) return new AppError(mapped, err.message);
  // Apollo's own refusals of a request (a persisted-query hash that does not match the query)
  // carry a 4xx status and no cause: the caller's mistake, with a message safe to show.
  if (!original && isClientStatus(err.extensions?.http)) return new AppError('BAD_REQUEST', err.message);
  const logged = (errorId: string, e: unknown) => log?.error({ err: e, errorId }, 'unhandled error');
  // A fault below GraphQL (the database, a bug): TIMEOUT, UNAVAILABLE, or masked INTERNAL.
  if (original && !(original instanceof GraphQLError)) return toAppError(original, logged);
  // graphql-js's own: about the request (variables, no path) it is the caller's mistake; during
  // execution (a path, such as a null for a non-null field) it is ours.
  return err.path ? toAppError(err, logged) : new AppError('VALIDATION_FAILED', err.message);
}

/**
 * A domain error refused before execution (limits, admission), as the GraphQL error Apollo sends:
 * its HTTP status and Retry-After ride in `extensions.http`, and appErrorOf gets the AppError back.
 */
export function rejection(err: AppError): GraphQLError {
  const retryAfter = RETRY_AFTER_SECONDS[err.code];
  return new GraphQLError(err.message, {
    originalError: err,
    extensions: {
      code: err.code,
      http: {
        status: err.status,
        headers: new Map(retryAfter ? [['retry-after', String(retryAfter)]] : []),
      },
    },
  });
}

/** Apollo's formatError: every GraphQL error carries a code from the closed set, and nothing internal leaks. */
export function formatGraphQLError(log: Log) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const appErr =
      error instanceof GraphQLError
        ? appErrorOf(error, log)
        : toAppError(error, (errorId, e) => log.error({ err: e, errorId }, 'unhandled error'));
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
