import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { feedResolvers } from '../modules/feed/resolvers.js';
import { linkResolvers } from '../modules/links/resolvers.js';
import { mapResolvers } from '../modules/maps/resolvers.js';
import { orgResolvers } from '../modules/org/resolvers.js';
import { recordResolvers } from '../modules/records/resolvers.js';
import { schemaResolvers } from '../modules/schema/resolvers.js';
import { syncResolvers } from '../modules/sync/resolvers.js';
import { webhookResolvers } from '../modules/webhooks/resolvers.js';
import { PACKAGE_ROOT } from '../paths.js';
import { ENUM_VALUES } from './enums.js';
import { nodeResolvers } from './node.js';
import { DateScalar, DateTimeScalar, JSONScalar } from './scalars.js';

export const typeDefs = readFileSync(join(PACKAGE_ROOT, 'schema.graphql'), 'utf8');

/**
 * The executable schema: SDL from schema.graphql, resolvers from each module. A module's
 * resolvers.ts is read only here; everything else goes through the module's index.ts.
 */
export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs,
    resolvers: [
      { JSON: JSONScalar, DateTime: DateTimeScalar, Date: DateScalar },
      // Enums carry domain values inside (see enums.ts).
      ENUM_VALUES,
      orgResolvers,
      schemaResolvers,
      recordResolvers,
      linkResolvers,
      feedResolvers,
      webhookResolvers,
      mapResolvers,
      syncResolvers,
      nodeResolvers,
    ],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
}
