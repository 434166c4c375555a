import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { grantedScopes, reachesSearchConsole } from '@dash/connectors';
import { z } from 'zod';
import type { AccessOptions } from '../auth/access.ts';
import { assertKeyMatches } from '../credentials/vault.ts';
import type { Connections } from '../data/connections.ts';
import { fail } from '../errors.ts';
import type { Logger } from '../logger.ts';


/** The command that makes a file this import can use, with Search Console's scope (and your own OAuth client). */
export const GCLOUD_COMMAND =
  'gcloud auth application-default login --client-id-file=client_secret.json --scopes=https://www.googleapis.com/auth/webmasters.readonly,https://www.googleapis.com/auth/cloud-platform';

/** Where the command-line tools keep their files, as the dashboard's environment says (env.ts reads it). */
export interface CliLocations {
  /** The user's home directory. */
  home: string;
  /** Windows' %APPDATA% (gcloud's config lives under it there). */
  appData?: string | undefined;
  CLOUDSDK_CONFIG?: string | undefined;
  GOOGLE_APPLICATION_CREDENTIALS?: string | undefined;
  GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE?: string | undefined;
  GOOGLE_WORKSPACE_CLI_CONFIG_DIR?: string | undefined;
  /** Where the imported login is proved and then used instead of Google's own API (the server's option: the sandbox). */
  googleBaseUrl?: string | undefined;
}

/** Google's `authorized_user` JSON, as gcloud, the Workspace CLI and google-auth write it. */
const authorizedUser = z.object({
  type: z.literal('authorized_user'),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  refresh_token: z.string().min(1),
  account: z.string().optional(),
});

/**
 * The places looked in, in the Workspace CLI's own order (its `auth.rs`): its credentials file variable, its
 * plaintext `credentials.json`, GOOGLE_APPLICATION_CREDENTIALS, then gcloud's application-default credentials.
 */
export function cliPlaces(at: CliLocations): { path: string; what: string }[] {
  const gws = at.GOOGLE_WORKSPACE_CLI_CONFIG_DIR ?? join(at.home, '.config', 'gws');
  const gcloud = at.CLOUDSDK_CONFIG ?? (at.appData ? join(at.appData, 'gcloud') : join(at.home, '.config', 'gcloud'));
  return [
    ...(at.GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE ? [{ path: at.GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE, what: 'GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE' }] : []),
    { path: join(gws, 'credentials.json'), what: 'the Google Workspace CLI (gws auth export)' },
    ...(at.GOOGLE_APPLICATION_CREDENTIALS ? [{ path: at.GOOGLE_APPLICATION_CREDENTIALS, what: 'GOOGLE_APPLICATION_CREDENTIALS' }] : []),
    { path: join(gcloud, 'application_default_credentials.json'), what: "gcloud's application-default login" },
  ];
}

/** What the import uses: whether the dashboard is local, the key check, the Google connection it proves and saves, the log. */
export interface CliImportSources {
  access: { options: Pick<AccessOptions, 'mode'> };
  credentialsKeyMatches: boolean;
  data: { connections: Pick<Connections, 'context' | 'save'> };
  log: Logger;
}

/**
 * POST /api/auth/cli-import: the first file found of `cliPlaces` becomes the Google credential, once one token
 * refresh proved it and showed Search Console's scope among those granted. Reads files only, never runs a command;
 * only on a dashboard bound to loopback (the files are this machine's user's). Nothing is stored on any failure.
 */
export async function importFromCli(ctx: CliImportSources, at: CliLocations | undefined): Promise<{ imported: true; source: string; account: string | null }> {
  if (ctx.access.options.mode !== 'local' || !at) {
    throw fail('FORBIDDEN', 'Importing from gcloud reads files of the computer the dashboard runs on: only a dashboard on 127.0.0.1 (a local one) offers it.');
  }
  assertKeyMatches(ctx);
  const places = cliPlaces(at);
  let found: { path: string; what: string; text: string } | undefined;
  for (const place of places) {
    try {
      found = { ...place, text: await readFile(place.path, 'utf8') };
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') {
        throw fail('BAD_REQUEST', `${place.path} (${place.what}) could not be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
      }
    }
  }
  if (!found) {
    throw fail('NOT_FOUND', `No Google credentials on this computer. Looked in: ${places.map((place) => place.path).join(', ')}. Create them with: ${GCLOUD_COMMAND}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(found.text);
  } catch {
    throw fail('BAD_REQUEST', `${found.path} (${found.what}) is not JSON`);
  }
  const type = typeof json === 'object' && json !== null && 'type' in json ? String((json).type) : 'unknown';
  const parsed = authorizedUser.safeParse(json);
  if (!parsed.success) {
    throw fail(
      'BAD_REQUEST',
      type === 'authorized_user'
        ? `${found.path} (${found.what}) lacks its client_id, client_secret or refresh_token`
        : `${found.path} (${found.what}) holds "${type}" credentials, not a user's (authorized_user): a service account cannot be imported here. Create a user's with: ${GCLOUD_COMMAND}`,
    );
  }
  const values = { clientId: parsed.data.client_id, clientSecret: parsed.data.client_secret, refreshToken: parsed.data.refresh_token };
  // The login on this computer goes only to Google (or the server's own googleBaseUrl): never to a base URL saved
  // with a Google credential, which an API client may have set, and the saved credential is bound to that host.
  const baseUrl = at.googleBaseUrl;
  const imported = { ...values, ...(baseUrl ? { baseUrl } : {}) };
  const upstream = await ctx.data.connections.context('google', 'google', { values: imported });
  let scopes: string[];
  try {
    scopes = await grantedScopes(upstream);
  } catch (error) {
    throw fail('BAD_REQUEST', `Google refused the refresh token from ${found.path}: ${(error as Error).message}`);
  }
  if (!reachesSearchConsole(scopes)) {
    throw fail(
      'BAD_REQUEST',
      `The token in ${found.path} works but does not reach Search Console (it was granted ${scopes.join(', ') || 'no scope it names'}). Log in again with Search Console's scope: ${GCLOUD_COMMAND}`,
    );
  }
  await ctx.data.connections.save('google', imported);
  ctx.log.info(`credentials: Google imported from ${found.path}`);
  return { imported: true, source: found.path, account: parsed.data.account || null };
}
