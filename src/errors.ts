import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';

/**
 * The one closed set of error codes. Each maps to an HTTP status (REST and the GraphQL HTTP
 * response) and is the `extensions.code` of GraphQL errors. Nothing else produces error codes.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  INVALID_CURSOR: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  QUERY_TOO_COMPLEX: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PRECONDITION_FAILED: 412,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  TIMEOUT: 503,
  OVERLOADED: 503,
} as const;

/** Codes whose responses carry Retry-After (seconds): the caller should come back, not give up. */
export const RETRY_AFTER_SECONDS: Partial<Record<keyof typeof ERROR_STATUS, number>> = {
  UNAVAILABLE: 5,
  OVERLOADED: 2,
};

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  /** Property id, field or parameter the problem is about. */
  field?: string;
  reason: string;
  [k: string]: unknown;
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[]; errorId?: string };
}

/** A domain error: safe to show to the caller as it is. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'AppError';
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string) =>
  new AppError('NOT_FOUND', `${what} was not found, or your API key has no access to it.`);
export const forbidden = (what: string) =>
  new AppError(
    'FORBIDDEN',
    `Your role is read-only in this organization, so you cannot ${what}. Ask an owner for the member role.`,
  );

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && code in ERROR_STATUS;
}

/** Postgres' foreign_key_violation: a row a write refers to is gone (or never was). Repositories read it. */
export const isForeignKeyViolation = (err: unknown) => (err as { code?: string } | null)?.code === '23503';

/** Postgres errors that mean "the database is not there", rather than a bug. */
const UNAVAILABLE_PG = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);
const UNAVAILABLE_NODE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
/** Text Postgres cannot hold (U+0000 in text or jsonb): it came from the request, so it is bad input. */
const UNSTORABLE_PG = new Set(['22021', '22P05']);

/**
 * Turns any thrown value into an AppError. Unknown errors are masked: the caller sees an error id,
 * and the log gets the same id with the real error (`onUnknown`).
 */
export function toAppError(
  err: unknown,
  onUnknown?: (errorId: string, err: unknown) => void,
): AppError & { errorId?: string } {
  if (err instanceof AppError) return err;
  if (err instanceof GraphQLError && err.originalError) return toAppError(err.originalError, onUnknown);
  const e = err as { code?: string; message?: string } | undefined;
  if (e?.code && UNSTORABLE_PG.has(e.code))
    return new AppError(
      'VALIDATION_FAILED',
      'The request holds a character that cannot be stored, such as U+0000 (NUL). Remove it and retry.',
    );
  if (e?.code === '57014')
    return new AppError(
      'TIMEOUT',
      'The request took too long and was cancelled. Narrow it (smaller pages) and retry.',
    );
  if (
    (e?.code && (UNAVAILABLE_PG.has(e.code) || UNAVAILABLE_NODE.has(e.code))) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(
      e?.message ?? '',
    )
  ) {
    return new AppError('UNAVAILABLE', 'The database is unavailable. Retry in a few seconds.');
  }
  const errorId = randomUUID();
  onUnknown?.(errorId, err);
  const masked = new AppError(
    'INTERNAL',
    `Internal error. Quote error id ${errorId} when reporting it.`,
  ) as AppError & {
    errorId?: string;
  };
  masked.errorId = errorId;
  return masked;
}

export function errorBody(err: AppError & { errorId?: string }): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details?.length ? { details: err.details } : {}),
      ...(err.errorId ? { errorId: err.errorId } : {}),
    },
  };
}
