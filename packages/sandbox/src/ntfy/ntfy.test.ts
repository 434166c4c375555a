import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../sandbox.ts';

// The fake ntfy server, held to the requests its publishing reference prints (shared/upstream-specs/ntfy.publish.md;
// each test names the section its request is copied from, host ntfy.sh replaced by the fake's origin).

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const origin = () => sandbox.services.ntfy.url;
const publish = (path: string, init: RequestInit) => fetch(`${origin()}${path}`, { method: 'POST', ...init });

describe('the fake ntfy server (publishing)', () => {
  it('publishes a message with a title, priority and tags in headers ("Publishing", its second example)', async () => {
    const answer = await publish('/phil_alerts', {
      headers: { Title: 'Unauthorized access detected', Priority: 'urgent', Tags: 'warning,skull' },
      body: 'Remote access to phils-laptop detected. Act right away.',
    });
    expect(answer.status).toBe(200);
    const message = (await answer.json()) as Record<string, unknown>;
    expect(message).toMatchObject({
      event: 'message',
      topic: 'phil_alerts',
      message: 'Remote access to phils-laptop detected. Act right away.',
      title: 'Unauthorized access detected',
      priority: 5,
      tags: ['warning', 'skull'],
    });
    expect(message.id).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(message.expires).toBe((message.time as number) + 12 * 3600);
    expect(sandbox.ntfyMessages('phil_alerts')).toEqual([message]);
  });

  it('takes PUT as POST, every alias of a parameter, a click URL, Markdown and header actions', async () => {
    const answer = await publish('/mytopic', {
      method: 'PUT',
      headers: { 'X-Title': 'Deploy failed', p: '4', 'X-Click': 'https://example.com/thread/1', md: 'yes', Actions: 'view, Open thread, https://example.com/thread/1' },
      body: '**formfox** build 12 failed',
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      title: 'Deploy failed',
      priority: 4,
      click: 'https://example.com/thread/1',
      content_type: 'text/markdown',
      actions: [{ action: 'view', label: 'Open thread', url: 'https://example.com/thread/1' }],
    });
    // "Message priority": 1-5 or min/low/default/high/max/urgent; anything else is ntfy's 40007.
    const bad = await publish('/mytopic', { headers: { Priority: 'loud' }, body: 'x' });
    expect([bad.status, await bad.json()]).toEqual([
      400,
      { code: 40007, http: 400, error: 'invalid priority parameter', link: 'https://ntfy.sh/docs/publish/#message-priority' },
    ]);
  });

  it('publishes the JSON body "Publish as JSON" prints, to the root and not to a topic', async () => {
    const answer = await publish('/', {
      body: JSON.stringify({
        topic: 'mytopic',
        message: 'Disk space is low at 5.1 GB',
        title: 'Low disk space alert',
        tags: ['warning', 'cd'],
        priority: 4,
        click: 'https://homecamera.lan/xasds1h2xsSsa/',
        actions: [{ action: 'view', label: 'Admin panel', url: 'https://filesrv.lan/admin' }],
      }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ topic: 'mytopic', title: 'Low disk space alert', priority: 4, tags: ['warning', 'cd'], click: 'https://homecamera.lan/xasds1h2xsSsa/' });
    // "`message` … set to `triggered` if empty or not passed"; a body without a topic is not message JSON.
    expect(await (await publish('/', { body: JSON.stringify({ topic: 'mytopic' }) })).json()).toMatchObject({ message: 'triggered' });
    const noTopic = await publish('/', { body: JSON.stringify({ message: 'x' }) });
    expect([noTopic.status, ((await noTopic.json()) as { code: number }).code]).toEqual([400, 40017]);
    const priority = await publish('/', { body: JSON.stringify({ topic: 'mytopic', priority: 'high' }) });
    expect(((await priority.json()) as { code: number }).code).toBe(40007);
  });

  it('asks a protected topic for a token or user and password ("Authentication"), answering 403 without and 401 when wrong', async () => {
    const { token } = sandbox.protectNtfyTopic('mysecrets') as { token: string };
    sandbox.protectNtfyTopic('mysecrets', { user: 'testuser', password: 'fakepassword' });
    const body = 'Look ma, with auth';
    const none = await publish('/mysecrets', { body });
    expect([none.status, await none.json()]).toEqual([403, { code: 40301, http: 403, error: 'forbidden', link: 'https://ntfy.sh/docs/publish/#authentication' }]);
    const wrong = await publish('/mysecrets', { headers: { Authorization: 'Bearer tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2' }, body });
    expect([wrong.status, ((await wrong.json()) as { code: number }).code]).toEqual([401, 40101]);
    expect(token).toMatch(/^tk_[A-Za-z0-9]{29}$/);
    expect((await publish('/mysecrets', { headers: { Authorization: `Bearer ${token}` }, body })).status).toBe(200);
    // The reference's own Basic example: testuser:fakepassword.
    expect((await publish('/mysecrets', { headers: { Authorization: 'Basic dGVzdHVzZXI6ZmFrZXBhc3N3b3Jk' }, body })).status).toBe(200);
    // "Query param": ?auth= is the base64 of the whole header (its example is the same Basic credential).
    expect((await publish('/mysecrets?auth=QmFzaWMgZEdWemRIVnpaWEk2Wm1GclpYQmhjM04zYjNKaw', { body })).status).toBe(200);
    expect(sandbox.ntfyMessages('mysecrets')).toHaveLength(3);
    expect((await publish('/open_topic', { body })).status).toBe(200);
  });

  it('refuses a message over 4,096 bytes with 413 ("Limitations"), recording nothing', async () => {
    const big = await publish('/mytopic', { body: 'x'.repeat(4097) });
    expect([big.status, ((await big.json()) as { code: number }).code]).toEqual([413, 41301]);
    expect((await publish('/mytopic', { body: 'x'.repeat(4096) })).status).toBe(200);
    expect(sandbox.ntfyMessages('mytopic').map((m) => m.message.length)).toEqual([4096]);
  });

  it('answers over its request bucket with 429 and code 42901 ("Limitations": 60 requests at once)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await publish('/mytopic', { body: `message ${i}` })).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    const limited = await publish('/mytopic', { body: 'one more' });
    expect([limited.status, await limited.json()]).toEqual([
      429,
      { code: 42901, http: 429, error: 'limit reached: too many requests, please be nice', link: 'https://ntfy.sh/docs/publish/#limitations' },
    ]);
    expect(statuses[60]).toBe(429);
  });
});
