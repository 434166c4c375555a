/**
 * An upstream's URL as it may be linked (`href`), by the page, an email or a notification: http(s) only, as the URL
 * parser reads it; anything else (`javascript:`, `data:`, a relative path, text that is no URL) is not a link, and its
 * title shows as plain text. Every upstream URL we render goes through here: a `javascript:` link must never reach an
 * `href`, even where the CSP would stop it running.
 */
export function httpUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
