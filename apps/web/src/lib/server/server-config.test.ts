import { describe, expect, it } from 'vitest';
import { connectionLimits } from './server-config.ts';

describe('the connection limits', () => {
  it('by default: headers in 15 s, a request in 30 s, a body idle for 10 s, 512 connections and 32 from one address', () => {
    expect(connectionLimits({}, false)).toEqual({
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 30_000,
      bodyIdleTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      // Node's own check runs every 30 s, which would let a request run up to twice its timeout.
      checkIntervalMs: 1_000,
      maxConnections: 512,
      maxConnectionsPerAddress: 32,
    });
  });

  it('take whole seconds and counts from the environment', () => {
    const env = { HEADERS_TIMEOUT: '1', REQUEST_TIMEOUT: ' 2 ', BODY_IDLE_TIMEOUT: '3', KEEP_ALIVE_TIMEOUT: '4', MAX_CONNECTIONS: '100', MAX_CONNECTIONS_PER_ADDRESS: '5' };
    expect(connectionLimits(env, false)).toMatchObject({ headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, bodyIdleTimeoutMs: 3_000, keepAliveTimeoutMs: 4_000, maxConnections: 100, maxConnectionsPerAddress: 5 });
  });

  it('count no connections per address behind a trusted proxy, where they all come from the proxy', () => {
    expect(connectionLimits({ MAX_CONNECTIONS_PER_ADDRESS: '5' }, true)).toMatchObject({ maxConnections: 512, maxConnectionsPerAddress: undefined });
  });

  it('refuse a bad value, naming the variable', () => {
    for (const [name, value] of [['HEADERS_TIMEOUT', '10s'], ['REQUEST_TIMEOUT', '0'], ['BODY_IDLE_TIMEOUT', '1.5'], ['KEEP_ALIVE_TIMEOUT', '-1'], ['REQUEST_TIMEOUT', '90000']]) {
      expect(() => connectionLimits({ [name as string]: value }, false)).toThrow(new RegExp(`^${name} is a whole number of seconds from 1 to 86400, not "${value}"$`));
    }
    expect(() => connectionLimits({ MAX_CONNECTIONS: 'many' }, false)).toThrow('MAX_CONNECTIONS is a whole number of connections from 1 to 1000000, not "many"');
    expect(() => connectionLimits({ MAX_CONNECTIONS_PER_ADDRESS: '0' }, true)).toThrow(/^MAX_CONNECTIONS_PER_ADDRESS is a whole number/);
    // Node refuses a headers timeout longer than the request's; so does the dashboard, in words.
    expect(() => connectionLimits({ HEADERS_TIMEOUT: '60' }, false)).toThrow('HEADERS_TIMEOUT (60 s) is longer than REQUEST_TIMEOUT (30 s), which the headers are part of');
  });
});
