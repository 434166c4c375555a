import type { Store } from '@dash/db';
import type { CredentialVault } from './credentials/vault.ts';

/** Where the api writes what operators should see. Never handed a secret or a request body. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface Context {
  store: Store;
  vault: CredentialVault;
  log: Logger;
  /** False when stored credentials were sealed with another key; writes are refused then. */
  credentialsKeyMatches: boolean;
}
