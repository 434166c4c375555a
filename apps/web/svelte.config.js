import nodeAdapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';
import { createReadStream, createWriteStream, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

const COMPRESSIBLE = /\.(html|js|mjs|json|css|svg|xml|wasm)$/;
const MB = 1024 * 1024;

/**
 * SvelteKit's precompression for adapter-node (a .gz and a .br beside each text file), except that brotli runs at quality 9, not
 * the maximum, on files over 1 MB: the API reference's 4.8 MB bundle takes 13 s at the maximum, for 10% less.
 * @param {string} dir
 */
async function precompress(dir) {
  if (!existsSync(dir)) return;
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
  await Promise.all(
    files.flatMap((file) => {
      const size = statSync(file).size;
      const brotli = {
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_QUALITY]: size > MB ? 9 : zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
      };
      return [
        pipeline(createReadStream(file), zlib.createGzip({ level: zlib.constants.Z_BEST_COMPRESSION }), createWriteStream(`${file}.gz`)),
        pipeline(createReadStream(file), zlib.createBrotliCompress({ params: brotli }), createWriteStream(`${file}.br`)),
      ];
    }),
  );
}

/**
 * adapter-node, whose own entry (build/index.js, what `node build` runs) would serve the app without the dashboard's
 * guards, on 0.0.0.0 by default. That entry is replaced by one that loads build/server.js (src/server.ts, which the
 * build script bundles next), so every way to start the build is the guarded server.
 * @param {{ out: string }} options
 * @returns {import('@sveltejs/kit').Adapter}
 */
function adapter(options) {
  const inner = nodeAdapter(options);
  return {
    ...inner,
    async adapt(builder) {
      // adapter-node still precompresses (and its server serves the .br and .gz files), with `precompress` below.
      await inner.adapt(Object.assign(Object.create(builder), { compress: precompress }));
      rmSync(join(options.out, 'index.js.map'), { force: true });
      writeFileSync(
        join(options.out, 'index.js'),
        `// \`node build\` and \`node build/index.js\`: the dashboard's guarded server (src/server.ts), never adapter-node's bare one.
import { existsSync } from 'node:fs';
if (!existsSync(new URL('./server.js', import.meta.url))) {
  console.error('[dashboard] build/server.js is missing: build with \`pnpm --filter @dash/web build\` (vite build alone leaves it out).');
  process.exit(1);
}
await import('./server.js');
`,
      );
    },
  };
}

/** @type {import('@sveltejs/kit').Config} */
export default {
  preprocess: vitePreprocess(),
  compilerOptions: { runes: true },
  kit: {
    adapter: adapter({ out: 'build' }),
    // `vite dev` reads the repo root's .env, the one `npm start` reads.
    env: { dir: '../..' },
    // Nonces on every rendered page; no inline script runs without one. Styles may be inline (Svelte's
    // transitions write them). Avatars come from Open Collective's image host. No page can be framed. The installable
    // app's manifest and service worker are the dashboard's own files.
    csp: {
      mode: 'auto',
      directives: {
        'default-src': ['self'],
        'script-src': ['self'],
        'style-src': ['self', 'unsafe-inline'],
        'img-src': ['self', 'data:', 'https://images.opencollective.com'],
        'font-src': ['self'],
        'connect-src': ['self'],
        'manifest-src': ['self'],
        'worker-src': ['self'],
        'object-src': ['none'],
        'base-uri': ['self'],
        'form-action': ['self'],
        'frame-ancestors': ['none'],
      },
    },
  },
};
