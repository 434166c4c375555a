import {
  defaultQuietHours,
  notificationPreferencesSchema,
  notificationRulesSchema,
  quietHoursSchema,
  type NotificationPolicy,
  type QuietHoursSettings,
} from '@dash/contracts';
import type { Store } from '@dash/db';
import type { z } from 'zod';

/** Where each part of the policy is kept (the store's meta values). */
const keys = {
  preferences: 'notifications.preferences',
  rules: 'notifications.rules',
  quietHours: 'notifications.quietHours',
  pauseUntil: 'notifications.pauseUntil',
} as const;

/** What a save may change: each part on its own, the pause apart from the quiet hours' windows. */
export interface PolicyParts {
  preferences?: NotificationPolicy['preferences'];
  rules?: NotificationPolicy['rules'];
  quietHours?: QuietHoursSettings;
  pauseUntil?: string | null;
}

export const defaultPolicy: NotificationPolicy = { preferences: [], rules: [], quietHours: defaultQuietHours };

/** A stored part, checked again on the way out: a value that no longer fits (an older version's) gives the default. */
function parsed<T>(schema: z.ZodType<T>, value: unknown, fallback: T): T {
  if (value === undefined || value === null) return fallback;
  const result = schema.safeParse(value);
  return result.success ? result.data : fallback;
}

/**
 * The notification policy as saved (preferences, rules, quiet hours with the pause). Every ingest reads it, so
 * it is kept for `ttlMs` between reads; a save in this process is seen at once, another process's within `ttlMs`.
 */
export class PolicySettings {
  private cached: { policy: NotificationPolicy; at: number } | undefined;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 2_000,
  ) {}

  async get(): Promise<NotificationPolicy> {
    const at = this.now();
    if (this.cached && at - this.cached.at < this.ttlMs && at >= this.cached.at) return this.cached.policy;
    const [preferences, rules, quietHours, pauseUntil] = await Promise.all(
      [keys.preferences, keys.rules, keys.quietHours, keys.pauseUntil].map((key) => this.store.meta.get(key)),
    );
    const windows = typeof quietHours === 'object' && quietHours !== null ? quietHours : defaultPolicy.quietHours;
    const policy: NotificationPolicy = {
      preferences: parsed(notificationPreferencesSchema, preferences, defaultPolicy.preferences),
      rules: parsed(notificationRulesSchema, rules, defaultPolicy.rules),
      quietHours: parsed(quietHoursSchema, { ...windows, pauseUntil: pauseUntil ?? null }, defaultPolicy.quietHours),
    };
    this.cached = { policy, at };
    return policy;
  }

  /** Saves the parts given (already validated); answers the whole policy as it now is. */
  async save(parts: PolicyParts): Promise<NotificationPolicy> {
    for (const name of ['preferences', 'rules', 'quietHours', 'pauseUntil'] as const) {
      if (parts[name] !== undefined) await this.store.meta.put(keys[name], parts[name]);
    }
    this.cached = undefined;
    return this.get();
  }
}
