import type { LayoutServerLoad } from './$types';
import { callerFor } from '$lib/server/app';

export const load: LayoutServerLoad = async ({ locals }) => {
  // The sign-in pages are shown to nobody in particular: no demo banner, no account menu.
  if (!locals.request.identity) return { demo: { available: false, active: false, projects: [] }, auth: undefined };
  const api = await callerFor(locals.request);
  const [demo, auth] = await Promise.all([api.demo.status(), api.auth.status()]);
  return { demo, auth };
};
