/**
 * The feed module's public door: what other modules, the GraphQL and REST layers and the CLI may
 * use. Everything else in this folder is private to it.
 *
 * Reading the change log: a record's history, a portfolio's sync feed, and subscriptions. All of it
 * is served to clients through the module's resolvers (src/graphql/schema.ts reads them), so no
 * other code needs anything from it and the door names nothing.
 */
export {};
