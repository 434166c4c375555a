import { json, type RequestHandler } from '@sveltejs/kit';
import { getContext } from '$lib/server/app';

/** Liveness for load balancers and Docker: the process answers and its store is open. Not the uptime widget's `/api/health`. */
export const GET: RequestHandler = async () => {
  await getContext();
  return json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
};
