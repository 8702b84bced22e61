/**
 * `npm run deps:check` (CI runs it): no import cycle among the files of src/ that exists at run
 * time. Cycles of type-only imports are left (the generated resolver types import the domain
 * models, whose property types import the generated value types), and so are imports of another
 * module's files rather than its public door: issue 38 keeps both open.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A run-time import cycle: two files that load each other. Move what both need into a third.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
