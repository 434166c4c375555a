import { randomBytes } from 'node:crypto';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

/**
 * An ntfy server as its publishing reference says it takes messages (binwiederhier/ntfy `docs/publish.md`, kept in
 * shared/upstream-specs/ntfy.publish.md): `PUT`/`POST /<topic>` with the message as the body and the parameters in
 * headers ("List of all parameters": `X-Title`/`Title`/`t`, `X-Priority`/`Priority`/`p`, `X-Tags`/`Tags`, `X-Click`,
 * `X-Markdown`, `X-Actions`…, case-insensitive), or `PUT`/`POST /` with the message as JSON ("Publish as JSON").
 * Protected topics take `Authorization: Basic base64(user:password)` or `Bearer <token>` ("Authentication"). The
 * answer is the message as a subscriber receives it (`id`, `time`, `expires`, `event: "message"`, `topic`…); errors
 * are ntfy's `errHTTP` JSON (`{ code, http, error, link }`, server/errors.go): 40007 bad priority, 40017 bad message
 * JSON, 40101/40301 for a protected topic, 41301 over the size limit, 42901 over the request bucket ("Limitations":
 * 60 requests at once, then one more every 5 seconds).
 */

/** One message as the fake server stored it, in the shape its JSON answer and subscribers see. */
export interface NtfyMessage {
  id: string;
  /** Unix seconds. */
  time: number;
  expires: number;
  event: 'message';
  topic: string;
  message: string;
  title?: string;
  priority?: number;
  tags?: string[];
  click?: string;
  actions?: unknown[];
  /** `text/markdown` when the message asked for Markdown ("Markdown formatting"). */
  content_type?: string;
}

/** Who may publish to a protected topic: an access token (`tk_…`) or a user and password. */
export type NtfyAccess = { token: string } | { user: string; password: string };

export interface FakeNtfy extends SandboxService {
  /** Every message published, oldest first. */
  messages: NtfyMessage[];
  /** Plays an admin's `ntfy access`: the topic refuses anyone without one of these credentials. */
  protectTopic(topic: string, access: NtfyAccess): void;
  /** Plays `ntfy token add`: a fresh access token (`tk_` and 29 characters, as ntfy makes them). */
  newToken(): string;
  /** What one topic received, oldest first. */
  received(topic: string): NtfyMessage[];
}

/** "Limitations": a message is up to 4,096 bytes. */
const MESSAGE_MAX = 4096;
/** ntfy's default cache duration (12 h): a message's `expires`. */
const CACHE_SECONDS = 12 * 60 * 60;
/** "Limitations": the visitor's request bucket (60 at once, refilled one per 5 s), kept as a 60-in-5-minutes window. */
const VISITOR = { limit: 60, windowMs: 60 * 5_000 };
/** Topic names ntfy accepts: up to 64 of `[-_A-Za-z0-9]`. */
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
const PRIORITIES: Record<string, number> = { '1': 1, min: 1, '2': 2, low: 2, '3': 3, default: 3, '4': 4, high: 4, '5': 5, max: 5, urgent: 5 };

/** ntfy's error JSON (server/errors.go `errHTTP`). */
export const ntfyError = (http: number, code: number, error: string, link = '', headers: Record<string, string> = {}): SandboxReply => ({
  status: http,
  headers,
  body: link === '' ? { code, http, error } : { code, http, error, link },
});
const forbidden = () => ntfyError(403, 40301, 'forbidden', 'https://ntfy.sh/docs/publish/#authentication');
const unauthorized = () => ntfyError(401, 40101, 'unauthorized', 'https://ntfy.sh/docs/publish/#authentication');

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first header of those named ("List of all parameters": each parameter has aliases, all case-insensitive). */
function param(request: SandboxRequest, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = request.headers[name.toLowerCase()];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) return first;
    // "…and must be lowercase when used as query parameters in the URL."
    const query = request.query.get(name.toLowerCase());
    if (query !== null) return query;
  }
  return undefined;
}

const truthy = (value: string | undefined) => value !== undefined && ['true', '1', 'yes'].includes(value.toLowerCase());

export function ntfyService(now: number): FakeNtfy {
  void now;
  const messages: NtfyMessage[] = [];
  const protectedTopics = new Map<string, NtfyAccess[]>();

  /** "Authentication": nothing is asked of an open topic; a protected one takes Basic user:password or a Bearer token. */
  const admit = (request: SandboxRequest, topic: string): SandboxReply | undefined => {
    const allowed = protectedTopics.get(topic);
    const header = param(request, 'authorization') ?? decodeAuthParam(request.query.get('auth'));
    if (!allowed) return undefined;
    if (header === undefined) return forbidden();
    const [scheme = '', credential = ''] = header.split(' ', 2);
    if (/^bearer$/i.test(scheme)) return allowed.some((access) => 'token' in access && access.token === credential) ? undefined : unauthorized();
    if (/^basic$/i.test(scheme)) {
      const [user = '', password = ''] = splitOnce(Buffer.from(credential, 'base64').toString('utf8'), ':');
      // "Access tokens … via Bearer/Basic auth": a token may stand as the password with an empty user.
      const ok = allowed.some((access) => ('token' in access ? user === '' && password === access.token : access.user === user && access.password === password));
      return ok ? undefined : unauthorized();
    }
    return unauthorized();
  };

  const store = (request: SandboxRequest, fields: Omit<NtfyMessage, 'id' | 'time' | 'expires' | 'event'>): SandboxReply => {
    const time = Math.floor(request.now / 1000);
    const message: NtfyMessage = { id: randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').slice(0, 12), time, expires: time + CACHE_SECONDS, event: 'message', ...fields };
    messages.push(message);
    return { status: 200, body: message };
  };

  /** "Publish as JSON": `PUT`/`POST /` with `{ topic, message, title, tags, priority, click, actions, markdown… }`. */
  const publishJson = (request: SandboxRequest): SandboxReply => {
    const body = request.body;
    if (!isRecord(body) || typeof body.topic !== 'string') return ntfyError(400, 40017, 'invalid request: request body must be message JSON', 'https://ntfy.sh/docs/publish/#publish-as-json');
    if (!TOPIC.test(body.topic)) return ntfyError(400, 40009, 'invalid request: topic invalid');
    const refused = admit(request, body.topic);
    if (refused) return refused;
    if ((request.rawBody?.length ?? 0) > MESSAGE_MAX + 4096) return ntfyError(413, 41303, 'JSON body too large');
    const priority = body.priority;
    if (priority !== undefined && (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 1 || priority > 5)) {
      return ntfyError(400, 40007, 'invalid priority parameter', 'https://ntfy.sh/docs/publish/#message-priority');
    }
    if (body.actions !== undefined && (!Array.isArray(body.actions) || body.actions.length > 3)) return ntfyError(400, 40018, 'invalid request: actions invalid', 'https://ntfy.sh/docs/publish/#action-buttons');
    const message = typeof body.message === 'string' && body.message !== '' ? body.message : 'triggered';
    if (Buffer.byteLength(message) > MESSAGE_MAX) return tooLarge();
    return store(request, {
      topic: body.topic,
      message,
      ...(typeof body.title === 'string' && { title: body.title }),
      ...(typeof priority === 'number' && { priority }),
      ...(Array.isArray(body.tags) && { tags: body.tags.filter((tag): tag is string => typeof tag === 'string') }),
      ...(typeof body.click === 'string' && { click: body.click }),
      ...(Array.isArray(body.actions) && { actions: body.actions }),
      ...(body.markdown === true && { content_type: 'text/markdown' }),
    });
  };

  /** `PUT`/`POST /<topic>`: the body is the message, the headers (or lowercase query parameters) the rest. */
  const publishTopic = (request: SandboxRequest): SandboxReply => {
    const topic = request.params.topic ?? '';
    if (!TOPIC.test(topic)) return ntfyError(400, 40009, 'invalid request: topic invalid');
    const refused = admit(request, topic);
    if (refused) return refused;
    const raw = request.rawBody ?? Buffer.alloc(0);
    if (raw.length > MESSAGE_MAX) return tooLarge();
    const text = raw.toString('utf8');
    if (Buffer.from(text, 'utf8').length !== raw.length) return ntfyError(400, 40011, 'invalid message: message must be UTF-8 encoded');
    const priorityParam = param(request, 'x-priority', 'priority', 'prio', 'p');
    const priority = priorityParam === undefined || priorityParam === '' ? undefined : PRIORITIES[priorityParam.toLowerCase()];
    if (priorityParam !== undefined && priorityParam !== '' && priority === undefined) {
      return ntfyError(400, 40007, 'invalid priority parameter', 'https://ntfy.sh/docs/publish/#message-priority');
    }
    const title = param(request, 'x-title', 'title', 'ti', 't');
    const tags = param(request, 'x-tags', 'tags', 'tag', 'ta');
    const click = param(request, 'x-click', 'click');
    const actions = param(request, 'x-actions', 'actions', 'action');
    const markdown = truthy(param(request, 'x-markdown', 'markdown', 'md')) || /^text\/markdown/.test(request.headers['content-type'] ?? '');
    let parsedActions: unknown[] | undefined;
    if (actions !== undefined) {
      parsedActions = parseActions(actions);
      if (parsedActions === undefined || parsedActions.length > 3) return ntfyError(400, 40018, 'invalid request: actions invalid', 'https://ntfy.sh/docs/publish/#action-buttons');
    }
    const message = param(request, 'x-message', 'message', 'm') ?? (text.trim() === '' ? 'triggered' : text);
    return store(request, {
      topic,
      message,
      ...(title !== undefined && { title }),
      ...(priority !== undefined && { priority }),
      ...(tags !== undefined && { tags: tags.split(',').map((tag) => tag.trim()).filter(Boolean) }),
      ...(click !== undefined && { click }),
      ...(parsedActions !== undefined && { actions: parsedActions }),
      ...(markdown && { content_type: 'text/markdown' }),
    });
  };

  return {
    name: 'ntfy',
    basePath: '',
    messages,
    // Access is per topic (the route checks it); an open topic asks nothing.
    authorize: () => true,
    unauthorized,
    rateLimit: {
      ...VISITOR,
      tooMany: () => ntfyError(429, 42901, 'limit reached: too many requests, please be nice', 'https://ntfy.sh/docs/publish/#limitations'),
    },
    routes: [
      { method: 'POST', path: '/', handle: publishJson },
      { method: 'PUT', path: '/', handle: publishJson },
      { method: 'POST', path: '/:topic', handle: publishTopic },
      { method: 'PUT', path: '/:topic', handle: publishTopic },
    ],
    protectTopic(topic, access) {
      protectedTopics.set(topic, [...(protectedTopics.get(topic) ?? []), access]);
    },
    newToken() {
      return `tk_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'a').slice(0, 29)}`;
    },
    received(topic) {
      return messages.filter((message) => message.topic === topic);
    },
    reset() {
      messages.length = 0;
    },
  };
}

/** ntfy answers a body it would have to keep as an attachment; the fake keeps none, as a server whose attachment limit it exceeds. */
const tooLarge = () => ntfyError(413, 41301, 'attachment too large, or bandwidth limit reached', 'https://ntfy.sh/docs/publish/#limitations');

/** "Query param": `?auth=` is the base64 (raw URL encoding allowed) of a whole `Authorization` header. */
function decodeAuthParam(value: string | null): string | undefined {
  if (value === null) return undefined;
  return Buffer.from(value, 'base64').toString('utf8');
}

function splitOnce(value: string, separator: string): [string, string] {
  const at = value.indexOf(separator);
  return at < 0 ? [value, ''] : [value.slice(0, at), value.slice(at + 1)];
}

/**
 * "Using a header": a JSON array, or actions separated by `;`, each `action, label, paramN=…` with optional
 * `action=`/`label=`/`url=` prefixes and quoted values. Undefined when it cannot be read.
 */
function parseActions(header: string): unknown[] | undefined {
  const trimmed = header.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed = JSON.parse(trimmed) as unknown;
      return Array.isArray(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  const actions: Record<string, string>[] = [];
  for (const definition of splitQuoted(trimmed, ';')) {
    const parts = splitQuoted(definition, ',');
    const action: Record<string, string> = {};
    parts.forEach((part, index) => {
      const eq = part.indexOf('=');
      const key = eq > 0 && /^[a-z_.]+$/.test(part.slice(0, eq).trim()) ? part.slice(0, eq).trim() : index === 0 ? 'action' : index === 1 ? 'label' : 'url';
      action[key] = unquote((eq > 0 && key === part.slice(0, eq).trim() ? part.slice(eq + 1) : part).trim());
    });
    if (!['view', 'broadcast', 'http'].includes(action.action ?? '') || !action.label) return undefined;
    actions.push(action);
  }
  return actions;
}

function splitQuoted(value: string, separator: string): string[] {
  const parts: string[] = [];
  let quote = '';
  let current = '';
  for (const char of value) {
    if (quote !== '' && char === quote) quote = '';
    else if (quote === '' && (char === '"' || char === "'")) quote = char;
    if (quote === '' && char === separator) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  if (current.trim() !== '') parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

const unquote = (value: string) => (/^(["']).*\1$/.test(value) ? value.slice(1, -1) : value);
