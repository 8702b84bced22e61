import type { Resolvers } from '../../generated/graphql.js';

export const schemaResolvers: Resolvers = {
  Organization: {
    propertySchema: (o, { kind }, ctx) => ctx.loaders.schema.load({ orgId: o.id, kind }),
  },
};
