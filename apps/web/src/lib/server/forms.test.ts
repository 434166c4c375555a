import { describe, expect, it } from 'vitest';
import { safeNext } from './forms.ts';

const ORIGIN = 'https://dash.example.com';

describe('where a sign-in goes next', () => {
  it('keeps a path on this dashboard, with its query and fragment', () => {
    const kept: [string, string][] = [
      ['/settings', '/settings'],
      ['/settings?x=1', '/settings?x=1'],
      ['/?project=a#revenue', '/?project=a#revenue'],
      ['/api/settings', '/api/settings'],
      [`${ORIGIN}/settings`, '/settings'],
      ['/a/../settings', '/settings'],
      // Spaces and non-ASCII come back percent-encoded by the parser, still paths here.
      ['/ /evil.example', '/%20/evil.example'],
      ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ];
    for (const [next, expected] of kept) expect([next, safeNext(next, ORIGIN)]).toEqual([next, expected]);
  });

  it('refuses every known way off the dashboard, falling back to /', () => {
    const bypasses = [
      '//evil.example',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      '/%09/evil.example',
      '/%5Cevil.example',
      '/%5cevil.example',
      '/\n/evil.example',
      '/%0a/evil.example',
      '/%0D%0A/evil.example',
      '/\r\n/evil.example',
      '/%00/evil.example',
      '/\u0000/evil.example',
      '/\u007f/evil.example',
      '/\u0085/evil.example',
      ' //evil.example',
      '\t//evil.example',
      '/.//evil.example',
      '/a/..//evil.example',
      '/%2e//evil.example',
      '/%2E%2E//evil.example',
      '/a/.%2e//evil.example',
      'https://evil.example',
      'https://evil.example/settings',
      'http://dash.example.com/settings',
      'https://dash.example.com.evil.example/',
      'https://dash.example.com@evil.example/',
      'https://user:pass@dash.example.com/settings',
      '//dash.example.com@evil.example',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'mailto:someone@evil.example',
      `/${'a'.repeat(3000)}`,
    ];
    for (const next of bypasses) expect([next, safeNext(next, ORIGIN)]).toEqual([next, '/']);
  });

  it('never sends a signed-in visitor back to the sign-in pages, nor anywhere without a next', () => {
    for (const next of ['/login', '/login?next=/settings', '/logout', '/setup?token=x', '', null, undefined]) expect(safeNext(next, ORIGIN)).toBe('/');
  });

  it('resolves against a plain-http local origin the same way', () => {
    expect(safeNext('/settings?x=1', 'http://127.0.0.1:3000')).toBe('/settings?x=1');
    expect(safeNext('//127.0.0.1:3001/', 'http://127.0.0.1:3000')).toBe('/');
    expect(safeNext('/%09/evil.example', 'http://127.0.0.1:3000')).toBe('/');
  });
});
