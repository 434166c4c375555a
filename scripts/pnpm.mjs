// The project's pinned pnpm (package.json's packageManager), whatever pnpm the machine has, if any:
//   node scripts/pnpm.mjs <pnpm arguments>
// The root package.json's scripts reach pnpm through this file, so `npm run <script>` needs only npm.
import { pnpm } from './toolchain.mjs';

pnpm(process.argv.slice(2));
