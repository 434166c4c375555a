// The relay's build: src/main.ts bundled by esbuild into one file, which the Docker image runs with Node alone
// (`node scripts/pnpm.mjs --filter @dash/relay build` writes dist/relay.mjs). The tests and the benches start the
// relay from the same bundle, made by `bundleRelay` into a file of their own, so what they run is what is deployed.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

/** Bundles the relay into `outfile`; resolves with it. */
export async function bundleRelay(outfile) {
  await build({
    entryPoints: [fileURLToPath(new URL('src/main.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    // Bundled CommonJS dependencies call require(), which an ES module has only through createRequire.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundleRelay(fileURLToPath(new URL('dist/relay.mjs', import.meta.url)));
}
