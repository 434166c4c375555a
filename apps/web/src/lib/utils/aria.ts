/** A form control's aria attributes, spread onto it: invalid and described by its error when the server named it, else by its hint. */
import type { FormState } from '$lib/managers/form.svelte';

/** Invalid, described by `${id}-error`, when there is a message; nothing otherwise. */
export const invalid = (message: string | undefined, id: string) => (message ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` } : {});

/** The control's error when the server named its path in `form`, else its hint (`${id}-hint`) unless `hint` is false. */
export function described(form: FormState, path: string, id: string, hint = true) {
  const error = form.fieldError(path);
  if (error) return invalid(error, id);
  return hint ? { 'aria-describedby': `${id}-hint` } : {};
}
