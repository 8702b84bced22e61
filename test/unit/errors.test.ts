import { GraphQLError } from 'graphql';
import { describe, expect, test } from 'vitest';
import { AppError, notFound } from '../../src/errors.js';
import { formatGraphQLError, rejection } from '../../src/graphql/errors.js';
import {
  appErrorOf,
  errorResponse,
  graphqlBody,
  graphqlStatus,
  rawErrorResponse,
} from '../../src/http/error-response.js';

const logged: unknown[] = [];
const log = { error: (o: unknown) => logged.push(o) } as never;

describe('error mapping', () => {
  test('a domain error inside a GraphQL error comes out as the same object', () => {
    const e = notFound('Project');
    expect(appErrorOf(new GraphQLError('x', { originalError: e, path: ['a'] }))).toBe(e);
  });

  test('GraphQL-level codes map into the closed set', () => {
    const of = (code: string) => appErrorOf(new GraphQLError('m', { extensions: { code } })).code;
    expect(of('GRAPHQL_PARSE_FAILED')).toBe('GRAPHQL_PARSE_FAILED');
    expect(of('BAD_USER_INPUT')).toBe('VALIDATION_FAILED');
    expect(of('PERSISTED_QUERY_NOT_FOUND')).toBe('BAD_REQUEST');
    expect(of('QUERY_TOO_COMPLEX')).toBe('QUERY_TOO_COMPLEX');
  });

  test('graphql-js errors: about the request a 400, during execution a masked, logged 500', () => {
    expect(appErrorOf(new GraphQLError('Variable "$x" got invalid value')).code).toBe('VALIDATION_FAILED');
    logged.length = 0;
    const internal = appErrorOf(
      new GraphQLError('Cannot return null for non-nullable field', { path: ['a'] }),
      log,
    );
    expect(internal.code).toBe('INTERNAL');
    expect(internal.message).toMatch(/Quote error id [\da-f-]{36}/);
    expect(logged).toHaveLength(1);
  });

  test('database faults say so: timeout, unavailable, text it cannot store', () => {
    const pg = (code: string) =>
      appErrorOf(new GraphQLError('x', { originalError: Object.assign(new Error('pg'), { code }) }));
    expect(pg('57014').code).toBe('TIMEOUT');
    expect(pg('57P01').code).toBe('UNAVAILABLE');
    expect(pg('22P05').code).toBe('VALIDATION_FAILED');
    expect(appErrorOf(new Error('Connection terminated unexpectedly')).code).toBe('UNAVAILABLE');
  });

  test('a refusal before execution carries its status and Retry-After to Apollo, and its code back', () => {
    const e = new AppError('OVERLOADED', 'busy');
    const g = rejection(e);
    expect(g.extensions.http).toEqual({ status: 503, headers: new Map([['retry-after', '2']]) });
    expect(appErrorOf(g)).toBe(e);
    const formatted = formatGraphQLError(log)({ message: 'busy', extensions: {} }, g);
    expect(formatted).toEqual({ message: 'busy', extensions: { code: 'OVERLOADED' } });
  });

  test('a refusal wrapped twice still comes out as its own AppError', () => {
    const e = new AppError('OVERLOADED', 'busy');
    expect(appErrorOf(rejection(rejection(e)))).toBe(e);
  });
});

describe('errorResponse: the one answer of an error', () => {
  test('a domain error: its status from the table, the REST body and the GraphQL extensions', () => {
    const details = [{ field: 'name', reason: 'is required' }];
    const r = errorResponse(new AppError('VALIDATION_FAILED', 'bad', details));
    expect(r.status).toBe(400);
    expect(r.retryAfter).toBeUndefined();
    expect(JSON.stringify(r.body)).toBe(
      '{"error":{"code":"VALIDATION_FAILED","message":"bad","details":[{"field":"name","reason":"is required"}]}}',
    );
    expect(r.extensions).toEqual({ code: 'VALIDATION_FAILED', details });
    expect(graphqlBody(r)).toEqual({ errors: [{ message: 'bad', extensions: r.extensions }] });
    // Empty details are left out, as the spec's body has none.
    expect(errorResponse(new AppError('NOT_FOUND', 'gone', [])).body).toEqual({
      error: { code: 'NOT_FOUND', message: 'gone' },
    });
  });

  test('every code answers its status from the table', () => {
    const expected: Record<string, number> = {
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      PRECONDITION_FAILED: 412,
    };
    expected.RATE_LIMITED = 429;
    expected.TIMEOUT = 503;
    for (const [code, status] of Object.entries(expected))
      expect(errorResponse(new AppError(code as never, 'm')).status, code).toBe(status);
  });

  test("Retry-After: the code's seconds, or the refusal's own", () => {
    expect(errorResponse(new AppError('UNAVAILABLE', 'down')).retryAfter).toBe(5);
    expect(errorResponse(new AppError('OVERLOADED', 'busy')).retryAfter).toBe(2);
    expect(errorResponse(new AppError('RATE_LIMITED', 'slow down', undefined, 7)).retryAfter).toBe(7);
    expect(errorResponse(new AppError('RATE_LIMITED', 'slow down')).retryAfter).toBeUndefined();
    expect(errorResponse(new AppError('NOT_FOUND', 'gone')).retryAfter).toBeUndefined();
  });

  test('an unknown fault is masked: INTERNAL, 500, an error id in body and extensions, logged with the same id', () => {
    const lines: { err: unknown; errorId: string }[] = [];
    const bug = new TypeError('secret SQL text');
    const r = errorResponse(bug, { error: (o: never) => lines.push(o) } as never);
    expect(r.status).toBe(500);
    expect(r.error.code).toBe('INTERNAL');
    const id = r.error.errorId;
    expect(id).toMatch(/^[\da-f-]{36}$/);
    expect(r.body).toEqual({
      error: {
        code: 'INTERNAL',
        message: `Internal error. Quote error id ${id} when reporting it.`,
        errorId: id,
      },
    });
    expect(r.extensions).toEqual({ code: 'INTERNAL', errorId: id });
    expect(JSON.stringify(r.body)).not.toContain('secret');
    expect(lines).toEqual([{ err: bug, errorId: id }]);
  });

  test("Fastify's body-parser errors map into the closed set", () => {
    const fst = (code: string, statusCode: number, message = 'm') =>
      errorResponse(Object.assign(new Error(message), { code, statusCode }));
    expect(fst('FST_ERR_CTP_BODY_TOO_LARGE', 413).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(fst('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415).status).toBe(415);
    expect(fst('FST_ERR_CTP_INVALID_JSON_BODY', 400).body.error.message).toBe('The body is not valid JSON.');
    expect(fst('SOMETHING_ELSE', 400, 'Unexpected token in JSON').error.code).toBe('BAD_REQUEST');
  });

  test("a GraphQL answer's status: the one an error carries, else Apollo's", () => {
    expect(graphqlStatus(503, true, undefined)).toBe(503);
    expect(graphqlStatus(undefined, true, undefined)).toBe(500);
    expect(graphqlStatus(undefined, false, undefined)).toBe(400);
    expect(graphqlStatus(undefined, false, null)).toBeUndefined();
  });

  test('a raw answer on a socket: status line, Retry-After, the JSON body', () => {
    const r = errorResponse(new AppError('RATE_LIMITED', 'wait', undefined, 3));
    const body = '{"error":{"code":"RATE_LIMITED","message":"wait"}}';
    expect(rawErrorResponse(r, 'application/json')).toBe(
      `HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(rawErrorResponse(errorResponse(new AppError('HEADERS_TOO_LARGE', 'big')))).toMatch(
      /^HTTP\/1\.1 431 Request Header Fields Too Large\r\nContent-Type: application\/json; charset=utf-8\r\n/,
    );
  });
});
