import type { NotificationSeverity } from '@dash/contracts';
import { z } from 'zod';
import {
  destinationUrl,
  jsonOrUndefined,
  answerReason,
  recoveryLine,
  refusalOutcome,
  sendRequest,
  type ChannelAdapter,
  type ChannelAdapterOptions,
  type ChannelMessage,
  type ChannelOutcome,
} from '../channel.ts';

/** Where an ntfy message goes: a server (ntfy.sh or a self-hosted one), a topic on it, and the login a protected topic asks for. */
export interface NtfyDestination {
  /** The server's address, `https://ntfy.sh` when empty; a server under a path (`https://example.com/ntfy`) keeps it. */
  server: string;
  topic: string;
  auth?: { token: string } | { username: string; password: string } | undefined;
}

export const NTFY_SH = 'https://ntfy.sh';
/** "Limitations": a message is up to 4,096 bytes; a longer one becomes an attachment, or a 413 where those are off. */
export const NTFY_MESSAGE_MAX_BYTES = 4096;
/** ntfy documents no title limit; a bound keeps a stranger's long title from pushing the JSON past the server's request limit. */
export const NTFY_TITLE_MAX_BYTES = 1024;

/** "Message priority": 5 pops over with a long vibration, 4 pops over, 3 is the default; a recovery is not urgent. */
const PRIORITY: Record<NotificationSeverity, 1 | 2 | 3 | 4 | 5> = { error: 5, warning: 4, info: 3, success: 3 };
/** "Tags & emojis": a tag that is an emoji short code is shown as that emoji before the title. */
const EMOJI_TAG: Record<NotificationSeverity, string> = { error: 'rotating_light', warning: 'warning', info: 'information_source', success: 'white_check_mark' };

/** A publish's fields besides the topic, as rendered elsewhere: plain text, a priority, emoji tags, where a click goes (null: nowhere). */
export interface NtfyRawPayload {
  title: string;
  message: string;
  priority: 1 | 2 | 3 | 4 | 5;
  tags: readonly string[];
  click: string | null;
}

/** ntfy's answer to a publish: the message as subscribers receive it, whose `id` we keep. */
const publishedSchema = z.object({ id: z.string().min(1) });
/** ntfy's error JSON (`{ code, http, error, link }`): `error` is its own words. */
/** ntfy's documented error answer: `{"code":40301,"http":403,"error":"forbidden","link":"https://ntfy.sh/docs/…"}`. */
const errorSchema = z.object({ code: z.number().int(), http: z.number().int(), error: z.string() });

/**
 * What an ntfy server's refusal keeps: ntfy's own error code (a number) when the answer is ntfy's error shape for that
 * status; its description too only from ntfy.sh. Any server at all may be given, so the words of another stay unread.
 */
export function ntfyError(said: string, status: number, host: string): string | undefined {
  const error = errorSchema.safeParse(jsonOrUndefined(said));
  if (!error.success || error.data.http !== status) return undefined;
  return host === new URL(NTFY_SH).host ? `${error.data.error} (ntfy error ${error.data.code})` : `ntfy error ${error.data.code}`;
}

const ELLIPSIS = '…';

/** `text` cut to at most `maxBytes` of UTF-8, ending in an ellipsis when cut, never inside a character. */
export function truncateToBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes - Buffer.byteLength(ELLIPSIS));
  // A continuation byte (10xxxxxx) is the middle of a character: step back to where that character starts.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return end === 0 ? '' : bytes.subarray(0, end).toString('utf8') + ELLIPSIS;
}

/**
 * The message text: the body, and for a recovery the line naming the outage and how long it lasted, since ntfy
 * cannot replace the outage's notification (its publishing reference has no way to). The body is cut, not the line.
 */
function messageText(message: ChannelMessage): string {
  const recovery = recoveryLine(message);
  const room = NTFY_MESSAGE_MAX_BYTES - (recovery ? Buffer.byteLength(`\n\n${recovery}`) : 0);
  const text = [truncateToBytes(message.body, room), recovery].filter((part) => part !== undefined && part !== '').join('\n\n');
  return truncateToBytes(text, NTFY_MESSAGE_MAX_BYTES);
}

/** The server's root, where JSON is published (a server under a path keeps it), or why the address cannot be used. */
function publishUrlOf(server: string): { url: string; host: string } | { refused: string } {
  const target = destinationUrl(server.trim() === '' ? NTFY_SH : server, 'The ntfy server address', 'loopback');
  if ('refused' in target) return target;
  return { url: `${target.url.origin}${target.url.pathname.replace(/\/+$/, '')}/`, host: target.host };
}

/** The Authorization header ("Authentication"): Bearer for an access token, Basic for a user and password. */
function authorizationOf(auth: NtfyDestination['auth']): { header?: string; secrets: string[] } | { refused: string } {
  if (!auth) return { secrets: [] };
  if ('token' in auth) {
    // fetch throws on a header it cannot send, which would read as an unreachable server and be retried forever.
    if (!/^[\x21-\x7e]+$/.test(auth.token)) return { refused: 'The ntfy access token has characters no token has' };
    return { header: `Bearer ${auth.token}`, secrets: [auth.token] };
  }
  if (auth.username.includes(':')) return { refused: 'The ntfy user name may not contain ":"' };
  const credential = Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64');
  return { header: `Basic ${credential}`, secrets: [auth.password, credential] };
}

/**
 * Publishes to an ntfy topic as JSON to the server's root ("Publish as JSON"): header values cannot carry a
 * stranger's non-ASCII title through fetch, and JSON fields cannot smuggle in other parameters (actions, attach,
 * email, call). `markdown` is left unset so the message is plain text: `*x*` and `[a](b)` show as typed.
 */
export class NtfyAdapter implements ChannelAdapter<NtfyDestination> {
  constructor(private readonly options: ChannelAdapterOptions) {}

  async send(destination: NtfyDestination, message: ChannelMessage): Promise<ChannelOutcome> {
    return this.sendRaw(destination, {
      title: message.title,
      // A digest is one message: its body already lists what was kept back.
      message: messageText(message),
      priority: PRIORITY[message.severity],
      tags: [EMOJI_TAG[message.severity]],
      click: message.url,
    });
  }

  /**
   * Publishes a message rendered elsewhere (the briefing's summary) as `send` publishes its own: the same address and
   * login checks and answers, its title and message cut to ntfy's limits, and plain text (never Markdown).
   */
  async sendRaw(destination: NtfyDestination, payload: NtfyRawPayload): Promise<ChannelOutcome> {
    const target = publishUrlOf(destination.server);
    if ('refused' in target) return { kind: 'refused', status: null, reason: target.refused };
    const auth = authorizationOf(destination.auth);
    if ('refused' in auth) return { kind: 'refused', status: null, reason: auth.refused };
    const service = `The ntfy server ${target.host}`;
    const body = JSON.stringify({
      topic: destination.topic,
      title: truncateToBytes(payload.title, NTFY_TITLE_MAX_BYTES),
      message: truncateToBytes(payload.message, NTFY_MESSAGE_MAX_BYTES),
      priority: payload.priority,
      tags: payload.tags,
      ...(payload.click !== null && { click: payload.click }),
    });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth.header) headers.authorization = auth.header;
    const response = await sendRequest(this.options, target.url, { method: 'POST', headers, body }, service);
    if ('kind' in response) return response;
    if (response.ok) {
      const published = publishedSchema.safeParse(await response.json().catch(() => undefined));
      return { kind: 'sent', status: response.status, providerId: published.success ? published.data.id : null };
    }
    const said = await response.text().catch(() => '');
    const reason = answerReason(service, response.status, ntfyError(said, response.status, target.host), auth.secrets);
    const outcome = refusalOutcome(response, reason, this.options.clock.now());
    // A topic cannot be deleted: a 404 or 410 means the address is not an ntfy server's root, which is a refusal.
    return outcome.kind === 'gone' ? { kind: 'refused', status: outcome.status, reason } : outcome;
  }
}

