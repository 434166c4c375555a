import type { ChannelConnection, ChannelDestination, ChannelFloor, ChannelKind, ChannelTestResult } from '@dash/contracts';
import { FormState } from '$lib/managers/form.svelte';
import { api } from '$lib/services/trpc';
import { describeError } from '$lib/utils/errors';

/** How the list and the form say a connection's floor. */
export const floorNames: Record<ChannelFloor, string> = { error: 'Errors only', warning: 'Warnings and errors', info: 'Everything' };

/** An ntfy login: none (an open topic; when editing, the saved one stays), an access token, or a user and password. */
export type NtfyLogin = 'none' | 'token' | 'user';

/** Every kind's destination fields as the form holds them (only the chosen kind's are sent). */
export interface DestinationDraft {
  webhookUrl: string;
  botToken: string;
  chatId: string;
  server: string;
  topic: string;
  login: NtfyLogin;
  token: string;
  username: string;
  ntfyPassword: string;
  url: string;
}

export interface ConnectionDraft {
  kind: ChannelKind;
  name: string;
  minSeverity: ChannelFloor;
  destination: DestinationDraft;
}

export const blankDestination = (): DestinationDraft => ({ webhookUrl: '', botToken: '', chatId: '', server: '', topic: '', login: 'none', token: '', username: '', ntfyPassword: '', url: '' });

export const blankConnection = (): ConnectionDraft => ({ kind: 'slack', name: '', minSeverity: 'warning', destination: blankDestination() });

/** The fields of a kind's destination in the draft (for "has the user started a new destination?"). */
const fieldsOf: Record<ChannelKind, (keyof DestinationDraft)[]> = {
  slack: ['webhookUrl'],
  discord: ['webhookUrl'],
  telegram: ['botToken', 'chatId'],
  ntfy: ['server', 'topic', 'token', 'username', 'ntfyPassword'],
  webhook: ['url'],
};

/** Whether any of the kind's destination fields is filled in: editing, only then is a new destination sent. */
export const destinationStarted = (kind: ChannelKind, draft: DestinationDraft): boolean => fieldsOf[kind].some((field) => draft[field] !== '');

/** The API's destination from the form's fields: as typed (the server trims and says what is wrong, by field). */
export function destinationOf(kind: ChannelKind, draft: DestinationDraft): ChannelDestination {
  switch (kind) {
    case 'slack':
    case 'discord':
      return { kind, webhookUrl: draft.webhookUrl };
    case 'telegram':
      return { kind, botToken: draft.botToken, chatId: draft.chatId };
    case 'ntfy': {
      const login = draft.login === 'token' ? { token: draft.token } : draft.login === 'user' ? { username: draft.username, password: draft.ntfyPassword } : {};
      return { kind, ...(draft.server.trim() === '' ? {} : { server: draft.server }), topic: draft.topic, ...login };
    }
    case 'webhook':
      return { kind, url: draft.url };
  }
}

/** A login chosen but left empty: said here, next to its field, in the words the form uses (the server's would be zod's). */
function missingLogin(kind: ChannelKind, draft: DestinationDraft): Record<string, string> {
  if (kind !== 'ntfy') return {};
  if (draft.login === 'token' && draft.token.trim() === '') return { 'destination.token': 'Give the access token, or choose another login' };
  if (draft.login === 'user' && draft.username.trim() === '') return { 'destination.username': 'Give the user, or choose another login' };
  if (draft.login === 'user' && draft.ntfyPassword === '') return { 'destination.password': 'Give the user’s password' };
  return {};
}

/** A signed webhook's signing secret, answered once when it was made: shown with its connection until dismissed. */
export interface ShownSecret {
  id: string;
  name: string;
  secret: string;
}

/**
 * Settings → Notifications → Chat and webhooks: the connections (Slack, Discord, Telegram, ntfy, a signed webhook),
 * adding, changing, testing and removing them. Every change reads the list again and tells `onchange` (the policy's
 * chat channel opens with the first connection that is ready, and the preview names them).
 */
export class ChatConnections {
  constructor(private readonly onchange: (connections: readonly ChannelConnection[]) => void = () => {}) {}

  connections = $state<ChannelConnection[] | undefined>();
  /** The list could not be loaded: the server's message. */
  loadError = $state<string | undefined>();
  readonly addForm = new FormState();
  /** Per connection: its "Send a test", "Remove" and edit state. */
  readonly forms: Record<string, FormState> = {};
  readonly editForms: Record<string, FormState> = {};
  /** Per connection: what the service said to its last test (this page's). */
  results = $state<Record<string, ChannelTestResult>>({});
  /** A signed webhook's new secret, shown once. */
  secret = $state<ShownSecret | undefined>();

  formOf(id: string): FormState {
    return (this.forms[id] ??= new FormState());
  }

  editFormOf(id: string): FormState {
    return (this.editForms[id] ??= new FormState());
  }

  async load(): Promise<void> {
    try {
      this.set((await api.channels.list.query()).connections);
      this.loadError = undefined;
    } catch (error) {
      this.loadError = describeError(error).message;
    }
  }

  private set(connections: ChannelConnection[]): void {
    this.connections = connections;
    this.onchange(connections);
  }

  /** One connection as the server answered it now, in its place in the list. */
  private replace(connection: ChannelConnection): void {
    if (!this.connections) return;
    this.set(this.connections.map((each) => (each.id === connection.id ? connection : each)));
  }

  /** Adds a connection; its id when added (the form keeps everything typed when refused). */
  async add(draft: ConnectionDraft, password: string | undefined): Promise<string | undefined> {
    const missing = missingLogin(draft.kind, draft.destination);
    if (Object.keys(missing).length > 0) {
      this.addForm.success = undefined;
      this.addForm.fields = missing;
      this.addForm.error = 'The connection needs its login.';
      return undefined;
    }
    let added: string | undefined;
    await this.addForm.submit(async () => {
      const saved = await api.channels.add.mutate({
        name: draft.name,
        minSeverity: draft.minSeverity,
        destination: destinationOf(draft.kind, draft.destination),
        ...(password === undefined ? {} : { password }),
      });
      added = saved.connection.id;
      if (saved.secret) this.secret = { id: saved.connection.id, name: saved.connection.name, secret: saved.secret };
      this.set([...(this.connections ?? []).filter((each) => each.id !== saved.connection.id), saved.connection]);
      return `“${saved.connection.name}” added. Send it a test to see it arrive.`;
    });
    return added;
  }

  /** A new name or floor, and a new destination when one was started (the whole of it, secrets included). */
  async update(connection: ChannelConnection, draft: ConnectionDraft, password: string | undefined): Promise<boolean> {
    const form = this.editFormOf(connection.id);
    const changing = destinationStarted(connection.kind, draft.destination);
    const missing = changing ? missingLogin(connection.kind, draft.destination) : {};
    if (Object.keys(missing).length > 0) {
      form.success = undefined;
      form.fields = missing;
      form.error = 'The new destination needs its login.';
      return false;
    }
    const ok = await form.submit(async () => {
      const saved = await api.channels.update.mutate({
        id: connection.id,
        name: draft.name,
        minSeverity: draft.minSeverity,
        ...(changing ? { destination: destinationOf(connection.kind, draft.destination) } : {}),
        ...(password === undefined ? {} : { password }),
      });
      if (saved.secret) this.secret = { id: saved.connection.id, name: saved.connection.name, secret: saved.secret };
      this.replace(saved.connection);
      // A test result from before the change no longer says how it goes.
      const { [connection.id]: _old, ...rest } = this.results;
      this.results = rest;
      return undefined;
    });
    if (ok) this.formOf(connection.id).success = `“${draft.name.trim() || connection.name}” saved.`;
    return ok;
  }

  /** A test message now; what the service said (or our own one-a-minute refusal, as the form's error). */
  async test(connection: ChannelConnection): Promise<void> {
    const form = this.formOf(connection.id);
    const { [connection.id]: _old, ...rest } = this.results;
    this.results = rest;
    await form.submit(async () => {
      const result = await api.channels.test.mutate({ id: connection.id });
      this.results = { ...this.results, [connection.id]: result };
      this.replace(result.connection);
      return undefined;
    });
  }

  async remove(connection: ChannelConnection): Promise<boolean> {
    const removed = await this.formOf(connection.id).submit(async () => {
      await api.channels.remove.mutate({ id: connection.id });
      return undefined;
    });
    if (removed) {
      if (this.secret?.id === connection.id) this.secret = undefined;
      this.set((this.connections ?? []).filter((each) => each.id !== connection.id));
    }
    return removed;
  }
}
