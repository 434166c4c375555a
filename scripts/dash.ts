// A typed command-line client for the dashboard's tRPC endpoint.
//   npm run dash -- settings | projects | project:add <slug> <name> | project:rm <slug> | order <slug>... | credentials
// DASHBOARD_URL picks the dashboard (default http://127.0.0.1:3000); DASHBOARD_TOKEN is an API token
// from Settings → Security (read for the listings, write for changes), sent as a bearer token.
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { pathToFileURL } from 'node:url';
import type { AppRouter } from '@dash/api';

export type DashboardClient = ReturnType<typeof createDashboardClient>;

export function createDashboardClient(baseUrl: string, token?: string) {
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  return createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: new URL('/api/trpc', baseUrl).href, headers, fetch: explained })] });
}

/**
 * The dashboard's guards answer before tRPC does, with the REST error body (`{ error: { code,
 * message } }`); it becomes a tRPC error the client can read, so their message reaches the user.
 */
const explained: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.ok || !response.headers.get('content-type')?.startsWith('application/json')) return response;
  const body = (await response.clone().json()) as { error?: { code?: unknown; message?: unknown } } | unknown[];
  if (Array.isArray(body) || typeof body.error?.message !== 'string') return response;
  const hint = response.status === 401 || body.error.code === 'CROSS_SITE' ? ' Set DASHBOARD_TOKEN to an API token from Settings → Security.' : '';
  const error = { message: `${body.error.message}${hint}`, code: -32600, data: { code: body.error.code, httpStatus: response.status } };
  return new Response(JSON.stringify({ error }), { status: response.status, headers: { 'content-type': 'application/json' } });
};

const usage = `usage: npm run dash -- <command>
  settings                    show the tab order and widget layout
  projects                    list projects in tab order
  project:add <slug> <name>   create a project
  project:rm <slug>           delete a project
  order <slug>...             set the tab order
  credentials                 list the services with stored credentials`;

/** Runs one command; returns the process exit code. */
export async function runCommand(client: DashboardClient, args: string[], print: (line: string) => void): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case 'settings':
        print(JSON.stringify(await client.settings.get.query(), null, 2));
        return 0;
      case 'projects':
        for (const p of (await client.projects.list.query()).projects) print(`${p.slug}\t${p.name}\t${Object.keys(p.integrations).join(',') || '-'}`);
        return 0;
      case 'project:add': {
        const [slug = '', ...name] = rest;
        const project = await client.projects.create.mutate({ slug, name: name.join(' ') });
        print(`created ${project.slug}`);
        return 0;
      }
      case 'project:rm':
        await client.projects.remove.mutate({ slug: rest[0] ?? '' });
        print(`removed ${rest[0]}`);
        return 0;
      case 'order':
        await client.settings.update.mutate({ projectOrder: rest });
        print(`order: ${rest.join(' ')}`);
        return 0;
      case 'credentials':
        for (const key of (await client.credentials.list.query()).connectedKeys) print(key);
        return 0;
      default:
        print(usage);
        return command === undefined || command === 'help' ? 0 : 2;
    }
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    print(`error: ${error.message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = createDashboardClient(process.env.DASHBOARD_URL || 'http://127.0.0.1:3000', process.env.DASHBOARD_TOKEN || undefined);
  process.exitCode = await runCommand(client, process.argv.slice(2), (line) => console.log(line));
}
