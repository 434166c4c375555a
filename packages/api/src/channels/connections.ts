import { randomUUID } from 'node:crypto';
import { type ChannelAdd, type ChannelConnection, type ChannelKind, type ChannelTestResult, type ChannelUpdate } from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { ChannelConnectionRow, Store } from '@dash/db';
import type { CredentialVault } from '../credentials/vault.ts';
import { fail, fieldFail } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { ChannelAdapter, ChannelMessage, ChannelOutcome } from './channel.ts';
import { DiscordAdapter, type DiscordDestination, type DiscordRawPayload } from './discord/index.ts';
import { NTFY_SH, NtfyAdapter, type NtfyDestination, type NtfyRawPayload } from './ntfy/index.ts';
import { SlackAdapter, type SlackDestination, type SlackRawPayload } from './slack/index.ts';
import { TELEGRAM_API, TelegramAdapter, type TelegramDestination, type TelegramRawPayload } from './telegram/index.ts';
import { newWebhookSecret, SignedWebhookAdapter, type SignedWebhookDestination } from './webhook/index.ts';
import { boundTo, connectionOf, hostSealName, parseSettings, sealName, shownSettings, split, targetOf, type Settings } from './stored.ts';

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
