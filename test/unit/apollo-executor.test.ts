import { ApolloServer } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { describe, expect, test } from 'vitest';
import type { Context } from '../../src/context.js';
import { AppError } from '../../src/errors.js';
import { executorPlugin } from '../../src/graphql/apollo-executor.js';
import { formatGraphQLError, rejection } from '../../src/graphql/errors.js';
import { buildSchema } from '../../src/graphql/schema.js';
import type { Seam } from '../../src/graphql/seam.js';

/**
 * The plugin answers /graphql operations in place of Apollo's execution, and must answer the
 * Executor's errors as Apollo did when it ran them: real Apollo, our schema and formatError, and an
 * seam that returns (or throws) what the real one can.
 */
async function answerOf(run: Seam['run']) {
  const schema = buildSchema();
  const logged: unknown[] = [];
  const formatError = formatGraphQLError({ error: (o: unknown) => logged.push(o) } as never);
  const apollo = new ApolloServer<Context>({
    schema,
    plugins: [executorPlugin({ schema, run } as unknown as Seam, formatError)],
    formatError,
  });
  await apollo.start();
  try {
    const res = await apollo.executeOperation(
      { query: '{ viewer { user { id } } }' },
      { contextValue: { obs: {} } as unknown as Context },
    );
    if (res.body.kind !== 'single') throw new Error('not a single result');
    return { status: res.http.status, headers: res.http.headers, result: res.body.singleResult, logged };
  } finally {
    await apollo.stop();
  }
}

describe('/graphql answers through executorPlugin', () => {
  test('data passes through; no status is set', async () => {
    const a = await answerOf(async () => ({ data: { viewer: { user: { id: 'usr_1' } } } }));
    expect(a.status).toBeUndefined();
    expect(a.result).toEqual({ data: { viewer: { user: { id: 'usr_1' } } } });
  });

  test("a refusal's status and Retry-After reach the response, its code the body", async () => {
    const a = await answerOf(async () => ({
      errors: [rejection(new AppError('OVERLOADED', 'busy'))],
    }));
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after')).toBeTruthy();
    expect(a.result.errors).toEqual([{ message: 'busy', extensions: { code: 'OVERLOADED' } }]);
  });

  test('refused variables (errors, no data) answer 400', async () => {
    const a = await answerOf(async () => ({ errors: [new GraphQLError('Variable "$n" got invalid value')] }));
    expect(a.status).toBe(400);
    expect(a.result.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
  });

  test('an executor that throws answers 500 with a masked INTERNAL error, logged with its id', async () => {
    const a = await answerOf(async () => {
      throw new Error('client closed the connection');
    });
    expect(a.status).toBe(500);
    const [e] = a.result.errors ?? [];
    expect(e.message).not.toContain('client closed');
    expect(e.extensions?.code).toBe('INTERNAL');
    expect(e.extensions?.errorId).toBeTruthy();
    expect(a.logged).toHaveLength(1);
  });
});
