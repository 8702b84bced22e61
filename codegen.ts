import { readFileSync } from 'node:fs';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { buildSchema, type GraphQLInterfaceType } from 'graphql';
import { namedDocument } from './src/rest/names.js';
import { REST_ROUTES } from './src/rest/routes.js';

// Resolver types are generated from the SDL and committed; `.ci/run` fails on drift.

const sdl = buildSchema(readFileSync('schema.graphql', 'utf8'));
/** Every type implementing `iface` (and the interface itself) → one domain model. */
const implementers = (iface: string, model: string) =>
  Object.fromEntries(
    [iface, ...sdl.getPossibleTypes(sdl.getType(iface) as GraphQLInterfaceType).map((t) => t.name)].map(
      (n) => [n, model],
    ),
  );
/** Types named `<X>Connection` / `<X>Edge` → one domain model. */
const suffixed = (suffix: string, model: string) =>
  Object.fromEntries(
    Object.keys(sdl.getTypeMap())
      .filter((n) => n.endsWith(suffix) && n !== 'PageInfo')
      .map((n) => [n, model]),
  );

const config: CodegenConfig = {
  schema: 'schema.graphql',
  generates: {
    'src/generated/graphql.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        contextType: '../context.js#Context',
        useIndexSignature: true,
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { JSON: 'unknown', DateTime: 'Date', Date: 'string' },
        // Resolvers deal in domain values; src/graphql/enums.ts maps them to the enum names.
        enumValues: {
          RecordKind: '../db/types.js#RecordKind',
          Role: '../modules/auth/viewer.js#AccessRole',
          PropertyType: '../modules/properties/registry.js#PropertyTypeName',
          ChangeOperation: '../modules/changes/types.js#ChangeOp',
          ChangeSource: '../modules/changes/types.js#ChangeSourceName',
        },
        mappers: {
          Organization: '../modules/org/types.js#OrgModel',
          Portfolio: '../modules/org/types.js#PortfolioModel',
          User: '../modules/org/types.js#UserModel',
          Viewer: '../modules/org/types.js#ViewerModel',
          PropertySchema: '../modules/schema/types.js#PropertySchemaModel',
          PropertyDefinition: '../modules/schema/types.js#PropertyDefModel',
          // Every value type of the property-type registry, whatever types schema.graphql adds.
          ...implementers('PropertyValue', '../modules/records/types.js#ValueModel'),
          ...implementers('PropertyRecord', '../modules/records/types.js#RecordModel'),
          ...suffixed('Connection', '../modules/records/types.js#ConnectionModel'),
          ...suffixed('Edge', '../modules/records/types.js#EdgeModel'),
          FeatureCollection: '../modules/maps/types.js#FeatureCollectionModel',
          RecordAggregates: '../modules/records/types.js#AggregatesModel',
          AggregateGroups: '../modules/records/types.js#GroupsModel',
          AggregateGroup: '../modules/records/types.js#GroupModel',
          Change: '../modules/changes/types.js#ChangeModel',
          ChangeConnection: '../modules/changes/types.js#ChangeConnectionModel',
          ChangeEdge: '../modules/changes/types.js#ChangeEdgeModel',
          PropertyChange: '../modules/changes/types.js#PropertyChangeModel',
          WebhookEndpoint: '../modules/webhooks/types.js#WebhookEndpointModel',
          WebhookDelivery: '../modules/webhooks/types.js#WebhookDeliveryModel',
          WebhookDeliveryConnection: '../modules/webhooks/types.js#WebhookDeliveryConnectionModel',
          WebhookDeliveryEdge: '../modules/webhooks/types.js#WebhookDeliveryEdgeModel',
          CreateWebhookEndpointPayload: '../modules/webhooks/types.js#CreateWebhookEndpointPayloadModel',
          WebhookEndpointPayload: '../modules/webhooks/types.js#WebhookEndpointPayloadModel',
        },
      },
    },
    // The result (and variables) of each REST route's GraphQL operation, named by its operationId.
    'src/generated/rest.ts': {
      documents: REST_ROUTES.map(namedDocument),
      plugins: ['typescript-operations'],
      config: {
        onlyOperationTypes: true,
        useTypeImports: true,
        // Records read through the fragment R keep its one type (RFragment) instead of a copy each.
        inlineFragmentTypes: 'combine',
        enumsAsTypes: true,
        // What a result carries after serialization (REST reads those).
        scalars: { JSON: 'unknown', DateTime: 'string', Date: 'string' },
      },
    },
  },
};
export default config;
