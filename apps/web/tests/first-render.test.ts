// The first render carries the widgets' data (issue 41), against the built dashboard and the demo's three products on a
// sandbox of this file's own (so its faults can be injected). Over HTTP: a warm page's HTML holds every widget's
// figures, and a slow upstream's widget streams in after the rest without holding them. In Chromium: hydration asks
// nothing again for what the HTML held, and a slow upstream, an error and a stale answer each show in their widget only.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { demoSetup, demoUpstreamsOf, startSandbox, type Sandbox } from '@dash/sandbox';
import { gotoHydrated } from './browser.ts';
import { dashboardForFile } from './fixture.ts';

let sandbox: Sandbox;
let setup: ReturnType<typeof demoSetup>;
const suite = dashboardForFile();

/** How long the slow upstream takes: far longer than a page's cached reads, even on a busy machine. */
const LATENCY_MS = 4_000;

const send = async (method: string, path: string, body: unknown) => {
  const answer = await suite.dashboard.fetch(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(answer.status, `${method} ${path}: ${await answer.clone().text()}`).toBeLessThan(300);
};
const json = async (path: string) => (await (await suite.dashboard.fetch(path)).json()) as Record<string, unknown>;

beforeAll(async () => {
  sandbox = await startSandbox();
  setup = demoSetup(demoUpstreamsOf(sandbox));
  for (const credential of setup.credentials) await send('POST', '/api/credentials', credential);
  for (const { slug, name, color, integrations } of setup.projects) await send('POST', '/api/projects', { slug, name, color, integrations });
});
afterAll(() => sandbox?.close());
afterEach(() => sandbox.services.betterstack.harness.clearFaults());

/** A page as a browser receives it: the HTML up to the end of <main> (what paints first) and when it had come, and the whole response and when it ended. */
async function receive(path: string) {
  const started = performance.now();
  // Not dashboard.fetch: it reads a whole answer (to hold /api ones to the document) before handing it over.
  const response = await fetch(suite.dashboard.url + path, { headers: { accept: 'text/html' } });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let whole = '';
  let mainAt: number | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    whole += decoder.decode(value, { stream: true });
    if (mainAt === undefined && whole.includes('</main>')) mainAt = performance.now() - started;
  }
  return { html: whole.slice(0, whole.indexOf('</main>')), whole, mainAt: mainAt ?? Infinity, endedAt: performance.now() - started };
}

/** Each widget card of a page's HTML: its opening tag and its markup up to the next card. */
function cards(html: string): Record<string, { tag: string; markup: string }> {
  const opening = [...html.matchAll(/<section id="widget-(\w+)"[^>]*>/g)];
  return Object.fromEntries(opening.map((match, i) => [match[1]!, { tag: match[0], markup: html.slice(match.index, opening[i + 1]?.index ?? html.length) }]));
}

/** Text as Svelte writes it into HTML. */
const asHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

/** For each widget, a figure from its route's answer (asked as the widget asks) that its card must show. */
async function figures(project: string | undefined, fundingSlug?: string): Promise<Record<string, string>> {
  const of = project ? `project=${project}&` : '';
  const [revenue, shipping, ideas, errors, health, storefront, analytics, seo, funding] = await Promise.all([
    json(`/api/revenue?${of}range=7d`),
    json(`/api/shipping?${of}`),
    json(`/api/ideas?${of}`),
    json(`/api/errortracker?${of}`),
    json(`/api/health?${of}`),
    json(`/api/storefront?${of}`),
    json(`/api/analytics?${of}range=30d`),
    json(`/api/seo?${of}`),
    json(`/api/funding${fundingSlug ? `?slug=${fundingSlug}` : ''}`),
  ]);
  type Named = { title: string; name: string; path: string; query: string; description: string };
  const first = (list: unknown) => (list as Named[])[0]!;
  return {
    // As the widget writes a count.
    revenue: new Intl.NumberFormat('en-US').format((revenue as { activeSubscribers: number }).activeSubscribers),
    shipping: first(shipping.items).title,
    ideas: first(ideas.items).title,
    errortracker: first(errors.issues).title,
    health: first(health.monitors).name,
    storefront: (storefront as { app: { name: string } }).app.name,
    analytics: first(analytics.topPages).path,
    seo: first(seo.queries).query,
    funding: first(funding.transactions).description,
  };
}

describe('the first render over HTTP', () => {
  it('holds every cached widget’s figures in the HTML of All projects and of a project, with nothing left to stream', async () => {
    for (const [path, project, fundingSlug] of [
      ['/', undefined, undefined],
      ['/?project=tideline', 'tideline', 'tideline-oss'],
    ] as const) {
      // The first visit fills the cache (its parts came streamed); the next one is read from it.
      await receive(path);
      const { html, whole } = await receive(path);
      const shown = cards(html);
      expect(Object.keys(shown).sort(), path).toEqual(['analytics', 'errortracker', 'funding', 'health', 'ideas', 'revenue', 'seo', 'shipping', 'storefront']);
      const expected = await figures(project, fundingSlug);
      for (const [widget, { tag, markup }] of Object.entries(shown)) {
        expect(tag, `${path} ${widget}`).toContain('aria-busy="false"');
        expect(markup, `${path} ${widget}`).not.toContain('class="skeleton');
        expect(markup, `${path} ${widget}`).toContain(asHtml(expected[widget]!));
      }
      // No part of the answer came after the HTML.
      expect(whole.slice(whole.indexOf('</main>')), path).not.toMatch(/\.resolve\(/);
    }
  });

  it('streams a slow upstream’s widget after the rest, which come at once', async () => {
    // Formfox's uptime asked for another order of its monitors: a cache key never read, so only Better Stack has it.
    const { integrations } = setup.projects.find((p) => p.slug === 'formfox')!;
    const monitorIds = (integrations.uptime_monitor as { monitorIds: string[] }).monitorIds;
    await receive('/?project=formfox');
    await send('PATCH', '/api/projects/formfox', { integrations: { uptime_monitor: { ...(integrations.uptime_monitor as object), monitorIds: [...monitorIds].reverse() } } });
    sandbox.inject('betterstack', { latencyMs: LATENCY_MS });
    const { html, whole, mainAt, endedAt } = await receive('/?project=formfox');
    expect(mainAt).toBeLessThan(LATENCY_MS);
    expect(endedAt).toBeGreaterThanOrEqual(LATENCY_MS);
    const shown = cards(html);
    expect(shown.health?.tag).toContain('aria-busy="true"');
    expect(shown.health?.markup).toContain('class="skeleton');
    for (const [widget, { tag }] of Object.entries(shown)) if (widget !== 'health') expect(tag, widget).toContain('aria-busy="false"');
    // Its part came in the same response, after the HTML.
    const [monitor] = (await json('/api/health?project=formfox')).monitors as { name: string }[];
    expect(whole.slice(whole.indexOf('</main>'))).toContain(JSON.stringify(monitor!.name).slice(1, -1));
  });
});

/**
 * A page opened in Chromium, counting the widgets' data requests (tRPC batches them to /api/trpc/data.*), noting any
 * skeleton ever shown, and its uncaught and console errors (the server's HTML must not carry what the CSP refuses).
 */
async function open(path: string, options: { hydrated?: boolean } = {}) {
  const page = await suite.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    // The demo's avatars are on images.opencollective.com, which this machine does not reach.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(`console: ${message.text()}`);
  });
  const dataRequests: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/trpc/data.')) dataRequests.push(decodeURIComponent(pathname));
  });
  await page.addInitScript(() => {
    const seen = (window as unknown as { skeletons: string[] }).skeletons = [] as string[];
    const look = () => {
      for (const card of document.querySelectorAll('[data-widget]')) {
        const name = card.getAttribute('data-widget')!;
        if (card.querySelector('.skeleton') && !seen.includes(name)) seen.push(name);
      }
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true });
  });
  const response = options.hydrated === false ? await page.goto(suite.dashboard.url + path, { waitUntil: 'commit' }) : await gotoHydrated(page, suite.dashboard.url + path);
  /** The widgets whose card the page's own HTML sent busy (their part streamed after it): the only skeletons allowed. */
  const streamed = async () => {
    const html = (await response?.text()) ?? '';
    return Object.entries(cards(html.slice(0, html.indexOf('</main>')))).flatMap(([name, { tag }]) => (tag.includes('aria-busy="true"') ? [name] : []));
  };
  return { page, dataRequests, errors, streamed, skeletons: () => page.evaluate(() => (window as unknown as { skeletons: string[] }).skeletons) };
}

const widget = (page: Page, name: string) => page.locator(`[data-widget="${name}"]`);

describe('the first render in Chromium', () => {
  it('asks nothing again on hydration for what the HTML held, shows no skeleton, and a widget’s own switch still asks', async () => {
    for (const path of ['/', '/?project=tideline']) {
      await receive(path);
      const { page, dataRequests, errors, skeletons, streamed } = await open(path);
      await page.waitForLoadState('networkidle');
      expect(errors, path).toEqual([]);
      expect(dataRequests, path).toEqual([]);
      // A skeleton only where the HTML itself sent one: a part whose cache entry ran out between the warm-up and this
      // visit (live visitors keep 15 s, which a busy machine can spend) streams with the page, as it should. Hydration
      // adds none, and the page was warm enough for most of its widgets to come in the HTML.
      const sent = await streamed();
      expect((await skeletons()).sort(), path).toEqual([...sent].sort());
      expect(sent.length, `${path}: streamed ${sent.join(', ')}`).toBeLessThanOrEqual(1);
      expect(await page.locator('[data-widget][aria-busy="false"]').count(), path).toBe(9);
      // A range asked in the page goes to the procedures as before.
      const mrr = await widget(page, 'revenue').locator('[data-figure="gross"]').innerText();
      await widget(page, 'revenue').getByLabel('Range').selectOption('1y');
      await expect.poll(() => widget(page, 'revenue').locator('[data-figure="gross"]').innerText(), { timeout: 20_000 }).not.toBe(mrr);
      expect(dataRequests, path).toEqual(['/api/trpc/data.revenue']);
      await page.close();
    }
  });

  it('shows a slow upstream’s skeleton in its widget only, until its part arrives with the page', async () => {
    const { integrations } = setup.projects.find((p) => p.slug === 'formfox')!;
    const monitorIds = (integrations.uptime_monitor as { monitorIds: string[] }).monitorIds;
    await receive('/?project=formfox');
    await send('PATCH', '/api/projects/formfox', { integrations: { uptime_monitor: { ...(integrations.uptime_monitor as object), monitorIds: monitorIds.slice(1) } } });
    sandbox.inject('betterstack', { latencyMs: LATENCY_MS });
    const { page, dataRequests, skeletons, streamed } = await open('/?project=formfox', { hydrated: false });
    await widget(page, 'revenue').locator('[data-figure="gross"]').waitFor();
    expect(await widget(page, 'health').locator('.skeleton').count()).toBe(1);
    // Besides health, only a part whose short-lived entry (live visitors, 15 s) ran out since the warm-up may stream.
    const busy = await page.locator('[data-widget][aria-busy="true"]').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-widget')));
    expect(busy).toContain('health');
    expect(busy.filter((name) => name !== 'health' && name !== 'analytics')).toEqual([]);
    await expect.poll(() => widget(page, 'health').locator('.summary').innerText(), { timeout: 20_000 }).toMatch(/monitors? (up|down)/);
    expect((await skeletons()).sort()).toEqual((await streamed()).sort());
    // It came with the page's response, not as a request of its own.
    expect(dataRequests).toEqual([]);
    await page.close();
  });

  it('shows an upstream’s error in its widget as before, and Try again asks for it', async () => {
    const { integrations } = setup.projects.find((p) => p.slug === 'formfox')!;
    const monitorIds = (integrations.uptime_monitor as { monitorIds: string[] }).monitorIds;
    await send('PATCH', '/api/projects/formfox', { integrations: { uptime_monitor: { ...(integrations.uptime_monitor as object), monitorIds: monitorIds.slice(0, 1) } } });
    sandbox.inject('betterstack', { status: 500, body: { errors: 'Internal server error' } });
    // What the route says, which the widget's own request would have shown.
    const failed = await suite.dashboard.fetch('/api/health?project=formfox');
    expect(failed.status).toBe(502);
    const { message } = ((await failed.json()) as { error: { message: string } }).error;
    const { page, dataRequests } = await open('/?project=formfox');
    const health = widget(page, 'health');
    await expect.poll(() => health.getByRole('alert').locator('p').innerText(), { timeout: 20_000 }).toBe(`Could not load uptime. ${message}`);
    expect(await page.locator('[data-widget] [role="alert"]').count()).toBe(1);
    sandbox.services.betterstack.harness.clearFaults();
    await health.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => health.locator('.summary').innerText(), { timeout: 20_000 }).toMatch(/monitors? (up|down)/);
    expect(dataRequests).toEqual(['/api/trpc/data.health']);
    await page.close();
  });

  it('keeps the HTML’s data on screen, marked stale with the reason, when a refresh fails', async () => {
    await send('PATCH', '/api/projects/formfox', { integrations: { uptime_monitor: setup.projects.find((p) => p.slug === 'formfox')!.integrations.uptime_monitor } });
    await receive('/?project=formfox');
    const { page, dataRequests } = await open('/?project=formfox');
    const health = widget(page, 'health');
    const summary = await health.locator('.summary').innerText();
    expect(dataRequests).toEqual([]);
    sandbox.inject('betterstack', { status: 401, body: { errors: 'Invalid Team API Token' } });
    await health.getByRole('button', { name: 'Refresh uptime' }).click();
    await expect.poll(() => health.locator('.badge.stale').isVisible(), { timeout: 20_000 }).toBe(true);
    await expect(health.locator('.stale-note').innerText()).resolves.toMatch(/^Showing data from .+: Formfox: /);
    expect(await health.locator('.summary').innerText()).toBe(summary);
    expect(await page.locator('.badge.stale').count()).toBe(1);
    await page.close();
  });
});
