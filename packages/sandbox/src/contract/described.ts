import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen } from '../listen.ts';
import { sandboxServices, type SandboxServiceName } from '../services.ts';
import { descriptionOf } from './descriptions.ts';
import { isExcused } from './exceptions.ts';
import type { SampleMode } from './openapi.ts';

export interface DescribedUpstream {
  /** What a connector is given as its base URL: the origin plus the fake's root path. */
  baseUrl: string;
  /** Each request it answered: `GET /path?query` → status. */
  requests: { request: string; status: number }[];
  close(): Promise<void>;
}

class DescriptionContradiction extends Error {
  constructor(problems: string[]) {
    super(`the answer generated from the description breaks it: ${problems.join('; ')}`);
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/**
 * A stand-in for a provider that knows nothing but its description, as Prism's mock server does: every
 * request is answered with an answer generated from the operation's success schema, with only the
 * required fields (`minimal`), every field and nullable ones null (`maximal`), or every field filled
 * (`full`). What a connector makes of these is what it makes of any answer the real API may give.
 */
export async function startDescribedUpstream(service: SandboxServiceName, mode: SampleMode): Promise<DescribedUpstream> {
  const described = descriptionOf(service);
  if (!described || described.kind === 'body-schema') throw new Error(`${service} has no description of its answers`);
  const requests: DescribedUpstream['requests'] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    let status = 200;
    let body: unknown;
    try {
      if (described.kind === 'openapi') {
        const answer = described.description.sampleAnswer(method, path, mode);
        const problems = answer.problems.map((problem) => `response: ${problem}`).filter((problem) => !isExcused(service, problem));
        // A stand-in that broke the description would prove nothing: say so instead of answering.
        if (problems.length > 0) throw new DescriptionContradiction(problems);
        ({ status, body } = answer);
      } else body = described.description.sampleAnswer(await readJson(req), mode);
    } catch (error) {
      status = error instanceof DescriptionContradiction ? 500 : 404;
      body = { message: (error as Error).message };
    }
    requests.push({ request: `${method} ${path}`, status });
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const server = await listen((req, res) => {
    answer(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: (error as Error).message }));
    });
  });
  return { baseUrl: server.url + basePathOf(service), requests, close: () => server.close() };
}

/** The fake's root path, where connectors point their base URL; read off the fake once, since building one makes its demo data. */
const basePaths = new Map<SandboxServiceName, string>();
function basePathOf(service: SandboxServiceName): string {
  let basePath = basePaths.get(service);
  if (basePath === undefined) {
    basePath = sandboxServices[service](Date.now()).basePath;
    basePaths.set(service, basePath);
  }
  return basePath;
}
