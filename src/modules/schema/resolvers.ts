import type { RecordKind } from '../../db/types.js';
import type { RecordKind as GqlKind, PropertyType, Resolvers } from '../../generated/graphql.js';

export const kindOf = (k: GqlKind) => k.toLowerCase() as RecordKind;

export const schemaResolvers: Resolvers = {
  Organization: {
    propertySchema: (o, { kind }, ctx) => ctx.loaders.schema.load({ orgId: o.id, kind: kindOf(kind) }),
  },
  PropertySchema: {
    kind: (s) => s.kind.toUpperCase() as GqlKind,
  },
  PropertyDefinition: {
    type: (d) => d.type.toUpperCase() as PropertyType,
  },
};
