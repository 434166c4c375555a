/** Focus on an element that is not focusable by itself (a list row), from script only, so the keyboard continues from there. */
export function focusRow(row: HTMLElement | null | undefined): void {
  if (!row) return;
  row.tabIndex = -1;
  row.focus();
}
