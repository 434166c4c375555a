// Loads `.env` from the repo root when there is one; a variable already in the environment wins.
// Imported by `npm start` just before it serves, and by `npm run relay` (`node --import`).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = join(fileURLToPath(new URL('..', import.meta.url)), '.env');
if (existsSync(file)) {
  process.loadEnvFile(file);
  console.log(`→ read ${file}`);
}
