import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import fastifyApollo from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.js';
import { redirectBrowsersToGraphiQL } from '../graphiql/routes.js';
import { jsonBytes } from '../http/json-bytes.js';
import { executorPlugin } from './apollo-executor.js';
import { errorCodesPlugin, installQueryTextLimits, operationResolvedPlugin } from './apollo-plugins.js';
import { installDirectAnswers } from './direct.js';
import { formatGraphQLError } from './errors.js';
import type { GraphQLLimits } from './limits.js';
import type { Seam } from './seam.js';
import { installTrustedDocuments, type TrustedDocuments } from './trusted-documents.js';

/** POST and GET /graphql, on the request context that authentication built. */
export async function registerGraphQL(
  app: FastifyInstance,
  seam: Seam,
  limits: GraphQLLimits,
  trusted?: TrustedDocuments,
) {
  const formatError = formatGraphQLError(app.log);
  const apollo = new ApolloServer<Context>({
    // Apollo parses and validates against the seam's schema; executorPlugin answers through the seam.
    schema: seam.schema,
    // The default landing page loads Apollo Sandbox from a CDN; GraphiQL is served locally instead.
    // No drain plugin: app.close() drains in-flight requests itself and then stops Apollo (onClose).
    // Cache-control would wrap every resolver for hints nobody reads (we set no cache headers).
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      operationResolvedPlugin,
      errorCodesPlugin,
      executorPlugin(seam, formatError),
    ],
    // The server's own SIGTERM/SIGINT handler drains and closes; Apollo's raced it and left
    // app.close() hanging until an idle socket timed out (about 10 s).
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: limits.maxTokens },
    formatError,
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
  // Its own scope, so that only /graphql requests run these hooks (after the app's own).
  await app.register(async (graphql) => {
    redirectBrowsersToGraphiQL(graphql);
    // Plain POSTs go to the seam, which applies trusted documents and the text limits itself; the
    // two hooks after it apply them (the same functions) to what is left for Apollo to read.
    installDirectAnswers(graphql, seam, formatError, trusted !== undefined);
    if (trusted) installTrustedDocuments(graphql, trusted);
    installQueryTextLimits(graphql, limits);
    await graphql.register(fastifyApollo(apollo), { context: async (req) => req.ctx, path: '/graphql' });
  });
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
}
