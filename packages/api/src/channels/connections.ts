import { randomUUID } from 'node:crypto';
import { type ChannelAdd, type ChannelConnection, type ChannelDestination, type ChannelKind, type ChannelTestResult, type ChannelUpdate } from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { ChannelConnectionRow, Store } from '@dash/db';
import { z } from 'zod';
import type { CredentialVault } from '../credentials/vault.ts';
import { fail, fieldFail } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { destinationUrl, type ChannelAdapter, type ChannelMessage, type ChannelOutcome } from './channel.ts';
import { DiscordAdapter, type DiscordDestination, type DiscordRawPayload } from './discord/index.ts';
import { NTFY_SH, NtfyAdapter, type NtfyDestination, type NtfyRawPayload } from './ntfy/index.ts';
import { SlackAdapter, type SlackDestination, type SlackRawPayload } from './slack/index.ts';
import { TELEGRAM_API, TelegramAdapter, type TelegramDestination, type TelegramRawPayload } from './telegram/index.ts';
import { newWebhookSecret, SignedWebhookAdapter, type SignedWebhookDestination } from './webhook/index.ts';

/**
 * The services' own addresses; CHAT_SLACK_URL, CHAT_DISCORD_URL and CHAT_TELEGRAM_URL point them elsewhere (a proxy,
 * the sandbox in tests), as SENDGRID_API_URL does for email. A Slack or Discord URL a user pastes is always the
 * service's own; the send goes to the same path under the configured root.
 */
export interface ChatEnvironment {
  CHAT_SLACK_URL?: string | undefined;
  CHAT_DISCORD_URL?: string | undefined;
  CHAT_TELEGRAM_URL?: string | undefined;
}

const SLACK_ORIGIN = 'https://hooks.slack.com';
const DISCORD_ORIGIN = /^https:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com/;

/** Each kind's destination as its adapter takes it. */
interface Destinations {
  slack: SlackDestination;
  discord: DiscordDestination;
  telegram: TelegramDestination;
  ntfy: NtfyDestination;
  webhook: SignedWebhookDestination;
}

/** A message already rendered for one kind's medium (the briefing's), as that kind's adapter posts it. */
export type RawChannelPayload =
  | { kind: 'slack'; payload: SlackRawPayload }
  | { kind: 'discord'; payload: DiscordRawPayload }
  | { kind: 'telegram'; payload: TelegramRawPayload }
  | { kind: 'ntfy'; payload: NtfyRawPayload }
  | { kind: 'webhook'; payload: { id: string; body: string } };

/**
 * What is not secret, stored in clear (`settings`), by kind. What lets someone read or post to a destination is
 * sealed instead: an ntfy topic (on ntfy.sh whoever knows it reads and posts), a webhook's URL (its path and query
 * may be its key), besides the tokens, logins and pasted webhook URLs.
 */
const settingsSchema = z.object({
  chatId: z.string().optional(),
  server: z.string().optional(),
  /** An ntfy topic's first three characters (and `…` when there are more): what the list shows of it. */
  topicStart: z.string().optional(),
  auth: z.enum(['none', 'token', 'login']).optional(),
  /** A signed webhook's origin (scheme, host and port): where its secret may go. */
  origin: z.string().optional(),
  /** Slack's team and webhook ids, Discord's webhook id: not secret, they name the destination in the list. */
  label: z.string().optional(),
  /** Kept in clear before they were sealed (`ChannelConnections.sealDestinations` moves them): an ntfy topic, a webhook's URL. */
  topic: z.string().optional(),
  url: z.string().optional(),
});
type Settings = z.infer<typeof settingsSchema>;

/**
 * Where a connection's secret may go, and so what it is sealed for: the service's own host (Slack, Discord, Telegram,
 * always over https), or the origin (scheme, host and port) of the server or URL saved with it (ntfy, the signed
 * webhook). `https://host` and `http://host`, or another port, are other destinations.
 */
function boundTo(kind: ChannelKind, settings: Settings): string {
  switch (kind) {
    case 'slack':
      return 'hooks.slack.com';
    case 'discord':
      return 'discord.com';
    case 'telegram':
      return 'api.telegram.org';
    case 'ntfy':
      return originOf(settings.server || NTFY_SH);
    case 'webhook':
      return originOf(settings.origin ?? settings.url ?? '');
  }
}

const hostOf = (address: string) => {
  try {
    return new URL(address).host;
  } catch {
    return '';
  }
};

const originOf = (address: string) => {
  try {
    const { origin } = new URL(address);
    return origin === 'null' ? '' : origin;
  } catch {
    return '';
  }
};

/** The name a secret is sealed under: the connection and where it may go, so it never opens for another row or another destination. */
const sealName = (id: string, kind: ChannelKind, settings: Settings) => `channel:${id}:${boundTo(kind, settings)}`;

/**
 * The name an ntfy or signed webhook secret was sealed under before secrets were bound to an origin: its host alone.
 * One still sealed so opens for the origin saved with it (where it has been sent) and is sealed again for it then.
 */
const hostSealName = (id: string, kind: ChannelKind, settings: Settings) =>
  kind === 'ntfy' ? `channel:${id}:${hostOf(settings.server || NTFY_SH)}` : kind === 'webhook' ? `channel:${id}:${hostOf(settings.url ?? '')}` : undefined;

const parseSettings = (text: string): Settings => settingsSchema.parse(JSON.parse(text));

const topicStartOf = (topic: string) => `${topic.slice(0, 3)}${topic.length > 3 ? '…' : ''}`;

/** Settings without what connections saved before kept in clear: an ntfy topic's start and a webhook's origin instead. */
function shownSettings({ topic, url, ...kept }: Settings): Settings {
  return { ...kept, ...(topic !== undefined ? { topicStart: topicStartOf(topic) } : {}), ...(url !== undefined ? { origin: originOf(url) } : {}) };
}

/**
 * A stored connection's `settings` as an export carries them: nothing that lets someone read or post to the
 * destination. The same as stored once the start has sealed them (`sealDestinations`); not yet when this dashboard's
 * key does not open the secrets, and then what was in clear stays out.
 */
export function exportedSettings(text: string): string {
  try {
    return JSON.stringify(shownSettings(parseSettings(text)));
  } catch {
    return '{}';
  }
}

/** Whether a stored connection's secret opens with this dashboard's key (an import skips those that do not). */
export function opensChannelSecret(row: Pick<ChannelConnectionRow, 'id' | 'kind' | 'settings' | 'sealedSecret'>, opens: (name: string, sealed: string) => boolean): boolean {
  try {
    const settings = parseSettings(row.settings);
    const before = hostSealName(row.id, row.kind, settings);
    return opens(sealName(row.id, row.kind, settings), row.sealedSecret) || (before !== undefined && opens(before, row.sealedSecret));
  } catch {
    return false;
  }
}

/** A destination split into what is stored in clear and what is sealed; refused when its address cannot be used. */
function split(destination: ChannelDestination): { settings: Settings; secret: Record<string, string> } {
  switch (destination.kind) {
    case 'slack': {
      const [, team, hook] = /\/services\/([^/]+)\/([^/]+)\//.exec(destination.webhookUrl) ?? [];
      return { settings: { label: `hooks.slack.com · ${team}/${hook}` }, secret: { webhookUrl: destination.webhookUrl } };
    }
    case 'discord': {
      const [, id] = /\/webhooks\/(\d+)\//.exec(destination.webhookUrl) ?? [];
      return { settings: { label: `discord.com · webhook ${id}` }, secret: { webhookUrl: destination.webhookUrl } };
    }
    case 'telegram':
      return { settings: { chatId: destination.chatId }, secret: { botToken: destination.botToken } };
    case 'ntfy': {
      const server = destination.server?.trim() || NTFY_SH;
      const checked = destinationUrl(server, 'The ntfy server address', 'loopback');
      if ('refused' in checked) throw fieldFail(['destination', 'server'], checked.refused);
      const auth = destination.token !== undefined ? 'token' : destination.username !== undefined ? 'login' : 'none';
      const secret: Record<string, string> =
        destination.token !== undefined ? { token: destination.token } : destination.username !== undefined ? { username: destination.username, password: destination.password ?? '' } : {};
      return { settings: { server: checked.url.href.replace(/\/+$/, ''), topicStart: topicStartOf(destination.topic), auth }, secret: { ...secret, topic: destination.topic } };
    }
    case 'webhook': {
      const checked = destinationUrl(destination.url, 'The webhook URL', 'loopback');
      if ('refused' in checked) throw fieldFail(['destination', 'url'], checked.refused);
      return { settings: { origin: checked.url.origin }, secret: { url: checked.url.href } };
    }
  }
}

/** Where a connection sends, with nothing secret in it. */
function targetOf(row: ChannelConnectionRow): string {
  const settings = parseSettings(row.settings);
  switch (row.kind) {
    case 'slack':
    case 'discord':
      return settings.label ?? row.kind;
    case 'telegram':
      return `Telegram chat ${settings.chatId ?? ''}`;
    case 'ntfy': {
      // On a public server the topic is what lets anyone read it: only its start is shown.
      const start = settings.topicStart ?? topicStartOf(settings.topic ?? '');
      return `${hostOf(settings.server || NTFY_SH)} · topic ${start}${settings.auth === 'none' ? '' : ' (protected)'}`;
    }
    case 'webhook':
      return hostOf(settings.origin ?? settings.url ?? '');
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function connectionOf(row: ChannelConnectionRow): ChannelConnection {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    minSeverity: row.minSeverity,
    target: targetOf(row),
    createdAt: new Date(row.createdAt).toISOString(),
    lastSuccessAt: iso(row.lastSuccessAt),
    lastFailureAt: iso(row.lastFailureAt),
    lastFailure: row.lastFailure,
    needsAttention: row.attention,
  };
}

export interface ChannelConnectionsOptions {
  store: Store;
  vault: CredentialVault;
  fetch: typeof fetch;
  clock: Clock;
  log: Logger;
  env?: ChatEnvironment;
  /** The dashboard's public origin, when known: a message links to its thread there. */
  origin: string | undefined;
}

/**
 * The chat and webhook connections: adding one (its secret sealed for its host), listing, changing and removing them,
 * the test message, and sending a message to one through its kind's adapter. What the service answers is written on
 * the connection; a refusal for good marks it "needs attention".
 */
export class ChannelConnections {
  private readonly adapters: { slack: SlackAdapter; discord: DiscordAdapter; telegram: TelegramAdapter; ntfy: NtfyAdapter; webhook: SignedWebhookAdapter };
  private readonly env: ChatEnvironment;

  constructor(private readonly options: ChannelConnectionsOptions) {
    const { fetch, clock } = options;
    this.env = options.env ?? {};
    this.adapters = {
      slack: new SlackAdapter({ fetch, clock }),
      discord: new DiscordAdapter({ fetch, clock }),
      telegram: new TelegramAdapter({ fetch, clock, baseUrl: this.env.CHAT_TELEGRAM_URL || TELEGRAM_API }),
      ntfy: new NtfyAdapter({ fetch, clock }),
      webhook: new SignedWebhookAdapter({ fetch, clock }),
    };
  }

  get origin(): string | undefined {
    return this.options.origin;
  }

  async list(): Promise<ChannelConnection[]> {
    return (await this.options.store.channels.list()).map(connectionOf);
  }

  /**
   * Seals what connections saved before kept in clear (an ntfy topic, a webhook's URL) with their secret, leaving in
   * their settings only what the list shows: run at each start, so neither the store nor an export holds it. A
   * connection whose secret does not open keeps only what the list shows: it cannot send anyway.
   */
  async sealDestinations(): Promise<number> {
    const { store, vault, log } = this.options;
    let sealed = 0;
    for (const row of await store.channels.list()) {
      const settings = parseSettings(row.settings);
      const { topic, url } = settings;
      if (topic === undefined && url === undefined) continue;
      const kept = shownSettings(settings);
      let sealedSecret = row.sealedSecret;
      try {
        const { secret } = this.openEither(row, settings);
        // Bound to the origin it has been sent to (kept in the settings), as every secret is now.
        sealedSecret = vault.seal(sealName(row.id, row.kind, kept), { ...secret, ...(topic !== undefined ? { topic } : {}), ...(url !== undefined ? { url } : {}) });
      } catch {
        // A secret this key cannot open stays as it is, and what was in clear goes.
      }
      await store.channels.rebind(row.id, row.sealedSecret, sealedSecret, JSON.stringify(kept));
      sealed += 1;
    }
    if (sealed > 0) log.info(`chat: what ${sealed} connection${sealed === 1 ? '' : 's'} kept in clear sealed with ${sealed === 1 ? 'its' : 'their'} secret`);
    return sealed;
  }

  async add(input: ChannelAdd): Promise<{ connection: ChannelConnection; secret?: string }> {
    const { store, vault, clock, log } = this.options;
    const { settings, secret } = split(input.destination);
    const shown = input.destination.kind === 'webhook' ? newWebhookSecret() : undefined;
    if (shown) secret.secret = shown;
    const id = randomUUID();
    const row: ChannelConnectionRow = {
      id,
      kind: input.destination.kind,
      name: input.name,
      minSeverity: input.minSeverity,
      settings: JSON.stringify(settings),
      sealedSecret: vault.seal(sealName(id, input.destination.kind, settings), secret),
      createdAt: clock.now(),
      lastSuccessAt: null,
      lastFailureAt: null,
      lastFailure: null,
      attentionAt: null,
      attention: null,
    };
    await store.channels.add(row);
    log.info(`chat: connection "${row.name}" (${row.kind}, ${targetOf(row)}) added`);
    return { connection: connectionOf(row), ...(shown ? { secret: shown } : {}) };
  }

  /**
   * A new name, floor or destination. A destination of another kind is refused; one whose origin (scheme, host or
   * port) changed needs its secret again (an ntfy login, else a 400 naming `destination.token` and nothing changes;
   * the signed webhook gets a new secret, answered once), so no secret ever goes where it was not saved for. A change
   * clears "needs attention".
   */
  async update(input: ChannelUpdate): Promise<{ connection: ChannelConnection; secret?: string }> {
    const { store, vault, log } = this.options;
    const row = await store.channels.get(input.id);
    if (!row) throw fail('NOT_FOUND', `No connection ${input.id}`);
    let settingsText = row.settings;
    let sealed = row.sealedSecret;
    let shown: string | undefined;
    if (input.destination) {
      if (input.destination.kind !== row.kind) throw fieldFail(['destination', 'kind'], `this connection is ${row.kind}; add a new connection for ${input.destination.kind}`);
      const before = parseSettings(row.settings);
      const { settings, secret } = split(input.destination);
      const savedFor = boundTo(row.kind, before);
      const goesTo = boundTo(row.kind, settings);
      if (row.kind === 'ntfy' && settings.auth === 'none' && before.auth !== 'none') {
        if (savedFor !== goesTo) throw fieldFail(['destination', 'token'], `the ntfy login saved goes only to ${savedFor}: give its access token (or user and password) again for ${goesTo}`);
        // The same server (scheme, host and port): the login saved with it stays (the topic is the one given now).
        const { token, username, password } = await this.openSecret(row);
        Object.assign(secret, token !== undefined ? { token } : {}, username !== undefined ? { username, password: password ?? '' } : {});
        settings.auth = before.auth;
      }
      if (row.kind === 'webhook') {
        if (savedFor === goesTo) secret.secret = (await this.openSecret(row)).secret ?? '';
        else secret.secret = shown = newWebhookSecret();
      }
      settingsText = JSON.stringify(settings);
      sealed = vault.seal(sealName(row.id, row.kind, settings), secret);
    }
    const next = { id: row.id, name: input.name ?? row.name, minSeverity: input.minSeverity ?? row.minSeverity, settings: settingsText, sealedSecret: sealed };
    await store.channels.update(next);
    log.info(`chat: connection "${next.name}" (${row.kind}) changed`);
    const saved = { ...row, ...next, attentionAt: null, attention: null };
    return { connection: connectionOf(saved), ...(shown ? { secret: shown } : {}) };
  }

  async remove(id: string): Promise<boolean> {
    return this.options.store.channels.remove(id);
  }

  async get(id: string): Promise<ChannelConnectionRow> {
    const row = await this.options.store.channels.get(id);
    if (!row) throw fail('NOT_FOUND', `No connection ${id}`);
    return row;
  }

  /** A test message to one connection, now; its answer is written on it (a success clears "needs attention"). */
  async test(row: ChannelConnectionRow): Promise<ChannelTestResult> {
    const { clock } = this.options;
    const now = clock.now();
    const message: ChannelMessage = {
      id: `test_${randomUUID()}`,
      kind: 'alert',
      title: 'Test from your founder dashboard',
      body: `This connection works: outages and failed deploys at ${row.minSeverity === 'info' ? 'any severity' : row.minSeverity === 'warning' ? 'warning or error' : 'error'} will reach it.`,
      severity: 'info',
      url: this.options.origin ? `${this.options.origin}/settings/notifications` : null,
      tag: 'dashboard-chat-test',
      project: null,
      at: now,
    };
    const outcome = await this.send(row, message);
    const after = await this.get(row.id);
    const at = new Date(clock.now()).toISOString();
    const said = outcome.kind === 'sent' ? `${kindName[row.kind]} accepted it` : outcome.reason;
    return { outcome: outcome.kind, status: outcome.status, message: said, at, connection: connectionOf(after) };
  }

  /**
   * Sends `message` to a connection through its kind's adapter and writes the answer on it: a success clears "needs
   * attention"; `gone` and `refused` mark it (nothing more is sent until it is fixed); `retry` is a failure for now.
   */
  async send(row: ChannelConnectionRow, message: ChannelMessage): Promise<ChannelOutcome> {
    return this.answered(row, async () => this.sendWith(row, await this.openSecret(row), message));
  }

  /**
   * Posts a message already rendered for the connection's medium (one of the briefing's) through its kind's adapter,
   * with the same secret handling, address checks and pace as `send`, and its answer written on the connection.
   */
  async sendRaw(row: ChannelConnectionRow, raw: RawChannelPayload): Promise<ChannelOutcome> {
    if (raw.kind !== row.kind) return { kind: 'refused', status: null, reason: `A ${raw.kind} message cannot go to a ${row.kind} connection` };
    return this.answered(row, async () => {
      const destination = this.destinationOf(row, await this.openSecret(row));
      switch (raw.kind) {
        case 'slack':
          return this.adapters.slack.sendRaw(destination as SlackDestination, raw.payload);
        case 'discord':
          return this.adapters.discord.sendRaw(destination as DiscordDestination, raw.payload);
        case 'telegram':
          return this.adapters.telegram.sendRaw(destination as TelegramDestination, raw.payload);
        case 'ntfy':
          return this.adapters.ntfy.sendRaw(destination as NtfyDestination, raw.payload);
        case 'webhook':
          return this.adapters.webhook.sendRaw(destination as SignedWebhookDestination, raw.payload);
      }
    });
  }

  /** `sending`'s outcome, written on the connection (see `send`). */
  private async answered(row: ChannelConnectionRow, sending: () => Promise<ChannelOutcome>): Promise<ChannelOutcome> {
    const { store, clock, log } = this.options;
    let outcome: ChannelOutcome;
    try {
      outcome = await sending();
    } catch (error) {
      // Its secret cannot be opened (another credentials key): trying again will not help.
      outcome = { kind: 'refused', status: null, reason: `The connection's secret cannot be opened: ${(error as Error).message}` };
    }
    const now = clock.now();
    switch (outcome.kind) {
      case 'sent':
        await store.channels.succeeded(row.id, now);
        break;
      case 'retry':
        await store.channels.failed(row.id, now, outcome.reason);
        break;
      case 'gone':
      case 'refused':
        await store.channels.attention(row.id, now, outcome.reason);
        log.warn(`chat: "${row.name}" (${row.kind}) needs attention: ${outcome.reason}`);
        break;
    }
    return outcome;
  }

  /**
   * A connection's secret, opened for where its row says it goes. One sealed for its host alone (saved before secrets
   * were bound to an origin) is bound now to the origin saved with it, the one it has been sent to, and stored so.
   */
  private async openSecret(row: ChannelConnectionRow): Promise<Record<string, string>> {
    const { vault, store } = this.options;
    const settings = parseSettings(row.settings);
    const { secret, rebound } = this.openEither(row, settings);
    if (rebound) await store.channels.rebind(row.id, row.sealedSecret, vault.seal(sealName(row.id, row.kind, settings), secret));
    return secret;
  }

  /** A connection's secret, sealed for its origin or (`rebound` true) for its host alone; throws when neither opens. */
  private openEither(row: ChannelConnectionRow, settings: Settings): { secret: Record<string, string>; rebound: boolean } {
    const { vault } = this.options;
    try {
      return { secret: vault.open(sealName(row.id, row.kind, settings), row.sealedSecret), rebound: false };
    } catch (error) {
      const before = hostSealName(row.id, row.kind, settings);
      if (before === undefined) throw error;
      try {
        return { secret: vault.open(before, row.sealedSecret), rebound: true };
      } catch {
        throw error;
      }
    }
  }

  private sendWith(row: ChannelConnectionRow, secret: Record<string, string>, message: ChannelMessage): Promise<ChannelOutcome> {
    const adapter = this.adapters[row.kind] as ChannelAdapter<Destinations[ChannelKind]>;
    return adapter.send(this.destinationOf(row, secret), message);
  }

  /** Where a connection's messages go, as its kind's adapter takes it, from its settings and its opened secret. */
  private destinationOf(row: ChannelConnectionRow, secret: Record<string, string>): Destinations[ChannelKind] {
    const settings = parseSettings(row.settings);
    switch (row.kind) {
      case 'slack':
        return { webhookUrl: this.rebase(secret.webhookUrl ?? '', SLACK_ORIGIN, this.env.CHAT_SLACK_URL) };
      case 'discord':
        return { webhookUrl: this.rebase(secret.webhookUrl ?? '', DISCORD_ORIGIN, this.env.CHAT_DISCORD_URL) };
      case 'telegram':
        return { botToken: secret.botToken ?? '', chatId: settings.chatId ?? '' };
      case 'ntfy': {
        const auth = settings.auth === 'token' ? { token: secret.token ?? '' } : settings.auth === 'login' ? { username: secret.username ?? '', password: secret.password ?? '' } : undefined;
        return { server: settings.server ?? NTFY_SH, topic: secret.topic ?? settings.topic ?? '', auth };
      }
      case 'webhook':
        return { url: secret.url ?? settings.url ?? '', secret: secret.secret ?? '' };
    }
  }

  /** A pasted Slack or Discord URL under the configured root (a proxy, the sandbox), else as it is. */
  private rebase(url: string, origin: string | RegExp, root: string | undefined): string {
    if (!root) return url;
    return url.replace(origin, root.replace(/\/+$/, ''));
  }
}

const kindName: Record<ChannelKind, string> = { slack: 'Slack', discord: 'Discord', telegram: 'Telegram', ntfy: 'The ntfy server', webhook: 'The webhook' };
