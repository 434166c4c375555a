/**
 * Where the keyboard's focus goes after the page changes under it: onto a row, onto what was just added or moved, back
 * to a button a busy state disabled, or onto the first field the server refused.
 */
import { tick } from 'svelte';

/** Focus on an element that is not focusable by itself (a list row), from script only, so the keyboard continues from there. */
export function focusRow(row: HTMLElement | null | undefined): void {
  if (!row) return;
  row.tabIndex = -1;
  row.focus();
}

/** Keyboard users land on what they just added or moved: the element of that id, once the page shows it. */
export async function focusLater(id: string | undefined): Promise<void> {
  await tick();
  if (id) document.getElementById(id)?.focus();
}

/** After a save: the focus on the first field the server refused, else back where it was (the Save button, disabled while busy, drops it). */
export async function refocus(form: HTMLFormElement, from: Element | null, state: { error?: string | undefined }): Promise<void> {
  await tick();
  const refused = state.error ? form.querySelector<HTMLElement>('input[aria-invalid="true"], select[aria-invalid="true"]') : null;
  if (refused) refused.focus();
  else if (from instanceof HTMLElement && from.isConnected && !form.contains(document.activeElement)) from.focus();
}

/** After a save the server refused: the focus on the first field it named, else on the form's message. */
export async function focusRefused(form: HTMLFormElement): Promise<void> {
  await tick();
  const refused = form.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (refused) refused.focus();
  else form.querySelector<HTMLElement>('[role="alert"]')?.focus();
}

/** A button a keyboard user pressed was disabled while busy, which drops the focus: it goes back once it is enabled. */
export async function keepFocus(button: HTMLElement | null, action: () => Promise<unknown>): Promise<void> {
  await action();
  await tick();
  if (button?.isConnected && (document.activeElement === document.body || document.activeElement === null)) button.focus();
}
