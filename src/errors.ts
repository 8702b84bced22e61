/**
 * The one closed set of error codes. Each maps to an HTTP status (REST and the GraphQL HTTP
 * response) and is the `extensions.code` of GraphQL errors. Nothing else produces error codes.
 * What an error answers (status, body, extensions, Retry-After, masking) is decided in one place,
 * src/http/error-response.ts.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  INVALID_CURSOR: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  QUERY_TOO_COMPLEX: 400,
  PERSISTED_DOCUMENT_NOT_FOUND: 400,
  PERSISTED_DOCUMENT_REQUIRED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PRECONDITION_FAILED: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
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

/**
 * Every code whose responses carry Retry-After: those above, and RATE_LIMITED, whose seconds are the
 * refusal's own (when its bucket has a token again), given to its AppError.
 */
export const RETRY_AFTER_CODES: ReadonlySet<ErrorCode> = new Set([
  ...(Object.keys(RETRY_AFTER_SECONDS) as ErrorCode[]),
  'RATE_LIMITED',
]);

export interface ErrorDetail {
  /** Property id, field or parameter the problem is about. */
  field?: string;
  reason: string;
  [k: string]: unknown;
}

/** A domain error: safe to show to the caller as it is. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Retry-After's seconds when this refusal knows them (a rate limit's); else the code's, if any. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
  /** Its code's status in the table (what it answers, in full, is http/error-response.ts's). */
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

/** Postgres' unique_violation: a concurrent write took the same key first. */
export const isUniqueViolation = (err: unknown) => (err as { code?: string } | null)?.code === '23505';
