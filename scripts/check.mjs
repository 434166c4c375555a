// `npm run check`: the typecheck of tsconfig.check.json's program (every package, the relay, scripts/ and bench/) and
// the lint of the whole project (what `npm run lint` does), in one process that builds that program once and hands it
// to the lint's typed rules. `npm test` runs it beside the tests, with the web app's own typecheck
// (`npm run typecheck:web`) in a second process; `npm run typecheck` and `npm run lint` do the same work apart.
//
// Why one process: the typed rules ask TypeScript for the type of most expressions. Asked of a program that the
// typecheck has just checked, each answer is already there; asked of the programs the lint would otherwise build for
// itself (typescript-eslint's project service, one per tsconfig), each is worked out again. Measured on this 2-core
// machine: the lint of those 401 files took 24.6 s after the typecheck in the same process, against 53.9 s with its
// own programs (docs/development.md#the-suites-shape-and-its-budget).
//
// `--types-only`: the typecheck alone (`npm test` passes it when no file the lint reads changed since it last passed).
// Exits 1 when either found a problem, with tsc's and ESLint's own reports (ESLint's warnings count: --max-warnings 0).
import { mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { root } from './toolchain.mjs';

const typesOnly = process.argv.includes('--types-only');
const colour = Boolean(process.stdout.isTTY) && !('NO_COLOR' in process.env);
const seconds = (/** @type {number} */ since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** tsconfig.check.json's program, incremental as `tsc --incremental` is (its cache beside the typecheck script's). */
function sharedProgram() {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (/** @type {ts.Diagnostic} */ diagnostic) => report([diagnostic]) };
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.check.json'), {}, host);
  if (!config) process.exit(1);
  const tsBuildInfoFile = join(root, 'node_modules/.cache/tsc/check.tsbuildinfo');
  mkdirSync(dirname(tsBuildInfoFile), { recursive: true });
  const builder = ts.createIncrementalProgram({
    rootNames: config.fileNames,
    options: { ...config.options, incremental: true, tsBuildInfoFile },
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
  return { builder, fileNames: config.fileNames };
}

/** @param {readonly ts.Diagnostic[]} diagnostics */
function report(diagnostics) {
  const host = { getCanonicalFileName: (/** @type {string} */ name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  process.stdout.write(colour ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host) : ts.formatDiagnostics(diagnostics, host));
}

let failed = false;
let began = performance.now();
const { builder, fileNames } = sharedProgram();
const diagnostics = [
  ...builder.getConfigFileParsingDiagnostics(),
  ...builder.getOptionsDiagnostics(),
  ...builder.getGlobalDiagnostics(),
  ...builder.getSyntacticDiagnostics(),
  ...builder.getSemanticDiagnostics(),
];
// With noEmit, this writes only the incremental cache (tsc does the same).
builder.emit();
if (diagnostics.length > 0) {
  report(diagnostics);
  failed = true;
}
console.log(`${diagnostics.length === 0 ? '✓' : '✖'} typecheck of tsconfig.check.json: ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'} (${seconds(began)})`);

if (!typesOnly) {
  began = performance.now();
  // The program's own TypeScript files (not its scripts' JavaScript, which the lint reads untyped) take their types from
  // it; every other file (the web app, its tests, the service worker) from the project service, as `eslint .` does.
  // Paths are ESLint patterns: one with a glob character is left to the project service rather than escaped.
  const shared = fileNames
    .map((file) => relative(root, file))
    .filter((file) => /\.[cm]?ts$/.test(file) && !/[*?[\]{}()!]/.test(file));
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: [{ files: shared, languageOptions: { parserOptions: { projectService: false, project: false, programs: [builder.getProgram()] } } }],
  });
  const results = await eslint.lintFiles(['.']);
  const problems = results.reduce((sum, result) => sum + result.errorCount + result.warningCount, 0);
  const formatted = await (await eslint.loadFormatter('stylish')).format(results);
  if (formatted) process.stdout.write(formatted.endsWith('\n') ? formatted : `${formatted}\n`);
  if (problems > 0) failed = true;
  console.log(`${problems === 0 ? '✓' : '✖'} lint of ${results.length} files: ${problems} problem${problems === 1 ? '' : 's'} (${seconds(began)})`);
}
process.exit(failed ? 1 : 0);
