import type { PageServerLoad } from './$types';
import { getCaller } from '$lib/server/app';

export const load: PageServerLoad = async () => {
  const api = await getCaller();
  const [settings, { projects }, { connectedKeys }] = await Promise.all([api.settings.get(), api.projects.list(), api.credentials.list()]);
  return { settings, projects, connectedKeys };
};
