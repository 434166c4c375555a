import sanitizeHtml from 'sanitize-html';

/** A CSS length, or up to four (padding, margin): digits and a unit, never a function such as `url()` or `expression()`. */
const length = /^-?\d+(?:\.\d+)?(?:px|em|rem|%|pt)?$/;
const lengths = /^(?:-?\d+(?:\.\d+)?(?:px|em|rem|%|pt)?\s*){1,4}$/;
/** A colour by name, hex or rgb()/rgba() of numbers. */
const colour = /^(?:[a-z]+|#[0-9a-f]{3,8}|rgba?\(\s*[\d.%\s,]+\))$/i;
const style = (...patterns: RegExp[]) => patterns;

/**
 * The inline styles kept (on any kept element): formatting only. Each value must match as a whole, so nothing that
 * loads (`url(…)`, `@import`, `image-set`) or runs (`expression(…)`) passes; `background` and `background-image` are
 * not kept at all.
 */
const allowedStyles: Record<string, RegExp[]> = {
  color: style(colour),
  'background-color': style(colour),
  'font-weight': style(/^(?:normal|bold|[1-9]00)$/),
  'font-style': style(/^(?:normal|italic)$/),
  'font-size': style(length),
  'font-family': style(/^[\w\s,-]+$/),
  'line-height': style(length),
  'text-align': style(/^(?:left|right|center|justify)$/),
  'text-decoration': style(/^(?:none|underline|line-through)$/),
  'vertical-align': style(/^(?:top|middle|bottom|baseline)$/),
  'white-space': style(/^(?:normal|nowrap|pre|pre-wrap)$/),
  'border-collapse': style(/^(?:collapse|separate)$/),
  border: style(/^(?:none|\d+(?:px)?\s+(?:solid|dashed|dotted)\s+(?:[a-z]+|#[0-9a-f]{3,8}))$/i),
  'border-bottom': style(/^(?:none|\d+(?:px)?\s+(?:solid|dashed|dotted)\s+(?:[a-z]+|#[0-9a-f]{3,8}))$/i),
  padding: style(lengths),
  margin: style(lengths),
  width: style(length),
};

/** The elements a custom email keeps: ordinary formatting, links, lists, headings, tables. */
export const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'b', 'i', 'u', 's', 'strong', 'em', 'small', 'sub', 'sup', 'a', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4',
  'table', 'thead', 'tbody', 'tfoot', 'caption', 'tr', 'td', 'th', 'blockquote', 'code', 'pre', 'span', 'div',
];

const cell = ['colspan', 'rowspan', 'align', 'valign', 'width', 'bgcolor'];

const options: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  // No event handler, no `class`/`id`, no `src`/`background`/`action`: only what formats, and a link's target.
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    table: ['width', 'align', 'border', 'cellpadding', 'cellspacing', 'bgcolor'],
    td: cell,
    th: cell,
    ol: ['start'],
    '*': ['style'],
  },
  allowedStyles: { '*': allowedStyles },
  // Links to web pages and addresses only: no javascript:, data:, file: or protocol-relative URL.
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  allowProtocolRelative: false,
  // An element not allowed goes, its text stays; these go with their content (a document's <title> included).
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'select', 'noscript', 'title', 'template', 'head', 'svg', 'math'],
  // A link opens on its own, telling the page nothing of where it came from.
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer' }) },
};

/**
 * The HTML of a custom email (POST /api/alerts/send) made safe to send from the owner's verified sender, through
 * sanitize-html's allow-list: formatting, links (http, https, mailto) and tables stay; scripts, styles that could load
 * anything, forms and their inputs, frames, objects, event handlers and images (every `<img>`: a remote one is a
 * tracking pixel, and the API sends no attachments for a `cid:` one to name) go.
 */
export const sanitizeEmailHtml = (html: string): string => sanitizeHtml(html, options);
