import { describe, expect, it } from 'vitest';
import { precacheList, routeOf, type SeenRequest } from './app-cache';

const origin = 'https://dash.example.com';
const precached = new Set(['/_app/immutable/entry/app.js', '/offline.html', '/icons/icon-192.png']);
const get = (path: string, more: Partial<SeenRequest> = {}): SeenRequest => ({ method: 'GET', url: `${origin}${path}`, mode: 'cors', accept: '*/*', ...more });
const navigate = (path: string, more: Partial<SeenRequest> = {}) => get(path, { mode: 'navigate', accept: 'text/html', ...more });

describe("the service worker's routes", () => {
  it('answers only GET navigations to pages and the precached files', () => {
    expect(routeOf(navigate('/'), origin, precached)).toBe('page');
    expect(routeOf(navigate('/settings?tab=security'), origin, precached)).toBe('page');
    expect(routeOf(get('/_app/immutable/entry/app.js'), origin, precached)).toBe('precache');
    expect(routeOf(get('/offline.html'), origin, precached)).toBe('precache');
  });

  it('leaves the API, tRPC, the live stream, every change and other origins to the browser', () => {
    const untouched: SeenRequest[] = [
      get('/api/revenue?project=a'),
      get('/api/trpc/notifications.stream?input=%7B%7D', { accept: 'text/event-stream' }),
      get('/api/notifications/stream', { accept: 'text/event-stream' }),
      navigate('/api/docs'),
      navigate('/api/auth/google/callback?code=x&state=y'),
      get('/__data.json?x-sveltekit-invalidated=01'),
      get('/settings/__data.json'),
      { method: 'POST', url: `${origin}/logout`, mode: 'navigate', accept: 'text/html' },
      { method: 'POST', url: `${origin}/api/trpc/sessions.removeAll`, mode: 'cors', accept: '*/*' },
      { method: 'HEAD', url: `${origin}/`, mode: 'cors', accept: '*/*' },
      navigate('/', { url: 'https://elsewhere.example/' }),
      get('/_app/immutable/entry/app.js', { url: 'https://cdn.example/_app/immutable/entry/app.js' }),
      get('/_app/immutable/entry/old-version.js'),
      get('/_app/immutable/entry/app.js?v=2'),
      get('/', { accept: 'text/event-stream' }),
    ];
    for (const request of untouched) expect(routeOf(request, origin, precached), `${request.method} ${request.url}`).toBeUndefined();
  });

  it("precaches the build and the static files but the API reference's bundle", () => {
    const build = ['/_app/immutable/entry/app.D7.js', '/_app/immutable/assets/0.Du.css', '/_app/immutable/assets/standalone.CML_gEai.js'];
    expect(precacheList(build, ['/favicon.svg', '/offline.html'])).toEqual(['/_app/immutable/entry/app.D7.js', '/_app/immutable/assets/0.Du.css', '/favicon.svg', '/offline.html']);
  });
});
