import { describe, expect, it } from 'vitest';
import { inboxDashboards } from './notifications-testing.ts';

// webhooks.receive's input: what the inbox refuses before storing anything.

const { dashboard } = inboxDashboards();

describe('webhooks.receive input', () => {
  it('refuses a body that is not base64 and an over-long integration name, storing nothing', async () => {
    const dash = await dashboard();
    await expect(dash.caller.webhooks.receive({ integration: 'code_host', body: '{"not":"base64"}', headers: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(dash.caller.webhooks.receive({ integration: 'x'.repeat(41), body: '', headers: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await dash.unread()).toBe(0);
  });
});
