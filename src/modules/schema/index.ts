/**
 * The schema module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Each organization's property schemas, per record kind.
 */
export { createSchemaLoaders } from './loaders.js';
export { type NewProperty, schemasByKeys } from './repository.js';
export { defineProperty, installDefaultProperties } from './service.js';
export { type PropertyDefModel, type PropertySchemaModel, READ_ONLY_PROJECT_PROPERTY } from './types.js';
