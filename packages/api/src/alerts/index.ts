import type { AlertResult, EmailStatus } from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import type { Logger } from '../logger.ts';
import type { CredentialVault } from '../credentials/vault.ts';
import { emailReady, resolveEmail, type EmailConfig, type EmailEnvironment } from './config.ts';
import type { Email } from './render.ts';
import { sendEmail } from './sender.ts';

export { EmailRefusedError } from './sender.ts';
export { customEmail, healthEmail, notificationEmail, type Email, type EmailCaller } from './render.ts';
export type { EmailEnvironment } from './config.ts';

/** Email alerts: where they go (the variables, else a SendGrid credential) and sending one. */
export class Alerts {
  constructor(
    private readonly options: { store: Store; vault: CredentialVault; env: EmailEnvironment; clock: Clock; log: Logger },
  ) {}

  /** Whether email can go out now, cheaply: the notification policy asks on every ingest and tick. */
  ready(): Promise<boolean> {
    return emailReady(this.options.env, this.options.store);
  }

  async status(): Promise<EmailStatus> {
    return (await this.resolve()).status;
  }

  /** The configuration a send would use; undefined when email is not set up. */
  async config(): Promise<EmailConfig | undefined> {
    return (await this.resolve()).config;
  }

  /** `{ configured: false }` when email is not set up; throws EmailRefusedError when SendGrid does not take it. */
  async send(email: Email): Promise<AlertResult> {
    const config = await this.config();
    if (!config) return { configured: false };
    try {
      return { sent: true, ...(await sendEmail(config, email, { clock: this.options.clock })) };
    } catch (error) {
      this.options.log.warn(`email "${email.subject}" not sent: ${(error as Error).message}`);
      throw error;
    }
  }

  private resolve() {
    const { env, store, vault } = this.options;
    return resolveEmail(env, store, vault);
  }
}
