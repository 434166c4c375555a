// What the security tests in a real Chromium share (security-foreign-sites, security-csp and security-sign-in):
// the owner's password and setting it as a first password.
import { expect } from 'vitest';
import type { RunningDashboard } from './server.ts';

export const PASSWORD = 'correct horse battery staple';

/** Sets the first password of a local dashboard as its settings page does (a form action, from its own origin). */
export async function setPassword(dashboard: RunningDashboard, password: string) {
  const response = await dashboard.fetch('/settings/security?/password', {
    method: 'POST',
    body: new URLSearchParams({ newPassword: password, confirm: password }),
    headers: { accept: 'text/html' },
  });
  expect(response.status).toBe(200);
  expect((await fetch(`${dashboard.url}/api/settings`)).status).toBe(401);
}
