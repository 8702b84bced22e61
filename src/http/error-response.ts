import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { GraphQLError } from 'graphql';
import {
  AppError,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetail,
  isErrorCode,
  RETRY_AFTER_SECONDS,
} from '../errors.js';

/**
 * The one mapping from an error to what it answers, for every door: REST and the HTTP layer's
 * refusals (http/errors.ts), /graphql (direct.ts and Apollo, through graphql/errors.ts), WebSocket
 * operations and upgrades (graphql/websocket.ts), and requests Node's parser refuses
 * (http/client-errors.ts). Whatever is thrown (an AppError, a GraphQL error, a Fastify or database
 * error, a bug) comes out as a code from the closed table (src/errors.ts), its HTTP status, the
 * Retry-After it carries, the REST body and the GraphQL `extensions`. An unknown fault is masked: the
 * caller sees an error id, and the log gets the same id with the real error.
 */
export interface ErrorResponse {
  /** The error in the closed set: its code, a message safe to show, details; `errorId` when masked. */
  error: KnownError;
  status: number;
  /** Seconds for Retry-After, when the answer carries one. */
  retryAfter?: number;
  /** The JSON error body (REST v1, and every HTTP answer outside /graphql). */
  body: ErrorBody;
  /** The `extensions` of the error as a GraphQL error. */
  extensions: ErrorExtensions;
}

export type KnownError = AppError & { errorId?: string };

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[]; errorId?: string };
}

export type ErrorExtensions = {
  code: ErrorCode;
  details?: ErrorDetail[];
  errorId?: string;
};

/** Where a masked fault is logged, with the id its caller sees. */
export type ErrorLog = Pick<FastifyBaseLogger, 'error'>;

/** What `err` answers. Without a log, a masked fault is not logged (only its code is wanted). */
export function errorResponse(err: unknown, log?: ErrorLog): ErrorResponse {
  const error = appErrorOf(err, log);
  const { code, message, details, errorId } = error;
  const extra = {
    ...(details?.length ? { details } : {}),
    ...(errorId ? { errorId } : {}),
  };
  const retryAfter = error.retryAfterSeconds ?? RETRY_AFTER_SECONDS[code];
  return {
    error,
    status: ERROR_STATUS[code],
    ...(retryAfter ? { retryAfter } : {}),
    body: { error: { code, message, ...extra } },
    extensions: { code, ...extra },
  };
}

/** The answer as a GraphQL response body: a refusal on /graphql before GraphQL ran. */
export const graphqlBody = (r: ErrorResponse) => ({
  errors: [{ message: r.error.message, extensions: r.extensions }],
});

/**
 * The answer as a whole HTTP/1.1 response, for a socket no Fastify reply owns (a request Node's
 * parser refused, a WebSocket upgrade refused before its handshake); the socket closes after it.
 */
export function rawErrorResponse(r: ErrorResponse, contentType = 'application/json; charset=utf-8'): string {
  const body = JSON.stringify(r.body);
  const retryAfter = r.retryAfter ? `Retry-After: ${r.retryAfter}\r\n` : '';
  return `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status]}\r\n${retryAfter}Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * The HTTP status of a GraphQL answer that has errors, as Apollo gives it: the status an error
 * carries in `extensions.http` (a refusal's, set by graphql/errors.ts `rejection` from this table),
 * else INTERNAL's when the executor threw, BAD_REQUEST's when the request was refused before it ran
 * (no data), and none (200) when it ran. One exception to the last: an argument refused while the
 * operation ran (a filter, an aggregate over a property it does not fit) is the caller's to fix, as
 * a request refused before running is, so any VALIDATION_FAILED among `codes` answers BAD_REQUEST's
 * status, with the data that did run.
 */
export function graphqlStatus(
  carried: number | undefined,
  thrown: boolean,
  data: unknown,
  codes: readonly unknown[] = [],
): number | undefined {
  if (carried !== undefined) return carried;
  if (thrown) return ERROR_STATUS.INTERNAL;
  if (data === undefined) return ERROR_STATUS.BAD_REQUEST;
  return codes.includes('VALIDATION_FAILED') ? ERROR_STATUS.BAD_REQUEST : undefined;
}

/**
 * Any thrown value as an error of the closed set. A domain error comes out as the same object (also
 * from inside a GraphQL error); GraphQL's, Fastify's and the database's own errors are mapped into
 * the set; anything else is masked as INTERNAL, logged to `log` with the id the caller sees.
 */
export function appErrorOf(err: unknown, log?: ErrorLog): KnownError {
  if (err instanceof AppError) return err;
  const onUnknown = (errorId: string, e: unknown) => log?.error({ err: e, errorId }, 'unhandled error');
  if (err instanceof GraphQLError) return fromGraphQL(err, onUnknown);
  return fromFastify(err) ?? fromFault(err, onUnknown);
}

type OnUnknown = (errorId: string, err: unknown) => void;

/**
 * Apollo's answer to an automatic-persisted-query hash it has not stored: a step of the APQ
 * protocol, not a failure. Its standard shape (this message and code, HTTP 200) is what Apollo
 * Client and urql look for to send the query again with its text, so it is passed through as Apollo
 * wrote it instead of being mapped into the closed set, and is not counted as an error.
 */
export const PERSISTED_QUERY_NOT_FOUND = {
  message: 'PersistedQueryNotFound',
  extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
} as const;

/** Whether `err` is Apollo's own persisted-query miss (never one a resolver or client made up). */
export const isPersistedQueryMiss = (err: unknown): boolean =>
  err instanceof GraphQLError &&
  !err.originalError &&
  err.message === PERSISTED_QUERY_NOT_FOUND.message &&
  err.extensions?.code === PERSISTED_QUERY_NOT_FOUND.extensions.code;

/** GraphQL-level codes (Apollo's and graphql-js's) mapped into the closed set. */
const GRAPHQL_CODES: Record<string, ErrorCode> = {
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  BAD_USER_INPUT: 'VALIDATION_FAILED',
  BAD_REQUEST: 'BAD_REQUEST',
  OPERATION_RESOLUTION_FAILURE: 'BAD_REQUEST',
  PERSISTED_QUERY_NOT_FOUND: 'BAD_REQUEST',
  PERSISTED_QUERY_NOT_SUPPORTED: 'BAD_REQUEST',
};

const isClientStatus = (http: unknown) => {
  const status = (http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
};

/**
 * A GraphQL error: a domain error travels inside it as its originalError and comes out as the same
 * object; GraphQL's own codes map into the set; a fault below GraphQL is the database's or a bug.
 */
function fromGraphQL(err: GraphQLError, onUnknown: OnUnknown): KnownError {
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
  // A fault below GraphQL (the database, a bug): TIMEOUT, UNAVAILABLE, or masked INTERNAL.
  if (original && !(original instanceof GraphQLError)) return fromFault(original, onUnknown);
  // graphql-js's own: about the request (variables, no path) it is the caller's mistake; during
  // execution (a path, such as a null for a non-null field) it is ours.
  return err.path ? fromFault(err, onUnknown) : new AppError('VALIDATION_FAILED', err.message);
}

const JSON_ONLY = 'Send the body as JSON, with Content-Type: application/json.';

/** Fastify's own errors (the body parsers'), mapped into the closed set. */
function fromFastify(err: unknown): AppError | undefined {
  const e = err as { code?: unknown; statusCode?: unknown; message?: string } | null | undefined;
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'PAYLOAD_TOO_LARGE',
        'The request body is larger than the limit; send less data per request.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', JSON_ONLY);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The body is not valid JSON.');
  }
  if (e?.statusCode === 400 && /JSON/i.test(e.message ?? ''))
    return new AppError('BAD_REQUEST', 'The body is not valid JSON.');
  if (e?.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
  if (e?.statusCode === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', JSON_ONLY);
  return undefined;
}

/** Postgres errors that mean "the database is not there", rather than a bug. */
const UNAVAILABLE_PG = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);
const UNAVAILABLE_NODE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
/** Text Postgres cannot hold (U+0000 in text or jsonb): it came from the request, so it is bad input. */
const UNSTORABLE_PG = new Set(['22021', '22P05']);

/**
 * A fault: the database's (bad text, a statement timeout, a database that is not there) by its code,
 * anything else masked, with an error id for the caller and the same id in the log (`onUnknown`).
 */
function fromFault(err: unknown, onUnknown: OnUnknown): KnownError {
  if (err instanceof AppError) return err;
  if (err instanceof GraphQLError && err.originalError) return fromFault(err.originalError, onUnknown);
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
  onUnknown(errorId, err);
  const masked: KnownError = new AppError(
    'INTERNAL',
    `Internal error. Quote error id ${errorId} when reporting it.`,
  );
  masked.errorId = errorId;
  return masked;
}
