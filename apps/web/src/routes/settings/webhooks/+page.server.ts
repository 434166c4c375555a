import type { PageServerLoad } from './$types';
import { callerFor } from '$lib/server/app';
import { settingsLoads } from '$lib/server/settings-loads';

// The filters are the URL's query: a change of them is a navigation, which loads the list again (and the back button works).
export const load: PageServerLoad = async ({ locals, url }) => settingsLoads.webhooks(await callerFor(locals.request), url.searchParams);
