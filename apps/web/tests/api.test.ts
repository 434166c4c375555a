import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type RunningDashboard } from './server.ts';

let dashboard: RunningDashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const post = (path: string, body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(dashboard.url + path, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

describe('the built server over a real socket', () => {
  it('answers the REST paths and their errors as JSON', async () => {
    const bad = await post('/api/settings', '{"projectOrder":');
    expect([bad.status, bad.headers.get('content-type')]).toEqual([400, 'application/json; charset=utf-8']);
    expect(await bad.json()).toMatchObject({ error: { code: 'BAD_REQUEST' } });

    const unknown = await fetch(`${dashboard.url}/api/does-not-exist`);
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: { code: 'NOT_FOUND', message: 'No route for GET /api/does-not-exist' } }]);

    const wrongMethod = await fetch(`${dashboard.url}/api/projects`, { method: 'DELETE' });
    expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'GET, POST']);
  });

  // A declared oversize length is refused before reading (tested on the dispatcher); over a socket the
  // client may still be writing when the 413 and the close arrive, so only the streamed case is here.
  it('refuses a streamed body over the limit with 413 after reading only about the limit', async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        if (sent > 32 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const streamed = await post('/api/settings', endless);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('serves the same procedures over tRPC, with the validation issues in the error data', async () => {
    const created = await post('/api/trpc/projects.create', JSON.stringify({ slug: 'Nope!', name: 'x' }));
    expect(created.status).toBe(400);
    const body = (await created.json()) as { error: { message: string; data: { issues: { path: string[] }[] } } };
    expect(body.error.message).toMatch(/^Invalid input: slug:/);
    expect(body.error.data.issues[0]?.path).toEqual(['slug']);
  });
});
