import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import { type DocumentNode, execute, GraphQLError, type GraphQLSchema, getVariableValues } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Context } from '../context.js';

type Gateway = ApolloServerOptionsWithGateway<Context>['gateway'];

/**
 * graphql-jit's errors leave `extensions` undefined, which Apollo's error formatting cannot read;
 * a graphql-js GraphQLError with the same message, path, locations and original error can.
 */
function asGraphQLError(e: GraphQLError): GraphQLError {
  const g = new GraphQLError(e.message, {
    path: e.path,
    originalError: e.originalError ?? undefined,
    extensions: e.extensions,
  });
  if (e.locations) Object.defineProperty(g, 'locations', { value: e.locations, enumerable: true });
  return g;
}

/**
 * Runs /graphql operations compiled by graphql-jit instead of graphql-js's execute(), through the
 * one hook Apollo Server offers for its executor: a "gateway" that serves our own schema. Apollo
 * still parses, validates, runs every plugin (limits, admission, read pool) and formats errors;
 * only execution changes. Same schema, same resolvers, same context.
 *
 * An operation is compiled the `hotAfter`-th time its document runs, and kept by document (Apollo
 * keeps parsed documents in its own LRU, so the same query text brings the same DocumentNode), up
 * to `max` documents, the least recently used dropped first. Until then graphql-js runs it: compiling costs far more
 * than one run, and exploration in GraphiQL sends a new document with every edit.
 */
export function jitGateway(
  schema: GraphQLSchema,
  { max = 1000, hotAfter = 2 } = {},
): Gateway & { stats: { compiled: number } } {
  const stats = { compiled: 0 };
  // Per document: how often it ran, then its compiled form per operation name.
  const seen = new Map<DocumentNode, { runs: number; compiled: Map<string, CompiledQuery | null> }>();
  const compiled = (document: DocumentNode, operationName: string | null): CompiledQuery | null => {
    let entry = seen.get(document);
    if (entry) seen.delete(document);
    else {
      if (seen.size >= max) seen.delete(seen.keys().next().value!);
      entry = { runs: 0, compiled: new Map() };
    }
    // Re-inserted on every run, so the first key is always the least recently used.
    seen.set(document, entry);
    if (++entry.runs < hotAfter) return null;
    const name = operationName ?? '';
    let c = entry.compiled.get(name);
    if (c === undefined) {
      const out = compileQuery(schema, document, operationName ?? undefined);
      c = isCompiledQuery(out) ? out : null;
      if (c) stats.compiled++;
      entry.compiled.set(name, c);
    }
    return c;
  };
  return {
    stats,
    async load() {
      return {
        executor: async (rc) => {
          const c = compiled(rc.document, rc.operationName);
          // Cold, or not compilable (graphql-jit refuses very few valid operations): graphql-js.
          if (!c)
            return execute({
              schema,
              document: rc.document,
              contextValue: rc.context,
              variableValues: rc.request.variables,
              operationName: rc.operationName,
            });
          // Variables are checked by graphql-js, so a mistake in them reads exactly as it does cold.
          const inputs = rc.request.variables ?? {};
          const vars = getVariableValues(schema, rc.operation.variableDefinitions ?? [], inputs, {
            maxErrors: 50,
          });
          if (vars.errors) return { errors: vars.errors };
          const result = await c.query(undefined, rc.context, inputs);
          return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
        },
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async stop() {},
  };
}
