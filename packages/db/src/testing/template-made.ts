/** What a migrated template is, as plain data (no imports: the templates and the run's set-up both read it). */

/** A migrated Postgres template, and what a reset of a copy needs of it: plain data, so the run's can be handed to every file. */
export interface PostgresTemplateMade {
  name: string;
  /** How a reset makes `public` again: as the template has it (its owner, comment and grants differ between versions). */
  publicSchema: string[];
  /** The template's catalog signature, and how a copy with that catalog gets the template's rows back. */
  pristine: { signature: string; restore: string };
}

/** A migrated MySQL template, and what a copy and its reset need of it: plain data, so the run's can be handed to every file. */
export interface MysqlTemplateMade {
  name: string;
  /** Its tables, which a copy makes again `like` theirs. */
  tables: string[];
  /** The tables the migrations wrote rows to (their journal, seeds), which a copy and a reset copy. */
  filled: string[];
  /** Its mysqlSignature: a copy whose signature is still this is reset, not dropped. */
  signature: string;
}
