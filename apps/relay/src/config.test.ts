import { readFileSync } from 'node:fs';
import { parseEnv as parseDotEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readConfig } from './config.ts';

/** `.env.example` exactly as a user copies it to `.env` or hands it to `docker run --env-file`. */
const example = parseDotEnv(readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8'));

describe("the relay's environment", () => {
  it('starts with every value of .env.example as written, on its own port beside the dashboard', () => {
    const config = readConfig(example);
    expect(config).toMatchObject({ port: 8787, store: { kind: 'memory' }, enabled: true, trustProxy: false, pollSecrets: [] });
    expect(config.port).not.toBe(Number(example.PORT));
    expect(config.errorTrackerDsn).toBeUndefined();
    expect(config.allowedOrigin).toBeUndefined();
  });

  it('counts a variable set to the empty string as unset', () => {
    const config = readConfig({ KV_REST_API_URL: '', KV_REST_API_TOKEN: '', RELAY_STORE: '', ERROR_TRACKER_DSN: ' ', REDIS_URL: '', PORT: '', HOST: '' });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 8787, store: { kind: 'memory' }, errorTrackerDsn: undefined });
  });

  it('still refuses a value that is set but wrong, naming the variable', () => {
    expect(() => readConfig({ KV_REST_API_URL: 'not a url' })).toThrow(/^Invalid relay environment: KV_REST_API_URL: Invalid URL/);
    expect(() => readConfig({ RELAY_STORE: 'mongo' })).toThrow(/RELAY_STORE/);
    expect(() => readConfig({ RELAY_STORE: 'redis' })).toThrow('RELAY_STORE=redis needs REDIS_URL');
  });

  it('refuses a RELAY_POLL_SECRET or RELAY_ADMIN_SECRET (any entry of a new,old list) under 32 characters, saying how to make one', () => {
    const long = 'a'.repeat(32);
    for (const name of ['RELAY_POLL_SECRET', 'RELAY_ADMIN_SECRET']) {
      for (const value of ['x7q-k2', 'b'.repeat(31), `${long},old-z9`, `new-z8,${long}`]) {
        expect(() => readConfig({ [name]: value }), `${name}=${value}`).toThrow(/at least 32.*openssl rand -hex 32/);
        try {
          readConfig({ [name]: value });
        } catch (error) {
          // It names the variable, never the value.
          expect((error as Error).message).toContain(name);
          for (const secret of value.split(',')) expect((error as Error).message).not.toContain(secret);
        }
      }
    }
    expect(() => readConfig({ RELAY_POLL_SECRET: `${long},old-z9` })).toThrow(/^entry 2 of RELAY_POLL_SECRET's list is shorter than 32/);
    expect(readConfig({ RELAY_POLL_SECRET: ` ${long} , ${'c'.repeat(64)} `, RELAY_ADMIN_SECRET: long })).toMatchObject({
      pollSecrets: [long, 'c'.repeat(64)],
      adminSecrets: [long],
    });
  });

  it('forwards webhook bodies unless RELAY_FORWARD_BODIES=false, and refuses a value that is neither true nor false', () => {
    expect(readConfig({}).forwardBodies).toBe(true);
    expect(readConfig({ RELAY_FORWARD_BODIES: 'true' }).forwardBodies).toBe(true);
    expect(readConfig({ RELAY_FORWARD_BODIES: ' False ' }).forwardBodies).toBe(false);
    // A typo must not leave bodies on unnoticed.
    expect(() => readConfig({ RELAY_FORWARD_BODIES: 'no' })).toThrow('Invalid relay environment: RELAY_FORWARD_BODIES: is true or false');
  });

  it('listens on RELAY_HOST/RELAY_PORT, else the HOST/PORT a hosting platform sets, else 0.0.0.0:8787', () => {
    expect(readConfig({})).toMatchObject({ host: '0.0.0.0', port: 8787 });
    expect(readConfig({ PORT: '10000' })).toMatchObject({ port: 10_000 });
    expect(readConfig({ HOST: '127.0.0.1', PORT: '3000', RELAY_HOST: '::', RELAY_PORT: '9000' })).toMatchObject({ host: '::', port: 9000 });
  });

  it('picks the store from what is set: Redis, then Upstash, then memory', () => {
    expect(readConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).store).toEqual({ kind: 'redis', url: 'redis://127.0.0.1:6379' });
    expect(readConfig({ KV_REST_API_URL: 'https://eu1-x.upstash.io', KV_REST_API_TOKEN: 't' }).store).toEqual({ kind: 'upstash', url: 'https://eu1-x.upstash.io', token: 't' });
    expect(readConfig({ KV_REST_API_URL: 'https://eu1-x.upstash.io' }).store).toEqual({ kind: 'memory' });
  });

  it('takes a Redis Cluster from REDIS_CLUSTER_URLS, its comma-separated seed nodes', () => {
    expect(readConfig({ REDIS_CLUSTER_URLS: 'redis://10.0.0.1:7000, redis://10.0.0.2:7000,rediss://:pw@10.0.0.3:7000' }).store).toEqual({
      kind: 'redis-cluster',
      urls: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7000', 'rediss://:pw@10.0.0.3:7000'],
    });
    expect(readConfig({ RELAY_STORE: 'redis', REDIS_CLUSTER_URLS: 'redis://10.0.0.1:7000' }).store).toEqual({ kind: 'redis-cluster', urls: ['redis://10.0.0.1:7000'] });
  });

  it('refuses REDIS_URL beside REDIS_CLUSTER_URLS, and a malformed Redis URL, naming it (never its password)', () => {
    expect(() => readConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_URLS: 'redis://127.0.0.1:7000' })).toThrow(
      /^REDIS_URL and REDIS_CLUSTER_URLS are both set/,
    );
    expect(() => readConfig({ REDIS_CLUSTER_URLS: 'redis://10.0.0.1:7000,10.0.0.2:7000' })).toThrow(
      'entry 2 of REDIS_CLUSTER_URLS has "10.0.0.2:7000", which is not a redis:// or rediss:// URL with a host',
    );
    expect(() => readConfig({ REDIS_CLUSTER_URLS: 'http://10.0.0.1:7000' })).toThrow('REDIS_CLUSTER_URLS has "http://10.0.0.1:7000", which is not');
    expect(() => readConfig({ REDIS_URL: 'redis//user:hunter2@host' })).toThrow('REDIS_URL has "redis//user:***@host", which is not a redis:// or rediss:// URL');
    expect(() => readConfig({ REDIS_URL: 'redis://user:hunter2@' })).toThrow('REDIS_URL has "redis://user:***@", which is not');
  });
});
