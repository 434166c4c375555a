import type { ChannelConnection, ChannelDestination, ChannelKind } from '@dash/contracts';
import type { ChannelConnectionRow } from '@dash/db';
import { z } from 'zod';
import { fieldFail } from '../errors.ts';
import { destinationUrl } from './channel.ts';
import { NTFY_SH } from './ntfy/index.ts';

/**
 * A chat or webhook connection as stored: what is kept in clear and what is sealed (and under which name, so a
 * secret opens only for its row and destination), what an export keeps of it, and how it is shown (its target,
 * never a secret). Pure; the connections' service (connections.ts) seals, opens and sends.
 */

/**
 * What is not secret, stored in clear (`settings`), by kind. What lets someone read or post to a destination is
 * sealed instead: an ntfy topic (on ntfy.sh whoever knows it reads and posts), a webhook's URL (its path and query
 * may be its key), besides the tokens, logins and pasted webhook URLs.
 */
export const settingsSchema = z.object({
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
export type Settings = z.infer<typeof settingsSchema>;

/**
 * Where a connection's secret may go, and so what it is sealed for: the service's own host (Slack, Discord, Telegram,
 * always over https), or the origin (scheme, host and port) of the server or URL saved with it (ntfy, the signed
 * webhook). `https://host` and `http://host`, or another port, are other destinations.
 */
export function boundTo(kind: ChannelKind, settings: Settings): string {
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
export const sealName = (id: string, kind: ChannelKind, settings: Settings) => `channel:${id}:${boundTo(kind, settings)}`;

/**
 * The name an ntfy or signed webhook secret was sealed under before secrets were bound to an origin: its host alone.
 * One still sealed so opens for the origin saved with it (where it has been sent) and is sealed again for it then.
 */
export const hostSealName = (id: string, kind: ChannelKind, settings: Settings) =>
  kind === 'ntfy' ? `channel:${id}:${hostOf(settings.server || NTFY_SH)}` : kind === 'webhook' ? `channel:${id}:${hostOf(settings.url ?? '')}` : undefined;

export const parseSettings = (text: string): Settings => settingsSchema.parse(JSON.parse(text));

const topicStartOf = (topic: string) => `${topic.slice(0, 3)}${topic.length > 3 ? '…' : ''}`;

/** Settings without what connections saved before kept in clear: an ntfy topic's start and a webhook's origin instead. */
export function shownSettings({ topic, url, ...kept }: Settings): Settings {
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
export function split(destination: ChannelDestination): { settings: Settings; secret: Record<string, string> } {
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
export function targetOf(row: ChannelConnectionRow): string {
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
