import { escapeTelegramHtml, TELEGRAM_TEXT_MAX, type TelegramRawPayload } from '../../channels/telegram/index.ts';
import { outline, type BriefingRender, type Line, type Section } from './outline.ts';

/**
 * The briefing as Telegram messages in HTML parse mode: the title, the window and the summary, what needs you, the
 * metric alerts, what could not be read, then each product (its name, linked to its page, and its parts), each a block
 * of lines. sendMessage takes "1-4096 characters after entities parsing" (core.telegram.org/bots/api#sendmessage):
 * the blocks go in as few messages as that allows, in order, a block never cut unless it alone is longer, and then
 * between lines (its name repeated, "continued"). Strangers' text is escaped as the alerts' (`escapeTelegramHtml`), so
 * no tag in it formats or links.
 */

/** A line of HTML and the text Telegram shows of it (what its limit counts). */
interface HtmlLine {
  html: string;
  plain: string;
}

/** A block that is kept whole when it can be; `continued` opens each further message when it cannot. */
interface Block {
  lines: HtmlLine[];
  continued?: HtmlLine;
}

const esc = escapeTelegramHtml;
const text = (value: string): HtmlLine => ({ html: esc(value), plain: value });
const bold = (value: string): HtmlLine => ({ html: `<b>${esc(value)}</b>`, plain: value });
const italic = (value: string): HtmlLine => ({ html: `<i>${esc(value)}</i>`, plain: value });
/** A bold title, linked to its page when there is one. */
const heading = (value: string, href: string | null): HtmlLine => (href ? { html: `<b><a href="${esc(href)}">${esc(value)}</a></b>`, plain: value } : bold(value));
const LINK_TEXT = 'open';

/** A line, and a link to its page when it has one. */
function line(value: Line, prefix = '• '): HtmlLine {
  const html = `${esc(prefix + value.text)}${value.href ? ` <a href="${esc(value.href)}">${LINK_TEXT}</a>` : ''}`;
  return { html, plain: `${prefix}${value.text}${value.href ? ` ${LINK_TEXT}` : ''}` };
}

const sectionLines = (part: Section): HtmlLine[] => [bold(part.title), ...part.lines.map((item) => line(item))];

/** Characters shown of lines joined by newlines. */
const shownOf = (lines: readonly HtmlLine[]) => lines.reduce((sum, item) => sum + item.plain.length, 0) + Math.max(0, lines.length - 1);

/** A line longer than a whole message (a product's name of thousands of characters): its text cut to fit. */
function cutLine(item: HtmlLine, max: number): HtmlLine {
  if (item.plain.length <= max) return item;
  let cut = '';
  for (const char of item.plain) {
    if (cut.length + char.length > max - 1) break;
    cut += char;
  }
  return text(`${cut}…`);
}

/** Blocks packed into messages of at most `max` characters shown: whole blocks where they fit, else cut between lines. */
export function packBlocks(blocks: readonly Block[], max = TELEGRAM_TEXT_MAX): string[] {
  const messages: HtmlLine[][] = [];
  let current: HtmlLine[] = [];
  const flush = () => {
    if (current.length > 0) messages.push(current);
    current = [];
  };
  /** Adds a line (a blank one between blocks) to the current message, or starts the next one with it. */
  const add = (lines: HtmlLine[]) => {
    const sep = current.length > 0 ? [{ html: '', plain: '' }] : [];
    if (current.length > 0 && shownOf([...current, ...sep, ...lines]) > max) flush();
    current.push(...(current.length > 0 ? sep : []), ...lines);
  };
  for (const block of blocks) {
    if (shownOf(block.lines) <= max) {
      add(block.lines);
      continue;
    }
    // Longer than a message alone: from a fresh message, line by line, its name again on each further one.
    flush();
    for (const item of block.lines.map((entry) => cutLine(entry, max))) {
      if (current.length > 0 && shownOf([...current, item]) > max) {
        flush();
        if (block.continued && shownOf([block.continued, item]) <= max) current.push(block.continued);
      }
      current.push(item);
    }
    flush();
  }
  flush();
  return messages.map((lines) => lines.map((item) => item.html).join('\n'));
}

/** The briefing as Telegram sendMessage payloads, in order, each within 4,096 characters shown. */
export function telegramBriefing(input: BriefingRender): TelegramRawPayload[] {
  const view = outline(input);
  const blocks: Block[] = [{ lines: [heading(view.title, view.href), text(view.span), text(view.summary)] }];
  for (const part of [view.needsYou, view.metricAlerts, view.failed]) if (part) blocks.push({ lines: sectionLines(part) });
  for (const product of view.products) {
    const lines = [heading(product.name, product.href), ...product.sections.flatMap((part) => [italic(part.title), ...part.lines.map((item) => line(item))])];
    blocks.push({ lines, continued: cutLine(text(`${product.name} (continued)`), 300) });
  }
  return packBlocks(blocks).map((html) => ({ text: html, parse_mode: 'HTML' }));
}
