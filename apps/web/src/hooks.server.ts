import type { HandleServerError, ServerInit } from '@sveltejs/kit';
import { getContext } from '$lib/server/app';

/** Opens and migrates the store before the first request, so a bad DATABASE_URL fails at start. */
export const init: ServerInit = async () => {
  await getContext();
};

export const handleError: HandleServerError = ({ error, status, message }) => {
  if (status >= 500) console.error('[dashboard] unhandled error:', error instanceof Error ? error.message : error);
  return { message: status >= 500 ? 'Something went wrong on the server; its log has the details.' : message };
};
