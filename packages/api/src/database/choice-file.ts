import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { databaseChoiceSchema, databaseProviderSchema, switchDataSchema, type DatabaseChoice, type SwitchData } from '@dash/contracts';
import { z } from 'zod';
import { CredentialsKeyMismatchError, type CredentialVault } from '../credentials/vault.ts';

/**
 * The database chosen in the dashboard, kept beside the credentials key in the data directory rather than in a
 * store (a choice must be readable before any store is open, and must not live in the store it names). Configs are
 * sealed with the credentials key, as credentials are: the file never holds a password or token in clear.
 */
const FILE = 'database.json';

const sealedChoice = z.strictObject({ provider: databaseProviderSchema, sealed: z.string() });
const fileSchema = z.strictObject({
  version: z.literal(1),
  /** What the dashboard switched to last: what it opens at start. Null: the embedded default. */
  serving: sealedChoice.nullable(),
  /** A choice waiting to become `serving` (unreachable, tables missing, copy-or-use not chosen yet). */
  chosen: sealedChoice.extend({ data: switchDataSchema.nullable() }).nullable(),
});

export interface Choices {
  serving: DatabaseChoice | null;
  chosen: (DatabaseChoice & { data: SwitchData | null }) | null;
}

/** The AAD of a sealed config: it cannot be moved to another provider. */
const sealName = (provider: string) => `database:${provider}`;

export class ChoiceFile {
  readonly path: string;

  constructor(
    private readonly dataDir: string,
    private readonly vault: CredentialVault,
  ) {
    this.path = join(dataDir, FILE);
  }

  /** What was chosen; nothing when the file does not exist. Throws when it cannot be read or opened (another key). */
  read(): Choices {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { serving: null, chosen: null };
      throw error;
    }
    const file = fileSchema.parse(JSON.parse(text));
    const open = ({ provider, sealed }: z.infer<typeof sealedChoice>): DatabaseChoice => {
      try {
        return databaseChoiceSchema.parse({ provider, config: this.vault.open(sealName(provider), sealed) });
      } catch (error) {
        if (!(error instanceof CredentialsKeyMismatchError)) throw error;
        throw new Error(
          `${this.path} was saved with another credentials key: start with the CREDENTIALS_KEY it was saved with, ` +
            'or remove the file to start on the embedded database',
        );
      }
    };
    return {
      serving: file.serving && open(file.serving),
      chosen: file.chosen && { ...open(file.chosen), data: file.chosen.data },
    };
  }

  /** Replaces the file at once (a rename), owner-only: a crash leaves the old choice or the new one, never half. */
  write(choices: Choices): void {
    const seal = (choice: DatabaseChoice) => ({
      provider: choice.provider,
      sealed: this.vault.seal(sealName(choice.provider), choice.config),
    });
    const file: z.infer<typeof fileSchema> = {
      version: 1,
      serving: choices.serving && seal(choices.serving),
      chosen: choices.chosen && { ...seal(choices.chosen), data: choices.chosen.data },
    };
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}
