import type { LayoutServerLoad } from './$types';
import { getCaller } from '$lib/server/app';

export const load: LayoutServerLoad = async () => {
  const api = await getCaller();
  return { demo: await api.demo.status() };
};
