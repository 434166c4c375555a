import { escapeDiscordMarkdown, fitMarkdown, type DiscordRawPayload } from '../../channels/discord/index.ts';
import { outline, type BriefingRender, type Line, type ProductOutline, type Section } from './outline.ts';

/**
 * The briefing as Discord messages of embeds: the first embed has the title (linked to the briefing), the window and
 * summary, what needs you, the metric alerts and what could not be read; then an embed per product (its name linked to
 * its page, its colour, its figures, what shipped and its reviews as fields). Discord takes at most 10 embeds in a
 * message and 6,000 characters across them, a title of 256, a description of 4,096, 25 fields of 256 + 1,024
 * (discord.com/developers/docs/resources/message#embed-object-embed-limits): the embeds go in as few messages as those
 * allow, in order. Strangers' text is escaped as the alerts' (`escapeDiscordMarkdown`), and nothing may ping
 * (`allowed_mentions: { parse: [] }`).
 */

export const DISCORD_EMBEDS_MAX = 10;
export const DISCORD_MESSAGE_CHARS_MAX = 6_000;
const TITLE_MAX = 256;
/** Within Discord's 4,096, so that an embed alone (title, description and two fields) stays under the 6,000 of a message. */
const DESCRIPTION_MAX = 3_000;
const FIELD_VALUE_MAX = 1_024;
/** The brand's blurple, for an embed with no colour of its own. */
const DEFAULT_COLOR = 0x5865f2;

type Embed = Record<string, unknown> & { title: string; description?: string; fields?: { name: string; value: string; inline: boolean }[] };

/** Escaped and cut to `max` characters with an ellipsis (the alerts' own: never between a backslash and what it escapes). */
const fit = fitMarkdown;

/** A URL inside a masked link's parentheses: the characters that would end or break it, percent-encoded. */
const linkTarget = (url: string) => url.replace(/[()<>\s\\]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

/** A line in Markdown: the escaped text and, with a page, a masked link to it. */
const lineText = (line: Line) => `• ${escapeDiscordMarkdown(line.text)}${line.href ? ` ([open](${linkTarget(line.href)}))` : ''}`;

/** Lines joined up to `max` characters; those that do not fit are counted in a last line. */
function joinLines(lines: readonly string[], max: number): string {
  const kept: string[] = [];
  let length = 0;
  for (const [index, line] of lines.entries()) {
    const left = lines.length - index;
    const room = max - length - (kept.length > 0 ? 1 : 0) - (left > 1 ? 20 : 0);
    if (line.length > room) {
      kept.push(`…and ${left} more`);
      return kept.join('\n');
    }
    kept.push(line);
    length += line.length + (kept.length > 1 ? 1 : 0);
  }
  return kept.join('\n');
}

/** What Discord counts of an embed toward a message's 6,000: title, description, fields' names and values. */
export function embedChars(embed: Embed): number {
  const fields = embed.fields ?? [];
  return embed.title.length + (embed.description?.length ?? 0) + fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0);
}

function headEmbed(input: BriefingRender): { embed: Embed; products: ProductOutline[] } {
  const view = outline(input);
  const parts = [view.needsYou, view.metricAlerts, view.failed].filter((part): part is Section => part !== null);
  const lines = [escapeDiscordMarkdown(view.span), escapeDiscordMarkdown(view.summary)];
  for (const part of parts) lines.push('', `**${escapeDiscordMarkdown(part.title)}**`, ...part.lines.map(lineText));
  const embed: Embed = {
    title: fit(view.title, TITLE_MAX),
    ...(view.href ? { url: view.href } : {}),
    description: joinLines(lines, DESCRIPTION_MAX),
    color: DEFAULT_COLOR,
    timestamp: input.briefing.generatedAt,
  };
  return { embed, products: view.products };
}

function productEmbed(product: ProductOutline): Embed {
  const [first, ...others] = product.sections;
  const figures = first?.title === 'Figures' ? first : undefined;
  const fields = (figures ? others : product.sections).map((part) => ({
    name: fit(part.title, TITLE_MAX),
    value: joinLines(part.lines.map(lineText), FIELD_VALUE_MAX),
    inline: false,
  }));
  return {
    title: fit(product.name, TITLE_MAX),
    ...(product.href ? { url: product.href } : {}),
    ...(figures ? { description: joinLines(figures.lines.map(lineText), DESCRIPTION_MAX) } : {}),
    color: product.color === null ? DEFAULT_COLOR : Number.parseInt(product.color.slice(1), 16),
    ...(fields.length > 0 ? { fields } : {}),
  };
}

/** The briefing as Discord messages, in order: each within 10 embeds and 6,000 characters. */
export function discordBriefing(input: BriefingRender): DiscordRawPayload[] {
  const { embed, products } = headEmbed(input);
  const embeds = [embed, ...products.map(productEmbed)];
  const messages: Embed[][] = [];
  let current: Embed[] = [];
  let chars = 0;
  for (const next of embeds) {
    const size = embedChars(next);
    if (current.length > 0 && (current.length >= DISCORD_EMBEDS_MAX || chars + size > DISCORD_MESSAGE_CHARS_MAX)) {
      messages.push(current);
      current = [];
      chars = 0;
    }
    current.push(next);
    chars += size;
  }
  if (current.length > 0) messages.push(current);
  return messages.map((group) => ({ embeds: group, allowed_mentions: { parse: [] } }));
}
