import { isDeepStrictEqual } from 'node:util';
import {
  DEFAULT_FLAP_HOLD_SECONDS,
  defaultQuietHours,
  flapHoldSecondsSchema,
  notificationPreferencesSchema,
  notificationRulesSchema,
  quietHoursSchema,
  saveQuietHoursSchema,
  type NotificationPolicy,
  type PolicyAttention,
  type QuietHoursSettings,
} from '@dash/contracts';
import type { Store } from '@dash/db';
import type { z } from 'zod';
import type { Logger } from '../../logger.ts';

/** What a save may change: each part on its own, the pause apart from the quiet hours' windows. */
export interface PolicyParts {
  preferences?: NotificationPolicy['preferences'];
  rules?: NotificationPolicy['rules'];
  quietHours?: QuietHoursSettings;
  pauseUntil?: string | null;
  flapHoldSeconds?: number;
}

type PartName = keyof PolicyParts;

export const defaultPolicy: NotificationPolicy = { preferences: [], rules: [], quietHours: defaultQuietHours };

const { pauseUntil: _pause, ...defaultWindows } = defaultQuietHours;

/**
 * Where each part of the policy is kept (the store's meta values), the schema it is checked with on the way out, and
 * what applies when nothing valid was ever saved. Beside each value, `<key>.lastValid` keeps the last value of it that
 * fitted, written when a valid value is saved or read.
 */
const parts: { [name in PartName]-?: { key: string; schema: z.ZodType<Required<PolicyParts>[name]>; fallback: Required<PolicyParts>[name] } } = {
  preferences: { key: 'notifications.preferences', schema: notificationPreferencesSchema, fallback: [] },
  rules: { key: 'notifications.rules', schema: notificationRulesSchema, fallback: [] },
  quietHours: { key: 'notifications.quietHours', schema: saveQuietHoursSchema, fallback: defaultWindows },
  pauseUntil: { key: 'notifications.pauseUntil', schema: quietHoursSchema.shape.pauseUntil, fallback: null },
  flapHoldSeconds: { key: 'notifications.flapHoldSeconds', schema: flapHoldSecondsSchema, fallback: DEFAULT_FLAP_HOLD_SECONDS },
};
const names = Object.keys(parts) as PartName[];
const lastValidKey = (name: PartName) => `${parts[name].key}.lastValid`;

/** The policy that applies, and the saved parts that no longer fit (kept as they are until they are fixed or discarded). */
export interface PolicyState {
  policy: NotificationPolicy;
  needsAttention: PolicyAttention[];
}

/**
 * The notification policy as saved (preferences, rules, quiet hours with the pause). Every ingest reads it, so
 * it is kept for `ttlMs` between reads; a save in this process is seen at once, another process's within `ttlMs`.
 *
 * A saved part that no longer fits its schema (an older version's, or edited by hand) is never overwritten by
 * reading it: it stays stored and is reported (`needsAttention`: the field, zod's message, the stored value), and
 * until a valid value is saved the last valid one applies, or the default when there never was one; logged once.
 */
export class PolicySettings {
  private cached: { state: PolicyState; at: number } | undefined;
  /** The broken stored values already logged, so a broken part is logged once, not on every read. */
  private readonly logged = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly log?: Logger,
    private readonly ttlMs = 2_000,
  ) {}

  async get(): Promise<NotificationPolicy> {
    return (await this.state()).policy;
  }

  /** The policy that applies, with what needs the owner's attention. */
  async state(): Promise<PolicyState> {
    const at = this.now();
    if (this.cached && at - this.cached.at < this.ttlMs && at >= this.cached.at) return this.cached.state;
    const read = await Promise.all(names.map((name) => this.part(name)));
    const value = <N extends PartName>(name: N) => read[names.indexOf(name)]?.value as Required<PolicyParts>[N];
    const state: PolicyState = {
      policy: {
        preferences: value('preferences'),
        rules: value('rules'),
        quietHours: { ...value('quietHours'), pauseUntil: value('pauseUntil') },
        flapHoldSeconds: value('flapHoldSeconds'),
      },
      needsAttention: read.flatMap((part) => (part.attention ? [part.attention] : [])),
    };
    this.cached = { state, at };
    return state;
  }

  /** One part as it applies: the stored value when it fits, else the last valid one, else the default. */
  private async part(name: PartName): Promise<{ value: unknown; attention?: PolicyAttention }> {
    const { key, schema, fallback } = parts[name];
    const [stored, lastValid] = await Promise.all([this.store.meta.get(key), this.store.meta.get(lastValidKey(name))]);
    if (stored === undefined || stored === null) return { value: fallback };
    const result = schema.safeParse(stored);
    if (result.success) {
      // Kept for the day this value stops fitting (a value saved before `lastValid` existed, or written by an import).
      if (!isDeepStrictEqual(stored, lastValid)) await this.store.meta.put(lastValidKey(name), stored);
      return { value: result.data };
    }
    const issue = result.error.issues[0];
    const field = [name, ...(issue?.path ?? [])].map(String).join('.');
    const message = issue?.message ?? 'does not fit';
    const previous = lastValid === undefined || lastValid === null ? undefined : schema.safeParse(lastValid);
    const applied = previous?.success ? ('last_valid' as const) : ('default' as const);
    const signature = `${name}\n${JSON.stringify(stored)}`;
    if (!this.logged.has(signature)) {
      this.logged.add(signature);
      this.log?.warn(
        `notifications: the saved ${name} no longer fit (${field}: ${message}); ${applied === 'last_valid' ? 'the last valid ones apply' : 'the defaults apply'} until they are fixed in Settings → Notifications`,
      );
    }
    return { value: previous?.success ? previous.data : fallback, attention: { part: name, field, message, stored: stored as PolicyAttention['stored'], applied } };
  }

  /** Saves the parts given (already validated), each with its last valid copy; answers the whole policy as it now is. */
  async save(changes: PolicyParts): Promise<NotificationPolicy> {
    for (const name of names) {
      const value = changes[name];
      if (value === undefined) continue;
      await this.store.meta.put(parts[name].key, value);
      await this.store.meta.put(lastValidKey(name), value);
    }
    this.cached = undefined;
    return this.get();
  }
}
