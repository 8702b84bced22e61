import { GraphQLError } from 'graphql';
import { describe, expect, test } from 'vitest';
import { AppError, notFound, toAppError } from '../../src/errors.js';
import { appErrorOf, formatGraphQLError, rejection } from '../../src/graphql/errors.js';

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
    expect(toAppError(new Error('Connection terminated unexpectedly')).code).toBe('UNAVAILABLE');
  });

  test('a refusal before execution carries its status and Retry-After to Apollo, and its code back', () => {
    const e = new AppError('OVERLOADED', 'busy');
    const g = rejection(e);
    expect(g.extensions.http).toEqual({ status: 503, headers: new Map([['retry-after', '2']]) });
    expect(appErrorOf(g)).toBe(e);
    const formatted = formatGraphQLError(log)({ message: 'busy', extensions: {} }, g);
    expect(formatted).toEqual({ message: 'busy', extensions: { code: 'OVERLOADED' } });
  });
});
