// The import rules of the workspace's sources, checked by scripts/structure.test.ts (part of the unit tests) with
// dependency-cruiser. Type-only imports count: a loop of types is still a loop for a reader.
/** packages/api modules allowed to import context.ts: the tRPC layer and the compositions (testing.ts is the tests'). */
const composition = '^packages/api/src/(trpc|root|index|context|testing)[.]ts$|^packages/api/src/router/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-import-loop',
      comment: 'No file imports itself through others: every arrow runs one way.',
      severity: 'error',
      from: { path: '^(packages|apps)/[^/]+/src/' },
      to: { circular: true },
    },
    {
      name: 'api-context-from-composition-only',
      comment: 'A service is given what it uses; only the tRPC layer and the composition see the whole Context.',
      severity: 'error',
      from: { path: '^packages/api/src/', pathNot: composition },
      to: { path: '^packages/api/src/context[.]ts$' },
    },
    {
      name: 'api-services-not-to-routers',
      comment: 'Services (the backup, the briefing) read the data procedures through what they are handed, never a router.',
      severity: 'error',
      from: { path: '^packages/api/src/', pathNot: '^packages/api/src/(router/|root[.]ts$|index[.]ts$)|[.]test[.]ts$' },
      to: { path: '^packages/api/src/router/' },
    },
    {
      name: 'api-leaves',
      comment: 'The shared leaves (Logger, the error shapes) import nothing of the package.',
      severity: 'error',
      from: { path: '^packages/api/src/(logger|errors)[.]ts$' },
      to: { path: '^packages/api/src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules|[.]svelte-kit|/build/' },
    // Relative imports only matter here (a workspace package's are followed no further than its name).
    includeOnly: '^(packages|apps)/[^/]+/src/',
    tsPreCompilationDeps: true,
  },
};
