import nodeAdapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
      await inner.adapt(builder);
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
    // transitions write them). Avatars come from Open Collective's image host. No page can be framed.
    csp: {
      mode: 'auto',
      directives: {
        'default-src': ['self'],
        'script-src': ['self'],
        'style-src': ['self', 'unsafe-inline'],
        'img-src': ['self', 'data:', 'https://images.opencollective.com'],
        'font-src': ['self'],
        'connect-src': ['self'],
        'object-src': ['none'],
        'base-uri': ['self'],
        'form-action': ['self'],
        'frame-ancestors': ['none'],
      },
    },
  },
};
