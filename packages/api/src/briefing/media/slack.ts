import { escapeSlack, type SlackRawPayload } from '../../channels/slack/index.ts';
import { moreProducts, outline, type BriefingRender, type Line, type ProductOutline, type Section } from './outline.ts';

/**
 * The briefing as one Slack message (an incoming webhook's payload): Block Kit with a header, the window and the
 * summary, what needs you and the metric alerts (each line with a button to its page), then a header and sections per
 * product (its figures as fields, what shipped, its reviews, a button to its page), within Block Kit's limits: 50
 * blocks in a message, a header's text 150 characters, a section's 3,000, 10 fields of 2,000, a button's text 75
 * (docs.slack.dev/reference/block-kit/blocks). Products that do not fit are named in one last line with a button to
 * the briefing ("and 4 more products: open the briefing"). Every stranger's string is in a `plain_text` object, which
 * Slack never formats, escaped as the alerts are (`escapeSlack`), so nothing in it pings, links or bolds.
 */

export const SLACK_BLOCKS_MAX = 50;
const HEADER_MAX = 150;
const SECTION_MAX = 3_000;
const FIELDS_MAX = 10;
const FIELD_MAX = 2_000;
const BUTTON_MAX = 75;
/**
 * Slack refuses a message whose blocks are more than about 13,300 characters as JSON (`msg_blocks_too_long`,
 * slackapi/bolt-js#2509, not in its reference; Slack's own `block_id`s count, some 45 characters a block): the
 * briefing's blocks keep under this many as JSON, which leaves room for 50 blocks' ids.
 */
export const SLACK_TEXT_BUDGET = 10_500;
/** Lines of what needs you (or of the metric alerts) that get a section and a button each; the rest share one section. */
const LINKED_MAX = 5;

type Block = Record<string, unknown>;

/** Escaped and cut to `max` characters, never inside an entity, with an ellipsis when cut. */
function fit(text: string, max: number): string {
  const escaped = escapeSlack(text);
  if (escaped.length <= max) return escaped;
  return `${escaped.slice(0, max - 1).replace(/&[a-z]{0,3}$/, '')}…`;
}

const plain = (text: string, max: number) => ({ type: 'plain_text', text: fit(text, max), emoji: false });
const button = (text: string, url: string) => ({ type: 'button', text: plain(text, BUTTON_MAX), url });
const header = (text: string): Block => ({ type: 'header', text: plain(text, HEADER_MAX) });
const section = (text: string, href: string | null = null, label = 'Open'): Block => ({
  type: 'section',
  text: plain(text, SECTION_MAX),
  ...(href ? { accessory: button(label, href) } : {}),
});
const bullets = (lines: readonly Line[]) => lines.map((line) => `• ${line.text}`).join('\n');

/** The blocks' size as JSON (what Slack counts toward a message's size). */
function textLength(blocks: readonly Block[]): number {
  return JSON.stringify(blocks).length;
}

/** A section's lines: the first few each with its button, the rest in one section. */
function linkedSections(part: Section): Block[] {
  const blocks: Block[] = [header(part.title)];
  const linked = part.lines.slice(0, LINKED_MAX);
  const rest = part.lines.slice(LINKED_MAX);
  for (const line of linked) blocks.push(section(line.text, line.href));
  if (rest.length > 0) blocks.push(section(bullets(rest)));
  return blocks;
}

/** A product's blocks: its name, its figures as fields (with the button to its page), what shipped, its reviews. */
function productBlocks(product: ProductOutline): Block[] {
  const blocks: Block[] = [header(product.name)];
  product.sections.forEach((part, index) => {
    const href = index === 0 ? product.href : null;
    const accessory = href ? { accessory: button('Open', href) } : {};
    if (part.title === 'Figures' && part.lines.length <= FIELDS_MAX) {
      blocks.push({ type: 'section', fields: part.lines.map((line) => plain(line.text, FIELD_MAX)), ...accessory });
    } else {
      blocks.push({ type: 'section', text: plain(`${part.title}\n${bullets(part.lines)}`, SECTION_MAX), ...accessory });
    }
  });
  blocks.push({ type: 'divider' });
  return blocks;
}

/** The briefing as one incoming-webhook payload: Block Kit, and the summary as the notification's text. */
export function slackBriefing(input: BriefingRender): SlackRawPayload & { blocks: Block[] } {
  const view = outline(input);
  const blocks: Block[] = [header(view.title), { type: 'context', elements: [plain(`${view.span} · ${view.summary}`, SECTION_MAX)] }];
  if (view.needsYou) blocks.push(...linkedSections(view.needsYou));
  if (view.metricAlerts) blocks.push(...linkedSections(view.metricAlerts));
  if (view.failed) blocks.push(section(`${view.failed.title}\n${bullets(view.failed.lines)}`));
  blocks.push({ type: 'divider' });

  // Products in order while they fit whole, with room kept for the line that names the rest.
  const more = (count: number) => section(moreProducts(count), view.href, 'Open the briefing');
  let shown = 0;
  for (const product of view.products) {
    const next = productBlocks(product);
    const left = view.products.length - shown - 1;
    const tail = left > 0 ? [more(left)] : [];
    if (blocks.length + next.length + tail.length > SLACK_BLOCKS_MAX || textLength([...blocks, ...next, ...tail]) > SLACK_TEXT_BUDGET) break;
    blocks.push(...next);
    shown++;
  }
  if (shown < view.products.length) blocks.push(more(view.products.length - shown));
  else if (view.href) blocks.push({ type: 'actions', elements: [button('Open the briefing', view.href)] });
  return { text: fit(`${view.title}: ${view.summary}`, SECTION_MAX), blocks };
}
