import type { CodegenConfig } from '@graphql-codegen/cli';

// Resolver types are generated from the SDL and committed; `.ci/run` fails on drift.
const config: CodegenConfig = {
  schema: 'schema.graphql',
  generates: {
    'src/generated/graphql.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        contextType: '../context.js#Context',
        useIndexSignature: true,
        enumsAsTypes: true,
        scalars: { JSON: 'unknown', DateTime: 'Date', Date: 'string' },
        mappers: {
          Organization: '../modules/org/types.js#OrgModel',
          Portfolio: '../modules/org/types.js#PortfolioModel',
          User: '../modules/org/types.js#UserModel',
          Viewer: '../modules/org/types.js#ViewerModel',
          Project: '../modules/records/types.js#RecordModel',
          Parcel: '../modules/records/types.js#RecordModel',
          Contact: '../modules/records/types.js#RecordModel',
          PropertySchema: '../modules/schema/types.js#PropertySchemaModel',
          PropertyDefinition: '../modules/schema/types.js#PropertyDefModel',
          TextValue: '../modules/records/types.js#ValueModel',
          NumberValue: '../modules/records/types.js#ValueModel',
          DateValue: '../modules/records/types.js#ValueModel',
          SelectValue: '../modules/records/types.js#ValueModel',
          PeopleValue: '../modules/records/types.js#ValueModel',
          PropertyValue: '../modules/records/types.js#ValueModel',
          PropertyRecord: '../modules/records/types.js#RecordModel',
          ProjectConnection: '../modules/records/types.js#ConnectionModel',
          ParcelConnection: '../modules/records/types.js#ConnectionModel',
          ContactConnection: '../modules/records/types.js#ConnectionModel',
          ProjectEdge: '../modules/records/types.js#EdgeModel',
          ParcelEdge: '../modules/records/types.js#EdgeModel',
          ContactEdge: '../modules/records/types.js#EdgeModel',
        },
      },
    },
  },
};
export default config;
