// Imported first by eslint.config.js: switches on svelte-eslint-parser's ts.sys hook before eslint-plugin-svelte loads
// the parser, which reads the switch once, as it is imported.
//
// Why: for the typed rules, the parser hands TypeScript each .svelte file's script as code that is not on disk, and
// typescript-eslint's project service then makes a new program, with a new type checker, for every component: each
// one's types worked out again from nothing (sveltejs/eslint-plugin-svelte#1084). The hook serves that code through
// TypeScript's own file reads instead, so one program and its checker serve every component. Measured 2026-12-07 on
// this 2-core machine, `eslint` over the 59 .svelte files: 38 CPU-s with it, 132 without (177 with the 1.10.1 it
// replaces); docs/development.md. The parser calls it experimental, so the version is pinned in pnpm-workspace.yaml's
// overrides, and SVELTE_ESLINT_PARSER_EXPERIMENTAL_TS_SYS_HOOK=0 in the environment switches it off.
process.env.SVELTE_ESLINT_PARSER_EXPERIMENTAL_TS_SYS_HOOK ??= '1';
