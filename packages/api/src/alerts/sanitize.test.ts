import { describe, expect, it } from 'vitest';
import { customEmail } from './render.ts';
import { sanitizeEmailHtml } from './sanitize.ts';

describe("a custom email's HTML", () => {
  it('loses scripts, handlers, forms, frames, objects, images and javascript: links, and keeps links, tables and formatting', () => {
    const dirty = [
      '<html><head><title>Ignored</title><style>body{background:url(https://track.example/s.gif)}</style></head><body>',
      '<script>alert(1)</script><h2 onclick="steal()">Weekly <b>numbers</b></h2>',
      '<p style="color:#c62828;background-image:url(https://track.example/p.gif);font-weight:bold">MRR $4,561</p>',
      '<img src="https://track.example/pixel.gif" width="1" height="1"><img src=x onerror="alert(1)"><img src="data:image/png;base64,iVBORw0KGgo=">',
      '<form action="https://phish.example/login"><input name="password" type="password"><button>Sign in</button></form>',
      '<iframe src="https://evil.example"></iframe><object data="https://evil.example/x.swf"></object><embed src="x.swf">',
      '<a href="javascript:alert(document.cookie)">click</a> <a href="//evil.example">relative</a> ',
      '<a href="https://dash.example.com/revenue?a=1&amp;b=2" onmouseover="x()">the dashboard</a> <a href="mailto:founder@example.com">write</a>',
      '<table style="border-collapse:collapse"><tr><th>Plan</th><th>Customers</th></tr><tr><td colspan="1" style="padding:4px 12px">Pro</td><td>42</td></tr></table>',
      '<ul><li>One</li></ul><blockquote>quoted</blockquote><pre><code>x = 1</code></pre>',
      '</body></html>',
    ].join('');
    const clean = sanitizeEmailHtml(dirty);
    for (const gone of ['<script', 'alert(', 'onclick', 'onerror', 'onmouseover', '<img', 'track.example', '<form', '<input', 'phish.example', '<iframe', '<object', '<embed', 'evil.example', 'javascript:', '<style', 'url(', 'Ignored', '<html', '<head', '<body']) {
      expect(clean, gone).not.toContain(gone);
    }
    expect(clean).toContain('<h2>Weekly <b>numbers</b></h2>');
    expect(clean).toContain('<p style="color:#c62828;font-weight:bold">MRR $4,561</p>');
    expect(clean).toContain('<a href="https://dash.example.com/revenue?a=1&amp;b=2" rel="noopener noreferrer">the dashboard</a>');
    expect(clean).toContain('<a href="mailto:founder@example.com" rel="noopener noreferrer">write</a>');
    // A refused link keeps its text, not its target.
    expect(clean).toContain('<a rel="noopener noreferrer">click</a>');
    expect(clean).toContain(
      '<table style="border-collapse:collapse"><tr><th>Plan</th><th>Customers</th></tr><tr><td colspan="1" style="padding:4px 12px">Pro</td><td>42</td></tr></table>',
    );
    expect(clean).toContain('<ul><li>One</li></ul><blockquote>quoted</blockquote><pre><code>x = 1</code></pre>');
    // The button's text stays as text; the form it was in does not.
    expect(clean).toContain('Sign in');
  });

  it('makes the plain-text part from what was kept, not from what was sent', () => {
    const email = customEmail('Hi', '<p>Visible</p><script>var secret = 1</script><a href="javascript:x()">bad</a><img alt="pixel" src="https://track.example/p.gif">');
    expect(email.text).toBe('Visible\n\nbad');
    expect(email.html).toBe('<p>Visible</p><a rel="noopener noreferrer">bad</a>');
  });

  it("names the token that sent it in the footer of both parts, the name escaped and on one line", () => {
    const name = 'cron <script>alert(1)</script>\nBcc: "x"';
    const email = customEmail('Hi', '<p>Hello</p>', { via: 'token', name });
    expect(email.html).toBe(
      '<p>Hello</p><p style="color:#777;font-size:12px">Sent through your founder dashboard&#39;s API by the token “cron &lt;script&gt;alert(1)&lt;/script&gt; Bcc: &quot;x&quot;”.</p>',
    );
    expect(email.text).toBe('Hello\n\nSent through your founder dashboard\'s API by the token “cron <script>alert(1)</script> Bcc: "x"”.');
    expect(customEmail('Hi', '<p>Hello</p>', { via: 'session' }).text).toMatch(/by its owner, signed in\.$/);
    expect(customEmail('Hi', '<p>Hello</p>', { via: 'open' }).text).toMatch(/from the local dashboard, which has no password\.$/);
  });
});
