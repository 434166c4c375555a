/**
 * Telegram's HTML parse mode, as "Formatting options" → "HTML style" lists it (core.telegram.org/bots/api#html-style):
 * only the tags it names, `<`/`>`/`&` outside a tag replaced by `&lt;`/`&gt;`/`&amp;`, numerical entities and the
 * four named ones (`&lt;`, `&gt;`, `&amp;`, `&quot;`). Returns the plain text Telegram would show, or the reason the
 * Bot API gives after "Bad Request: can't parse entities: ". Telegram passes a lone `&` through; the fake holds to the
 * page's "must be replaced", so a connector that forgets to escape one is caught.
 */
export type HtmlParse = { ok: true; text: string } | { ok: false; reason: string };

/** Each tag the page lists, with the attributes it shows on it. */
const TAGS: Record<string, readonly string[]> = {
  b: [],
  strong: [],
  i: [],
  em: [],
  u: [],
  ins: [],
  s: [],
  strike: [],
  del: [],
  'tg-spoiler': [],
  span: ['class'],
  a: ['href'],
  'tg-emoji': ['emoji-id'],
  code: ['class'],
  pre: [],
  blockquote: ['expandable'],
};
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

export function parseTelegramHtml(html: string): HtmlParse {
  const offset = (at: number) => Buffer.byteLength(html.slice(0, at));
  const open: string[] = [];
  let text = '';
  let at = 0;
  while (at < html.length) {
    const char = html[at] ?? '';
    if (char === '&') {
      const entity = /^&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/.exec(html.slice(at));
      const name = entity?.[1];
      const decoded = name === undefined ? undefined : name.startsWith('#') ? fromCodePoint(name) : NAMED[name];
      if (entity === null || decoded === undefined) return { ok: false, reason: `Can't find end of the entity starting at byte offset ${offset(at)}` };
      text += decoded;
      at += entity[0].length;
      continue;
    }
    if (char === '>') return { ok: false, reason: `Unexpected end of tag at byte offset ${offset(at)}` };
    if (char !== '<') {
      text += char;
      at++;
      continue;
    }
    const end = html.indexOf('>', at);
    if (end < 0) return { ok: false, reason: `Unclosed start tag at byte offset ${offset(at)}` };
    const tag = html.slice(at + 1, end);
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim().toLowerCase();
      if (open.at(-1) !== name) return { ok: false, reason: `Unmatched end tag at byte offset ${offset(at)}, expected "</${open.at(-1) ?? ''}>", found "</${name}>"` };
      open.pop();
    } else {
      const [rawName = '', ...rest] = tag.trim().split(/\s+/);
      const name = rawName.toLowerCase();
      const allowed = TAGS[name];
      if (allowed === undefined) return { ok: false, reason: `Unsupported start tag "${rawName}" at byte offset ${offset(at)}` };
      const attributes = rest.join(' ');
      for (const [, attribute = ''] of attributes.matchAll(/([a-zA-Z-]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?/g)) {
        if (!allowed.includes(attribute.toLowerCase())) return { ok: false, reason: `Unsupported attribute "${attribute}" of tag "${name}" at byte offset ${offset(at)}` };
      }
      if (name === 'span' && !/class\s*=\s*["']?tg-spoiler/.test(attributes)) return { ok: false, reason: `Tag "span" must have class "tg-spoiler" at byte offset ${offset(at)}` };
      open.push(name);
    }
    at = end + 1;
  }
  if (open.length > 0) return { ok: false, reason: `Can't find end tag corresponding to start tag "${open.at(-1) ?? ''}"` };
  return { ok: true, text };
}

function fromCodePoint(reference: string): string | undefined {
  const code = reference.startsWith('#x') ? Number.parseInt(reference.slice(2), 16) : Number.parseInt(reference.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}
