import { readFileSync } from 'node:fs';
import { parseEnv as parseDotEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readEnv } from './env.ts';

/** `.env.example` exactly as a user copies it to `.env` or hands it to `docker run --env-file`. */
const example = parseDotEnv(readFileSync(new URL('../../../../../.env.example', import.meta.url), 'utf8'));

describe("the dashboard's environment", () => {
  const defaults = { DATABASE_URL: 'file:/srv/dash/data/dashboard.db', DATA_DIR: '/srv/dash/data', MIGRATIONS_DIR: '/srv/dash/drizzle', DEMO: false };

  it('starts with every value of .env.example as written, its paths taken from the base directory', () => {
    expect(readEnv(example, '/srv/dash')).toEqual(defaults);
  });

  it('counts a variable set to the empty string as unset: the default applies, or nothing', () => {
    const env = readEnv({ DATABASE_URL: '', DATABASE_AUTH_TOKEN: '', CREDENTIALS_KEY: '  ', DATA_DIR: '', DEMO: '' }, '/srv/dash');
    expect(env).toEqual(defaults);
  });

  it('keeps absolute paths and remote database URLs as they are', () => {
    const env = readEnv({ DATABASE_URL: 'postgres://u:p@db:5432/dash', DATA_DIR: '/data', MIGRATIONS_DIR: '/app/drizzle' }, '/srv/dash');
    expect(env).toMatchObject({ DATABASE_URL: 'postgres://u:p@db:5432/dash', DATA_DIR: '/data', MIGRATIONS_DIR: '/app/drizzle' });
    expect(readEnv({ DATABASE_URL: 'file:/data/dashboard.db' }, '/srv/dash').DATABASE_URL).toBe('file:/data/dashboard.db');
    expect(readEnv({ DATABASE_URL: 'file:data/x.db' }, '/srv/dash').DATABASE_URL).toBe('file:/srv/dash/data/x.db');
  });

  it('turns the demo on with 1 or true and refuses anything else, naming the variable', () => {
    expect(readEnv({ DEMO: '1' }, '/').DEMO).toBe(true);
    expect(readEnv({ DEMO: 'true' }, '/').DEMO).toBe(true);
    expect(() => readEnv({ DEMO: 'yes' }, '/')).toThrow(/^Invalid environment: DEMO: /);
  });
});
