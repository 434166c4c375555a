import type { AddressInfo } from 'node:net';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '@dash/api';
import { createTestApi } from '@dash/api/testing';
import { createDashboardClient, runCommand, type DashboardClient } from './dash.ts';

let api: Awaited<ReturnType<typeof createTestApi>>;
let server: ReturnType<typeof createHTTPServer>;
let client: DashboardClient;

beforeAll(async () => {
  api = await createTestApi();
  server = createHTTPServer({ basePath: '/api/trpc/', router: appRouter, createContext: () => api.ctx });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = createDashboardClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await api.dispose();
});

async function dash(...args: string[]) {
  const lines: string[] = [];
  const code = await runCommand(client, args, (line) => lines.push(line));
  return { code, out: lines.join('\n') };
}

describe('the typed client script over HTTP', () => {
  it('creates projects, orders them and reads the order back', async () => {
    expect(await dash('project:add', 'alpha', 'Alpha', 'app')).toEqual({ code: 0, out: 'created alpha' });
    await dash('project:add', 'beta', 'Beta');
    expect((await dash('order', 'beta', 'alpha')).code).toBe(0);
    expect((await dash('projects')).out).toBe('beta\tBeta\t-\nalpha\tAlpha app\t-');
    expect(JSON.parse((await dash('settings')).out)).toMatchObject({ projectOrder: ['beta', 'alpha'] });
  });

  it("prints the server's validation message and exits 1 on bad input", async () => {
    const result = await dash('project:add', 'Bad Slug!', 'x');
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^error: Invalid input: slug: Use lowercase letters/);
  });

  it('reports a missing project as the server says it', async () => {
    expect(await dash('project:rm', 'ghost')).toEqual({ code: 1, out: 'error: No project with the slug "ghost"' });
  });
});
