import { ApolloServer, type ApolloServerOptionsWithGateway } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import fastifyApollo from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.js';
import { HEAVY_GRAPHQL_COST, LARGE_GRAPHQL_COST } from '../http/admission.js';
import { jsonBytes } from '../http/json-bytes.js';
import { errorCodesPlugin, installQueryTextLimits, operationResolvedPlugin } from './apollo-plugins.js';
import { formatGraphQLError } from './errors.js';
import type { Executor } from './executor.js';
import type { GraphQLLimits } from './limits.js';
import { installTrustedDocuments, type TrustedDocuments } from './trusted-documents.js';

type Gateway = ApolloServerOptionsWithGateway<Context>['gateway'];

/**
 * Apollo Server's one hook for its executor is a "gateway" serving our own schema: Apollo parses,
 * validates (with its document cache) and formats errors; everything after that is the Executor's,
 * the same as for REST.
 */
export function executorGateway(executor: Executor): Gateway {
  return {
    async load() {
      return {
        executor: (rc) =>
          executor.execute(
            rc.context as Context,
            { document: rc.document, operation: rc.operation, operationName: rc.operationName },
            rc.request.variables ?? {},
            { heavyCost: HEAVY_GRAPHQL_COST, largeCost: LARGE_GRAPHQL_COST },
          ),
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: executor.schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async stop() {},
  };
}

/** POST and GET /graphql, on the request context that authentication built. */
export async function registerGraphQL(
  app: FastifyInstance,
  executor: Executor,
  limits: GraphQLLimits,
  trusted?: TrustedDocuments,
) {
  const apollo = new ApolloServer<Context>({
    gateway: executorGateway(executor),
    // The default landing page loads Apollo Sandbox from a CDN; GraphiQL is served locally instead.
    // No drain plugin: app.close() drains in-flight requests itself and then stops Apollo (onClose).
    // Cache-control would wrap every resolver for hints nobody reads (we set no cache headers).
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      operationResolvedPlugin,
      errorCodesPlugin,
    ],
    // The server's own SIGTERM/SIGINT handler drains and closes; Apollo's raced it and left
    // app.close() hanging until an idle socket timed out (about 10 s).
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: limits.maxTokens },
    formatError: formatGraphQLError(app.log),
    // Apollo's own stringify (JSON.stringify and a newline) as bytes for a large answer: Apollo
    // hands the "string" to the Fastify integration untouched, and Fastify sends a Buffer as it is
    // (test/frontend-http.test.ts, "large answers").
    stringifyResult: (result) => jsonBytes(result, '\n') as string,
    includeStacktraceInErrorResponses: false,
    // With trusted documents, a hash names a manifest entry, never a document a client registered:
    // Apollo's automatic persisted queries would let any client add documents, so they are off.
    ...(trusted ? { persistedQueries: false as const } : {}),
  });
  await apollo.start();
  if (trusted) installTrustedDocuments(app, trusted);
  installQueryTextLimits(app, limits);
  await app.register(fastifyApollo(apollo), { context: async (req) => req.ctx, path: '/graphql' });
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
}
