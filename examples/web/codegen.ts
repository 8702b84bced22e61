import type { CodegenConfig } from '@graphql-codegen/cli';
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

// Types for every operation in src/, and src/gql/persisted-documents.json: the manifest the gateway
// loads with GRAPHQL_TRUSTED_DOCUMENTS. The app then sends only each document's hash.
const config: CodegenConfig = {
  schema: '../../schema.graphql',
  documents: ['src/**/*.tsx', '!src/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'src/gql/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        // sha256, the hash APQ's sha256Hash carries; the documents keep their text for graphcache.
        persistedDocuments: { hashAlgorithm: 'sha256' },
      },
      config: {
        enumsAsTypes: true,
        useTypeImports: true,
        scalars: { JSON: 'unknown', DateTime: 'string', Date: 'string' },
      },
      // graphcache needs __typename on every object; the manifest must hold the documents it sends.
      documentTransforms: [addTypenameSelectionDocumentTransform],
    },
  },
};
export default config;
