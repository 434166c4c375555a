import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/**
 * The providers' own API descriptions live outside the repository (their licences are not all clear):
 * `../shared/upstream-specs/` beside the checkout, or wherever UPSTREAM_SPECS_DIR points.
 */
export const specsDir: string = process.env.UPSTREAM_SPECS_DIR ?? fileURLToPath(new URL('../../../../../shared/upstream-specs/', import.meta.url));

/** True when the descriptions folder is there; a user's clone usually has none. */
export const specsAvailable: boolean = existsSync(join(specsDir, 'SOURCES.md'));

/** Why the contract checks did not run, in one line; undefined when they can. */
export const specsMissing: string | undefined = specsAvailable
  ? undefined
  : `The providers' API descriptions are not at ${specsDir} (set UPSTREAM_SPECS_DIR): the upstream contract tests are skipped`;

const require = createRequire(import.meta.url);
const pathOf = (file: string) => (file.startsWith('@') ? require.resolve(file) : join(specsDir, file));

export function descriptionFileExists(file: string): boolean {
  try {
    return existsSync(pathOf(file));
  } catch {
    return false;
  }
}

/** A description file from the shared folder, or GitHub's from its npm package; parsed once per process. */
const loaded = new Map<string, unknown>();
export function loadDescription(file: string): unknown {
  let document = loaded.get(file);
  if (document === undefined) {
    const path = pathOf(file);
    const text = readFileSync(path, 'utf8');
    document = /\.ya?ml$/.test(path) ? (parseYaml(text, { maxAliasCount: -1 }) as unknown) : (JSON.parse(text) as unknown);
    loaded.set(file, document);
  }
  return document;
}

export function readText(file: string): string {
  return readFileSync(join(specsDir, file), 'utf8');
}
