import { describe, expect, it } from 'vitest';
import { briefingSchema, type Briefing, type BriefingProject } from '@dash/contracts';
import { briefingEmail } from './email.ts';

// The briefing email for mail clients: every value escaped (names, titles and reviews come from people and
// upstreams), links absolute and http(s) only, needs-you first, a quiet day in one line, failed sources named, and a
// plain-text part that reads as text.

const hostile = `<script>alert("x")</script> & 'quotes' "double"`;

const empty = (slug: string, name: string): BriefingProject => ({
  slug,
  name,
  color: null,
  revenue: null,
  shipping: null,
  bugs: null,
  reviews: null,
  traffic: null,
  search: null,
  errors: null,
  uptime: null,
  funding: null,
});

function briefing(overrides: Partial<Briefing> = {}): Briefing {
  return briefingSchema.parse({
    window: { since: '2026-11-25T07:00:00.000Z', until: '2026-11-26T07:00:00.000Z' },
    days: { current: ['2026-11-25'], previous: ['2026-11-24'], weekAgo: ['2026-11-18'] },
    generatedAt: '2026-11-26T07:00:00.000Z',
    needsYou: [],
    quiet: 'A quiet day: nothing needs you across all 2 projects.',
    projects: [empty('formfox', 'Formfox'), empty('tideline', 'Tideline')],
    failed: [],
    unread: true,
    ...overrides,
  });
}

const options = { origin: 'https://dash.example.com', timezone: 'Europe/Berlin' };

describe('the briefing email', () => {
  it('escapes a hostile project name, review title and shipped title in the HTML, and keeps them readable in the text', () => {
    const project: BriefingProject = {
      ...empty('evil', hostile),
      shipping: { items: [{ title: hostile, source: 'code_host', url: 'javascript:alert(1)', shippedAt: '2026-11-25T10:00:00.000Z' }], link: '/?project=evil#widget-shipping' },
      reviews: { items: [{ rating: 1, title: hostile, territory: 'DE', createdAt: '2026-11-25T11:00:00.000Z' }], link: '/?project=evil#widget-storefront' },
    };
    const email = briefingEmail(
      briefing({
        quiet: null,
        needsYou: [
          { rule: 'low_ratings', project: 'evil', section: 'reviews', severity: 'error', text: `One 1-star review: ${hostile}`, value: 1, threshold: 1, link: '/?project=evil&x=1#widget-storefront' },
        ],
        projects: [project],
        failed: [{ project: 'evil', section: 'errors', error: hostile }],
      }),
      options,
    );
    expect(email.html).not.toContain('<script');
    expect(email.html).not.toContain('alert("x")');
    expect(email.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39; &quot;double&quot;');
    // A javascript: URL is never a link; the dashboard's links are absolute and escaped in the attribute.
    expect(email.html).not.toMatch(/href="javascript:/i);
    expect(email.html).toContain('href="https://dash.example.com/?project=evil&amp;x=1#widget-storefront"');
    // The text part says it as it is, not as entities.
    expect(email.text).toContain(`Evil: One 1-star review: ${hostile}`.replace('Evil', hostile));
    expect(email.text).toContain(`★☆☆☆☆ ${hostile} (DE)`);
    expect(email.text).not.toContain('&lt;');
    expect(email.text).toContain('<https://dash.example.com/?project=evil&x=1#widget-storefront>');
    expect(email.subject).toBe('Briefing for Thu 26 Nov: 1 thing needs you');
  });

  it('puts what needs you first, then what could not be read, then each project', () => {
    const email = briefingEmail(
      briefing({
        quiet: null,
        needsYou: [{ rule: 'long_outage', project: 'formfox', section: 'uptime', severity: 'error', text: 'API: down for 3 h', value: 180, threshold: 30, link: '/?notification=n1' }],
        failed: [{ project: 'tideline', section: 'errors', error: 'Sentry answered 401' }],
      }),
      options,
    );
    const inOrder = (body: string, parts: string[]) => {
      const positions = parts.map((part) => body.indexOf(part));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    };
    inOrder(email.html, ['>Needs you<', 'API: down for 3 h', '>Could not be read<', 'Tideline · errors: Sentry answered 401', '>Formfox</td>', '>Tideline</td>']);
    inOrder(email.text, ['NEEDS YOU', '- Formfox: API: down for 3 h', 'COULD NOT BE READ', '- Tideline · errors: Sentry answered 401', '\nFORMFOX\n', '\nTIDELINE\n']);
    expect(email.html).toContain('href="https://dash.example.com/?notification=n1"');
    // "Change when it comes" opens the page with the schedule, not the first page of Settings.
    expect(email.html).toContain('href="https://dash.example.com/settings/briefing"');
    expect(email.text).toContain('Change when it comes: https://dash.example.com/settings/briefing');
  });

  it('says a quiet day in one line, and lays out for mail clients: tables and inline styles, no style sheet or script', () => {
    const email = briefingEmail(briefing(), options);
    expect(email.subject).toBe('Briefing for Thu 26 Nov: a quiet day');
    expect(email.text.split('\n').filter((line) => line.includes('quiet day'))).toEqual(['A quiet day: nothing needs you across all 2 projects.']);
    expect(email.html).toContain('<table role="presentation"');
    expect(email.html).not.toMatch(/<style|<script|class=/i);
    // The window is read in the schedule's zone: 08:00 in Berlin.
    expect(email.text).toContain('Wed 25 Nov, 08:00 – Thu 26 Nov, 08:00 (Europe/Berlin)');
    expect(email.text).toContain('Open it on the dashboard: https://dash.example.com/briefing');
  });

  it('leaves links out when the dashboard does not know its address, rather than relative links a mail client cannot open', () => {
    const email = briefingEmail(briefing(), { origin: undefined, timezone: 'UTC' });
    expect(email.html).not.toContain('href=');
    expect(email.text).toContain('Open it on the dashboard, under Briefing.');
  });
});
