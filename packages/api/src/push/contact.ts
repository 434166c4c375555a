import type { PushContact, PushContactSource } from '@dash/contracts';
import type { Store } from '@dash/db';
import type { CredentialVault } from '../credentials/vault.ts';
import type { Logger } from '../logger.ts';
import { vapidSubject, type PushEnvironment } from './vapid-keys.ts';

/**
 * The meta row of the saved address, sealed under its own name as the relay's secret is: out of an export in clear (a
 * read token may download one), restored by an import under the same credentials key, skipped (named) under another.
 */
const META_KEY = 'push.contact';

/** What a push is refused with while no contact can be resolved. */
export const NO_CONTACT =
  'Push services need a contact: save an email address in Settings → Notifications → Devices, or set VAPID_SUBJECT (mailto: or https:), an alert email address or an https ORIGIN';

/**
 * The contact push services may write to about our pushes (RFC 8292's `sub`): VAPID_SUBJECT, else the address the
 * owner saved in Settings, else the first alert address, else an https ORIGIN. Without one every push is refused.
 */
export class PushContacts {
  constructor(
    private readonly options: {
      store: Store;
      vault: CredentialVault;
      env: PushEnvironment;
      log: Logger;
      /** The first alert address. */
      alertAddress: () => Promise<string | undefined>;
      /** The dashboard's public origin, when known. */
      origin: string | undefined;
    },
  ) {}

  /** The address saved in Settings, or undefined (none, or sealed with a key this dashboard does not have). */
  async saved(): Promise<string | undefined> {
    const sealed = await this.options.store.meta.get(META_KEY);
    if (typeof sealed !== 'string') return undefined;
    try {
      return this.options.vault.open(META_KEY, sealed).email || undefined;
    } catch {
      return undefined;
    }
  }

  /** The subject each push is signed with, and where it came from; undefined when there is none. */
  async resolve(): Promise<{ subject: string; source: PushContactSource } | undefined> {
    const { env, origin } = this.options;
    // The saved address and the alert address are read only when the ones before them are absent.
    if (env.VAPID_SUBJECT) return vapidSubject(env, {});
    const saved = await this.saved();
    return vapidSubject(env, { saved, alertAddress: saved ? undefined : await this.options.alertAddress(), origin });
  }

  /** What Settings shows; `owner` false (an API token): whether there is a contact and its source, none of the addresses. */
  async view(owner: boolean): Promise<PushContact> {
    const [saved, alertAddress] = await Promise.all([this.saved(), this.options.alertAddress()]);
    const resolved = vapidSubject(this.options.env, { saved, alertAddress, origin: this.options.origin });
    return {
      configured: resolved !== undefined,
      source: resolved?.source ?? null,
      subject: owner ? (resolved?.subject ?? null) : null,
      saved: owner ? (saved ?? null) : null,
      suggestion: owner ? (alertAddress ?? null) : null,
    };
  }

  /** Saves the owner's address (checked by the input schema), or removes the saved one with null. */
  async save(email: string | null): Promise<void> {
    const { store, vault, log } = this.options;
    await store.meta.put(META_KEY, email === null ? null : vault.seal(META_KEY, { email }));
    // The address stays out of the log: it is the owner's.
    log.info(email === null ? 'push: the contact for push services removed' : 'push: a contact for push services saved');
  }
}
