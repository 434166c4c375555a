// The shell's way back in when the password is lost: whoever can run this on the server can read the
// database anyway. Bundled to build/reset-password.js; `npm run reset-password` runs it from a checkout,
// `docker compose exec web node build/reset-password.js` in the image.
import { CredentialVault, DatabaseManager, resolveCredentialsKey } from '@dash/api';
import { readEnv } from './lib/server/env.ts';

function exit(message: string, code: number): never {
  (code === 0 ? console.log : console.error)(message);
  process.exit(code);
}

let env;
try {
  env = readEnv(process.env, process.cwd());
} catch (error) {
  exit(error instanceof Error ? error.message : String(error), 1);
}
const managedBy = env.DASHBOARD_PASSWORD_FILE ? 'DASHBOARD_PASSWORD_FILE' : env.DASHBOARD_PASSWORD_HASH ? 'DASHBOARD_PASSWORD_HASH' : undefined;
if (managedBy) exit(`The password comes from ${managedBy}; change it there and restart the dashboard.`, 1);

// The database the dashboard serves from: DATABASE_URL's, the one chosen in Settings → Database, or the default.
const { key } = resolveCredentialsKey({ configured: env.CREDENTIALS_KEY, dataDir: env.DATA_DIR });
const { store } = await DatabaseManager.start({
  dataDir: env.DATA_DIR,
  baseDir: process.cwd(),
  migrationsDir: env.MIGRATIONS_DIR,
  vault: new CredentialVault(key),
  log: { info: () => {}, warn: console.warn, error: console.error },
  env: env.DATABASE_URL === undefined ? undefined : { url: env.DATABASE_URL, authToken: env.DATABASE_AUTH_TOKEN },
});
const hadOne = (await store.auth.owner()) !== undefined;
await store.auth.removeOwner();
await store.close();

const after =
  env.mode === 'local'
    ? 'The dashboard is open on this machine again until you set a new password in Settings → Security.'
    : 'Reload the dashboard: the server then prints a new one-time setup link in its log.';
exit(
  `${hadOne ? 'Password removed, every session signed out and every push device removed (add them again).' : 'No password was set; every session is signed out and every push device removed.'} ${after} API tokens still work; revoke them in Settings → Security if needed.`,
  0,
);
