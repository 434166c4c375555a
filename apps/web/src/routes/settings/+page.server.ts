import { redirect } from '@sveltejs/kit';
import type { PageServerLoad } from './$types';
import { firstSettingsSection, settingsPath } from '$lib/settings-sections';

/**
 * /settings opens the first section, with its query. A browser's request is redirected (the browser keeps any
 * `#anchor` of an old one-page link, and the layout takes it on to its page). SvelteKit's own navigation drops the
 * fragment when it follows a redirect, so it is answered here and the layout reads the fragment in the browser.
 */
export const load: PageServerLoad = ({ url, isDataRequest }) => {
  if (!isDataRequest) redirect(307, `${settingsPath(firstSettingsSection)}${url.search}`);
};
