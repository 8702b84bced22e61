/**
 * `npm run deps:check` (CI runs it): the shape of src/.
 *
 * - Every folder of src/modules has one public door, its index.ts. Other modules, the GraphQL and
 *   REST layers, the CLI and the server import a module only through it. Two exceptions, each with
 *   one reader: src/graphql/schema.ts reads each module's resolvers.ts to build the executable
 *   schema, and the generated resolver types (src/generated) name the models they map.
 * - No import cycles, between modules or between files, counting imports of types: a loop of type
 *   imports is the same tangle to a reader as one of values.
 */
const DOOR = '(?!index\\.ts$)[^/]+$';

module.exports = {
  forbidden: [
    {
      name: 'module-door-from-outside',
      severity: 'error',
      comment:
        "Code outside src/modules imports a module's private file. Import it from the module's index.ts (add the name there if it is missing).",
      from: { path: '^src/(?!modules/|generated/)', pathNot: '^src/graphql/schema\\.ts$' },
      to: { path: `^src/modules/[^/]+/${DOOR}` },
    },
    {
      name: 'module-door-between-modules',
      severity: 'error',
      comment: "A module imports another module's private file. Import it from that module's index.ts.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: `^src/modules/[^/]+/${DOOR}`, pathNot: '^src/modules/$1/' },
    },
    {
      name: 'resolvers-only-from-schema',
      severity: 'error',
      comment: "Only src/graphql/schema.ts reads a module's resolvers.ts, to build the executable schema.",
      from: { path: '^src/(?!graphql/schema\\.ts$)', pathNot: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/resolvers\\.ts$' },
    },
    {
      name: 'schema-reads-doors-and-resolvers',
      severity: 'error',
      comment: 'src/graphql/schema.ts reads resolvers.ts and index.ts of a module, nothing else.',
      from: { path: '^src/graphql/schema\\.ts$' },
      to: { path: '^src/modules/[^/]+/(?!index\\.ts$|resolvers\\.ts$)' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import cycle: files (or modules) that import each other. Move what both need into a third, or have the lower one take it as a parameter.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
