import { sveltekit } from '@sveltejs/kit/vite';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Scalar's self-contained browser bundles (the /api/docs page), which its package does not export: `$scalar/standalone.js`.
const scalarBrowser = fileURLToPath(new URL('node_modules/@scalar/api-reference/dist/browser', import.meta.url));

export default defineConfig({
  plugins: [sveltekit()],
  resolve: { alias: { $scalar: scalarBrowser } },
  server: { host: '127.0.0.1', port: 5173 },
});
