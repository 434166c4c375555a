import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testClock } from '@dash/connectors/testing';
import { sandboxEmail, sandboxTokens, sendgridError, startSandbox, type Sandbox } from '@dash/sandbox';
import { createTestApi, restClient } from '../testing.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;

let sandbox: Sandbox;
let api: Api | undefined;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
afterEach(async () => {
  await api?.dispose();
  api = undefined;
});

/** A dashboard whose email variables point at the fake SendGrid (or are left out). */
async function dashboard(email: Record<string, string> | 'none' = {}) {
  const env =
    email === 'none'
      ? {}
      : {
          SENDGRID_API_KEY: sandboxTokens.sendgrid,
          ALERT_EMAIL_FROM: sandboxEmail.from,
          ALERT_EMAIL_TO: 'founder@example.com, cofounder@example.com',
          SENDGRID_API_URL: sandbox.services.sendgrid.url,
          ...email,
        };
  api = await createTestApi({ clock: testClock(), email: env });
  return { api, rest: restClient(() => (api as Api).caller) };
}

const hostile = '<img src=x onerror="alert(1)">';

describe('POST /api/alerts/send', () => {
  it('answers { configured: false } when email is not set up, and says what is missing', async () => {
    const { rest } = await dashboard('none');
    const answer = await rest('POST', '/api/alerts/send', { type: 'health', monitors: [{ name: 'API', status: 'down', url: 'https://api.example.com' }] });
    expect([answer.status, answer.json]).toEqual([200, { configured: false }]);
    expect((await rest('GET', '/api/alerts')).json).toMatchObject({ configured: false, source: null, missing: ['SENDGRID_API_KEY', 'ALERT_EMAIL_FROM', 'ALERT_EMAIL_TO'] });

    const partly = await dashboard({ ALERT_EMAIL_TO: '' });
    expect((await partly.rest('GET', '/api/alerts')).json).toMatchObject({ configured: false, source: 'env', missing: ['ALERT_EMAIL_TO'] });
    expect(sandbox.mails()).toHaveLength(0);
  });

  it('writes the health alert itself: a subject saying what is down, every value escaped, links only for http(s)', async () => {
    const { rest } = await dashboard();
    const answer = await rest('POST', '/api/alerts/send', {
      type: 'health',
      monitors: [
        { name: 'api.formfox.app', status: 'down', url: 'https://api.formfox.app/health?a=1&b=2' },
        { name: hostile, status: 'up', url: 'javascript:alert(document.cookie)' },
      ],
    });
    expect(answer.status).toBe(200);
    const [mail] = sandbox.mails();
    expect(answer.json).toEqual({ sent: true, id: mail?.messageId });
    expect(mail).toMatchObject({ from: sandboxEmail.from, to: ['founder@example.com', 'cofounder@example.com'], subject: '[DOWN] api.formfox.app' });
    // The hostile name arrives as text, in the HTML and in the plain part.
    expect(mail?.html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(mail?.html).not.toContain('<img');
    expect(mail?.html).toContain('<a href="https://api.formfox.app/health?a=1&amp;b=2">');
    expect(mail?.html).not.toMatch(/href="javascript:/);
    expect(mail?.html).toContain('javascript:alert(document.cookie)');
    expect(mail?.text).toContain(`UP        ${hostile}`);
    expect(mail?.text).toContain('DOWN      api.formfox.app  https://api.formfox.app/health?a=1&b=2');
    expect(mail?.text).toMatch(/^1 of 2 monitors is not up\./);
  });

  it('counts monitors in the subject when several are down', async () => {
    const { rest } = await dashboard();
    await rest('POST', '/api/alerts/send', {
      type: 'health',
      monitors: [
        { name: 'API', status: 'down', url: '' },
        { name: 'Web', status: 'down', url: '' },
        { name: 'Docs', status: 'degraded', url: '' },
      ],
    });
    expect(sandbox.mails()[0]?.subject).toBe('[DOWN] 3 monitors');
  });

  it('sends a custom email as given, with a plain-text part made from it', async () => {
    const { rest } = await dashboard();
    const html = '<h1>Weekly numbers</h1><p>MRR <b>$4,561</b> — see <a href="https://dash.example.com">the dashboard</a>.</p><ul><li>One</li><li>Two</li></ul>';
    const answer = await rest('POST', '/api/alerts/send', { type: 'custom', subject: 'Weekly numbers', html });
    expect(answer.json).toMatchObject({ sent: true });
    const [mail] = sandbox.mails();
    expect(mail).toMatchObject({ subject: 'Weekly numbers' });
    // What the sanitizer keeps, as it was (every element here is on its allow-list), and the footer.
    expect(mail?.html).toContain(html.replace('<a href="https://dash.example.com">', '<a href="https://dash.example.com" rel="noopener noreferrer">'));
    expect(mail?.text).toContain('WEEKLY NUMBERS');
    expect(mail?.text).toContain('MRR $4,561 — see the dashboard [https://dash.example.com].');
    expect(mail?.text).toContain(' * One');
  });

  it('refuses bad input with 400 and the zod issues, sending nothing', async () => {
    const { rest } = await dashboard();
    for (const [body, path] of [
      [{ type: 'sms' }, 'type'],
      [{ type: 'health', monitors: [] }, 'monitors'],
      [{ type: 'health', monitors: [{ name: '', status: 'down', url: '' }] }, 'monitors.0.name'],
      [{ type: 'custom', subject: 'Line one\nBcc: someone@example.com', html: '<p>x</p>' }, 'subject'],
      [{ type: 'custom', subject: 'No body' }, 'html'],
    ] as const) {
      const answer = await rest('POST', '/api/alerts/send', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      const issues = (answer.json as { error: { issues: { path: (string | number)[] }[] } }).error.issues;
      expect(issues.map((issue) => issue.path.join('.'))).toContain(path);
    }
    expect(sandbox.mails()).toHaveLength(0);
  });

  it("answers 502 with SendGrid's own reason when it refuses, never the key", async () => {
    const unverified = await dashboard({ ALERT_EMAIL_FROM: 'someone@unverified.example' });
    const answer = await unverified.rest('POST', '/api/alerts/send', { type: 'custom', subject: 'Hi', html: '<p>Hi</p>' });
    expect(answer.status).toBe(502);
    expect(answer.json).toMatchObject({
      error: { code: 'BAD_GATEWAY', message: expect.stringContaining('SendGrid refused the email (403): The from address does not match a verified Sender Identity') as string },
    });
    // A 4xx is not tried again.
    expect(sandbox.requestsTo('sendgrid', '/v3/mail/send')).toHaveLength(1);
    await api?.dispose();

    const wrongKey = await dashboard({ SENDGRID_API_KEY: 'SG.wrong-key-that-must-not-leak' });
    const refused = await wrongKey.rest('POST', '/api/alerts/send', { type: 'custom', subject: 'Hi', html: '<p>Hi</p>' });
    expect(refused.status).toBe(502);
    expect(refused.text).toContain('SendGrid refused the email (401): The provided authorization grant is invalid, expired, or revoked');
    expect(refused.text).not.toContain('wrong-key-that-must-not-leak');
    expect(wrongKey.api.log.lines.join('\n')).not.toContain('wrong-key-that-must-not-leak');
    expect(sandbox.mails()).toHaveLength(0);
  });

  it('tries 429 and 5xx again with back-off, and gives up with the reason after three attempts', async () => {
    const { rest } = await dashboard();
    // SendGrid's 429 says when its limit resets (an epoch in seconds): a second from now is worth waiting for.
    sandbox.inject('sendgrid', { ...sendgridError(429, 'too many requests'), headers: { 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) }, times: 1 });
    sandbox.inject('sendgrid', { ...sendgridError(503, 'Service Unavailable'), times: 1 });
    const answer = await rest('POST', '/api/alerts/send', { type: 'custom', subject: 'Hi', html: '<p>Hi</p>' });
    expect(answer.json).toMatchObject({ sent: true });
    expect(sandbox.requestsTo('sendgrid', '/v3/mail/send').map((request) => request.status)).toEqual([429, 503, 202]);

    sandbox.reset();
    sandbox.inject('sendgrid', { ...sendgridError(500, 'Internal Server Error') });
    const failed = await rest('POST', '/api/alerts/send', { type: 'custom', subject: 'Hi', html: '<p>Hi</p>' });
    expect([failed.status, (failed.json as { error: { message: string } }).error.message]).toEqual([502, 'SendGrid refused the email (500): Internal Server Error']);
    expect(sandbox.requestsTo('sendgrid', '/v3/mail/send')).toHaveLength(3);
  });

  it('uses a SendGrid credential saved in settings when no variable is set; the variables win over it', async () => {
    const { api: dash, rest } = await dashboard('none');
    await dash.caller.credentials.save({
      key: 'sendgrid',
      values: { apiKey: sandboxTokens.sendgrid, from: sandboxEmail.from, to: 'me@example.com', baseUrl: sandbox.services.sendgrid.url },
    });
    expect((await rest('GET', '/api/alerts')).json).toEqual({
      configured: true,
      source: 'credential',
      credentialKey: 'sendgrid',
      from: sandboxEmail.from,
      to: ['me@example.com'],
      missing: [],
    });
    // The credential test proves the key without sending anything.
    expect(await dash.caller.credentials.test({ key: 'sendgrid' })).toEqual({ ok: true });
    expect(sandbox.mails()).toHaveLength(0);
    // Settings' test email.
    expect(await dash.caller.alerts.test()).toMatchObject({ sent: true });
    expect(sandbox.mails()[0]).toMatchObject({ to: ['me@example.com'], subject: 'Test email from your founder dashboard' });
    expect(JSON.stringify(await rest('GET', '/api/alerts'))).not.toContain(sandboxTokens.sendgrid);
  });
});
