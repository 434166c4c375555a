import type { PageServerLoad } from './$types';
import { callerFor } from '$lib/server/app';
import { settingsLoads } from '$lib/server/settings-loads';

export const load: PageServerLoad = async ({ locals }) => settingsLoads['metric-alerts'](await callerFor(locals.request));
