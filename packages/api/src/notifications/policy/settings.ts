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

const { pauseUntil: _pause, ...defaultWindows } = defaultQuietHours;

/**
 * A stored value in an earlier release's shape, turned into today's: `value` fits the part's schema now; `carried` is
 * what the older shape kept inside it that is now a part of its own (moved there unless that part holds something newer).
 */
interface Migrated<T> {
  value: T;
  carried?: Pick<PolicyParts, 'pauseUntil'>;
}

/**
 * Quiet hours as 1b75bb5 stored them until b69cd15: the windows with the pause inside (PUT …/quiet-hours took both,
 * POST …/pause wrote into them). Since b69cd15 the pause is a part of its own, so saving the windows cannot undo it.
 */
const quietHoursWithPause: z.ZodType<Migrated<QuietHoursSettings>> = quietHoursSchema.transform(({ pauseUntil, ...windows }) => ({
  value: windows,
  carried: { pauseUntil },
}));

/**
 * Where each part of the policy is kept (the store's meta values), the schema it is checked with on the way out, what
 * applies when nothing valid was ever saved, and every shape an earlier release stored it in (`legacy`, oldest first,
 * each the exact schema of that shape with the step to today's). Beside each value, `<key>.lastValid` keeps the last
 * value of it that fitted, written when a valid value is saved or read. Preferences and rules (stored since 1b75bb5),
 * the pause (since b69cd15) and the flap hold (since 80fabe1) are still in the shape they were first stored in.
 */
const parts: {
  [name in PartName]-?: {
    key: string;
    schema: z.ZodType<Required<PolicyParts>[name]>;
    fallback: Required<PolicyParts>[name];
    legacy: z.ZodType<Migrated<Required<PolicyParts>[name]>>[];
  };
} = {
  preferences: { key: 'notifications.preferences', schema: notificationPreferencesSchema, fallback: [], legacy: [] },
  rules: { key: 'notifications.rules', schema: notificationRulesSchema, fallback: [], legacy: [] },
  quietHours: { key: 'notifications.quietHours', schema: saveQuietHoursSchema, fallback: defaultWindows, legacy: [quietHoursWithPause] },
  pauseUntil: { key: 'notifications.pauseUntil', schema: quietHoursSchema.shape.pauseUntil, fallback: null, legacy: [] },
  flapHoldSeconds: { key: 'notifications.flapHoldSeconds', schema: flapHoldSecondsSchema, fallback: DEFAULT_FLAP_HOLD_SECONDS, legacy: [] },
};
const names = Object.keys(parts) as PartName[];
/**
 * When the pause now set began (ms UTC), kept beside it (not a setting: a fact of it): a digest names the pause from
 * then, not from the first interruption it held. A pause extended while it runs keeps its start.
 */
const PAUSED_SINCE_KEY = 'notifications.pausedSince';
const lastValidKey = (name: PartName) => `${parts[name].key}.lastValid`;
const absent = (value: unknown) => value === undefined || value === null;

/** A part as the store holds it: the value (undefined when never saved) and its last valid copy. */
interface Saved {
  stored: unknown;
  lastValid: unknown;
}

/** The policy that applies, and the saved parts that no longer fit (kept as they are until they are fixed or discarded). */
export interface PolicyState {
  policy: NotificationPolicy;
  needsAttention: PolicyAttention[];
  /** When the pause set now began (ms UTC); null with no pause, or one set before this was kept. */
  pausedSince: number | null;
}

/**
 * The notification policy as saved (preferences, rules, quiet hours with the pause). Every ingest reads it, so
 * it is kept for `ttlMs` between reads; a save in this process is seen at once, another process's within `ttlMs`.
 *
 * A part saved in an earlier release's shape (each part's `legacy`) is migrated on read and written back in today's.
 * Any other saved part that no longer fits its schema (edited by hand, or a shape nobody knows) is never overwritten
 * by reading it: it stays stored and is reported (`needsAttention`: the field, zod's message, the stored value), and
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
    const [saved, since] = await Promise.all([this.saved().then((stored) => this.migrated(stored)), this.store.meta.get(PAUSED_SINCE_KEY)]);
    const read = await Promise.all(names.map((name) => this.part(name, saved[name])));
    const value = <N extends PartName>(name: N) => read[names.indexOf(name)]?.value as Required<PolicyParts>[N];
    const state: PolicyState = {
      pausedSince: value('pauseUntil') !== null && typeof since === 'number' ? since : null,
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

  /** Every part as stored, with its last valid copy. */
  private async saved(): Promise<Record<PartName, Saved>> {
    const read = await Promise.all(
      names.map(async (name) => {
        const [stored, lastValid] = await Promise.all([this.store.meta.get(parts[name].key), this.store.meta.get(lastValidKey(name))]);
        return [name, { stored, lastValid }] as const;
      }),
    );
    return Object.fromEntries(read) as Record<PartName, Saved>;
  }

  /**
   * The parts stored in an earlier release's shape, turned into today's and written back (with their last valid copy)
   * so this happens once. What an older shape kept inside it that is now a part of its own moves there, unless that
   * part holds something saved since; a pause already over is dropped. A value that fits no known shape is left as it is.
   */
  private async migrated(saved: Record<PartName, Saved>): Promise<Record<PartName, Saved>> {
    const result = { ...saved };
    for (const name of names) {
      const { stored } = saved[name];
      if (absent(stored) || parts[name].schema.safeParse(stored).success) continue;
      const shapes: readonly z.ZodType<Migrated<unknown>>[] = parts[name].legacy;
      const migrated = shapes.map((shape) => shape.safeParse(stored)).find((attempt) => attempt.success)?.data;
      if (!migrated || !parts[name].schema.safeParse(migrated.value).success) continue;
      // What moves out is written first: stopped in between, the older value is still there to migrate again.
      const pause = migrated.carried?.pauseUntil;
      const movesPause = pause !== undefined && pause !== null && result.pauseUntil.stored === undefined && Date.parse(pause) > this.now();
      if (movesPause) {
        await this.store.meta.put(parts.pauseUntil.key, pause);
        await this.store.meta.put(lastValidKey('pauseUntil'), pause);
        result.pauseUntil = { stored: pause, lastValid: pause };
      }
      await this.store.meta.put(parts[name].key, migrated.value);
      await this.store.meta.put(lastValidKey(name), migrated.value);
      result[name] = { stored: migrated.value, lastValid: migrated.value };
      this.log?.info(`notifications: the saved ${name} was in an earlier version's shape, now today's${movesPause ? `; its pause (until ${pause}) is kept on its own` : ''}`);
    }
    return result;
  }

  /** One part as it applies: the stored value when it fits, else the last valid one, else the default. */
  private async part(name: PartName, { stored, lastValid }: Saved): Promise<{ value: unknown; attention?: PolicyAttention }> {
    const { schema, fallback } = parts[name];
    if (absent(stored)) return { value: fallback };
    const result = schema.safeParse(stored);
    if (result.success) {
      // Kept for the day this value stops fitting (a value saved before `lastValid` existed, or written by an import).
      if (!isDeepStrictEqual(stored, lastValid)) await this.store.meta.put(lastValidKey(name), stored);
      return { value: result.data };
    }
    const issue = result.error.issues[0];
    const field = [name, ...(issue?.path ?? [])].map(String).join('.');
    const message = issue?.message ?? 'does not fit';
    const previous = absent(lastValid) ? undefined : schema.safeParse(lastValid);
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
    if (changes.pauseUntil !== undefined) {
      const [until, since] = await Promise.all([this.store.meta.get(parts.pauseUntil.key), this.store.meta.get(PAUSED_SINCE_KEY)]);
      const running = typeof until === 'string' && Date.parse(until) > this.now() && typeof since === 'number';
      if (changes.pauseUntil === null) await this.store.meta.put(PAUSED_SINCE_KEY, null);
      else if (!running) await this.store.meta.put(PAUSED_SINCE_KEY, this.now());
    }
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
