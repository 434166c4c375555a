import type { ChannelMessage } from './channel.ts';

/**
 * Strangers' text as it reaches a channel (a PR title, a review, an error message), with what each medium would
 * format, link or ping: Slack's `<!channel>`, `<@U…>` and `<url|text>`, Discord's `@everyone`, `@here`, `<@id>` and
 * masked links, Telegram's HTML tags and entities, Markdown in all of them.
 */
export const HOSTILE_TEXT = [
  '@everyone @here <!channel> <!here> <@U024BE7LH> <@&123456789012345678> <#C024BE7LH>',
  '<b>bold</b> <a href="https://evil.example">click</a> <script>alert(1)</script> &amp; &lt;tag&gt; & < >',
  '*bold* _italic_ ~strike~ `code` ```block``` **bold** __under__ ||spoiler|| > quote',
  '[click](https://evil.example) <https://evil.example|click> https://evil.example',
].join(' ');

/** A message as the planner makes one, with `overrides`: an outage of a monitor of the formfox project. */
export function channelMessage(overrides: Partial<ChannelMessage> = {}): ChannelMessage {
  return {
    id: 'dlv_01JDXQ4V3M8K2P7R5T9W1Y6Z0A',
    kind: 'alert',
    title: 'Monitor down: api.formfox.app',
    body: 'Better Stack: the monitor api.formfox.app is down (connection timeout).',
    severity: 'error',
    url: 'https://dash.example.com/?notification=n_1',
    tag: 'betterstack:monitor:4',
    project: 'formfox',
    at: Date.UTC(2026, 10, 28, 9, 30),
    ...overrides,
  };
}

/** The recovery of `channelMessage()`'s outage, four minutes later; `providerId` is the outage's message on the connection. */
export function recoveryMessage(providerId: string | null, overrides: Partial<ChannelMessage> = {}): ChannelMessage {
  return channelMessage({
    kind: 'resolve',
    severity: 'success',
    title: 'Monitor up: api.formfox.app',
    body: 'Better Stack: the monitor api.formfox.app is up again.',
    recovers: { title: 'Monitor down: api.formfox.app', lastedMs: 4 * 60_000, providerId },
    ...overrides,
  });
}
