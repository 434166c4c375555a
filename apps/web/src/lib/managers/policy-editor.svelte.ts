import type { ChannelConnection, DryRunResult, NotificationPolicy, NotificationPolicyView, PolicyAttention } from '@dash/contracts';
import { FormState } from '$lib/managers/form.svelte';
import {
  blankRule,
  defaultSample,
  looseRuleDraft,
  loosePreferenceDraft,
  preferenceDraftOf,
  preferenceOf,
  quietDraftOf,
  quietHoursOf,
  ruleDraftOf,
  ruleOf,
  type PreferenceDraft,
  type QuietDraft,
  type RuleDraft,
  type SampleEvent,
} from '$lib/policy-drafts';
import { api } from '$lib/services/trpc';
import { describeError } from '$lib/utils/errors';

/**
 * The Notifications settings as the page edits them: drafts of the quiet hours, the preferences and the
 * rules (lib/policy-drafts.ts shapes them for form controls and back into the API's shapes to save and to
 * preview), the saved view they started from, and the live preview, which asks the server's dry run about
 * a sample event under the unsaved drafts.
 */
export class PolicyEditor {
  /** The policy as last saved (or loaded), with the mutes and whether it is quiet now. */
  view = $state() as NotificationPolicyView;
  quiet = $state() as QuietDraft;
  preferences = $state<PreferenceDraft[]>([]);
  rules = $state<RuleDraft[]>([]);
  sample = $state<SampleEvent>(defaultSample());
  /** The flap hold being edited, in seconds. */
  flapHold = $state(120);

  readonly quietForm = new FormState();
  readonly flapForm = new FormState();
  readonly preferencesForm = new FormState();
  readonly rulesForm = new FormState();
  readonly pauseForm = new FormState();
  readonly mutesForm = new FormState();

  preview = $state<DryRunResult | undefined>();
  previewError = $state<string | undefined>();
  previewBusy = $state(false);
  private previewSeq = 0;
  /** The ready connections as last told (connectionsChanged), to read the policy again only when they change. */
  private connectionsSeen: string | undefined;

  constructor(view: NotificationPolicyView) {
    this.view = view;
    this.quiet = quietDraftOf(view.quietHours);
    this.flapHold = view.flapHoldSeconds;
    this.preferences = view.preferences.map(preferenceDraftOf);
    this.rules = view.rules.map(ruleDraftOf);
  }

  /** The server's view again (another save, a reload): what is not a draft follows it. */
  refresh(view: NotificationPolicyView): void {
    this.view = { ...this.view, mutes: view.mutes, quietNow: view.quietNow, email: view.email, push: view.push, chat: view.chat, flapHoldSeconds: view.flapHoldSeconds, quietHours: { ...this.view.quietHours, pauseUntil: view.quietHours.pauseUntil } };
    this.view.needsAttention = view.needsAttention;
  }

  /** The drafts as a policy, for saving and for the dry run. */
  policy(): NotificationPolicy {
    return {
      preferences: this.preferences.map(preferenceOf),
      rules: this.rules.map(ruleOf),
      quietHours: quietHoursOf(this.quiet, this.view.quietHours.pauseUntil),
    };
  }

  async saveQuietHours(): Promise<void> {
    await this.quietForm.submit(async () => {
      // The windows only: the pause is saved on its own, so this save never undoes one set elsewhere.
      const { pauseUntil: _pause, ...windows } = quietHoursOf(this.quiet, null);
      this.view = await api.notifications.saveQuietHours.mutate(windows);
      return this.view.quietHours.enabled ? 'Quiet hours saved: they are on.' : 'Quiet hours saved: they are off.';
    });
  }

  async saveFlapHold(): Promise<void> {
    await this.flapForm.submit(async () => {
      this.view = await api.notifications.saveFlapHold.mutate({ seconds: this.flapHold });
      return this.view.flapHoldSeconds === 0 ? 'Flap hold saved: outages interrupt at once.' : `Flap hold saved: ${this.view.flapHoldSeconds} s.`;
    });
  }

  async savePreferences(): Promise<void> {
    await this.preferencesForm.submit(async () => {
      this.view = await api.notifications.savePreferences.mutate({ preferences: this.preferences.map(preferenceOf) });
      return this.view.preferences.length === 1 ? 'Saved 1 preference.' : `Saved ${this.view.preferences.length} preferences.`;
    });
  }

  /** A device was subscribed or removed: when that opens or closes the push channel, the policy is read again. */
  async devicesChanged(live: number): Promise<void> {
    if (live !== this.view.push.devices) await this.reread();
  }

  /**
   * The chat and webhook connections were read (`ready`: those that can send now, not waiting for a fix): when one was
   * added, removed, renamed, given another floor, fixed or marked "needs attention", the policy is read again, which
   * opens or closes the chat channel and runs the preview again (it names the connections).
   */
  async connectionsChanged(ready: readonly Pick<ChannelConnection, 'id' | 'name' | 'minSeverity'>[]): Promise<void> {
    const seen = JSON.stringify(ready.map(({ id, name, minSeverity }) => [id, name, minSeverity]));
    const before = this.connectionsSeen;
    this.connectionsSeen = seen;
    // The first read: the view loaded with the page already counts them, unless one changed since.
    if (before === undefined ? ready.length !== this.view.chat.connections : seen !== before) await this.reread();
  }

  private async reread(): Promise<void> {
    try {
      this.refresh(await api.notifications.policy.query());
    } catch {
      // The controls keep what they showed; the next load tells.
    }
  }

  async saveRules(): Promise<void> {
    await this.rulesForm.submit(async () => {
      this.view = await api.notifications.saveRules.mutate({ rules: this.rules.map(ruleOf) });
      return this.view.rules.length === 1 ? 'Saved 1 rule.' : `Saved ${this.view.rules.length} rules.`;
    });
  }

  /** Pauses interruptions until `until` (ISO 8601), or resumes them (null). */
  async pause(until: string | null): Promise<void> {
    await this.pauseForm.submit(async () => {
      const view = await api.notifications.pause.mutate({ until });
      this.refresh(view);
      return until === null ? 'Resumed: notifications interrupt again.' : 'Paused.';
    });
  }

  async unmute(subjectKey: string): Promise<void> {
    await this.mutesForm.submit(async () => {
      const { mutes } = await api.notifications.mute.mutate({ subjectKey, until: null });
      this.view = { ...this.view, mutes };
      return 'Unmuted.';
    });
  }

  /** A saved part that no longer fits (kept as saved; meanwhile the last valid one applies), if any. */
  attention(part: PolicyAttention['part']): PolicyAttention | undefined {
    return this.view.needsAttention.find((problem) => problem.part === part);
  }

  /** Loads the saved rules or preferences that no longer fit into the form, as far as it can show them, to fix and save. */
  editStored(part: 'rules' | 'preferences'): void {
    const stored = this.attention(part)?.stored;
    const items: unknown[] = Array.isArray(stored) ? stored : [];
    if (part === 'rules') {
      this.rules = items.map(looseRuleDraft);
      this.rulesForm.fields = {};
    } else {
      this.preferences = items.map(loosePreferenceDraft);
      this.preferencesForm.fields = {};
    }
  }

  /** Discards a saved part that no longer fits: what applies now (the last valid one, or the default) is saved in its place. */
  async discardStored(part: PolicyAttention['part']): Promise<void> {
    switch (part) {
      case 'rules':
        this.rules = this.view.rules.map(ruleDraftOf);
        return this.saveRules();
      case 'preferences':
        this.preferences = this.view.preferences.map(preferenceDraftOf);
        return this.savePreferences();
      case 'quietHours':
        this.quiet = quietDraftOf(this.view.quietHours);
        return this.saveQuietHours();
      case 'pauseUntil': {
        // The pause that applies, unless it is over (the server refuses a pause in the past; over is the same as none).
        const applied = this.view.quietHours.pauseUntil;
        return this.pause(applied !== null && Date.parse(applied) > Date.now() ? applied : null);
      }
      case 'flapHoldSeconds':
        this.flapHold = this.view.flapHoldSeconds;
        return this.saveFlapHold();
      default:
        // Every part has a case: a part added to the contracts without one fails the typecheck here.
        return part satisfies never;
    }
  }

  addRule(): void {
    this.rules.push(blankRule(this.rules.map((rule) => rule.id)));
  }

  moveRule(index: number, by: -1 | 1): void {
    const target = index + by;
    if (target < 0 || target >= this.rules.length) return;
    const rules = [...this.rules];
    [rules[index], rules[target]] = [rules[target] as RuleDraft, rules[index] as RuleDraft];
    this.rules = rules;
  }

  /** The dry run's input for the sample event under the drafts; an error message when the sample itself cannot be sent. */
  previewInput(): { input: Parameters<typeof api.notifications.dryRun.mutate>[0] } | { error: string } {
    const sample = this.sample;
    let payload: Record<string, unknown> | undefined;
    if (sample.payload.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(sample.payload);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'The sample payload is a JSON object, e.g. {"deployment": {"target": "production"}}.' };
        payload = parsed as Record<string, unknown>;
      } catch {
        return { error: 'The sample payload is not valid JSON.' };
      }
    }
    const transition = sample.transition === '' ? null : sample.transition;
    return {
      input: {
        event: {
          integration: sample.integration,
          type: sample.type,
          severity: sample.severity,
          title: sample.title,
          transition,
          // A subject of its own: the preview is about a new thread, not one that is open now.
          subjectKey: transition === null ? null : `preview:${sample.integration}:${sample.project.trim() || '-'}`,
          project: sample.project.trim() === '' ? null : sample.project.trim(),
          ...(payload ? { payload } : {}),
        },
        policy: this.policy(),
      },
    };
  }

  /** Asks the dry run; only the latest answer is kept. */
  async runPreview(request: ReturnType<PolicyEditor['previewInput']>): Promise<void> {
    const seq = ++this.previewSeq;
    if ('error' in request) {
      this.previewError = request.error;
      this.preview = undefined;
      return;
    }
    this.previewBusy = true;
    try {
      const result = await api.notifications.dryRun.mutate(request.input);
      if (seq !== this.previewSeq) return;
      this.preview = result;
      this.previewError = undefined;
    } catch (error) {
      if (seq !== this.previewSeq) return;
      this.preview = undefined;
      this.previewError = describeError(error).message;
    } finally {
      if (seq === this.previewSeq) this.previewBusy = false;
    }
  }
}
