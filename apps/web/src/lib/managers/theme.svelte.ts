export type ThemeChoice = 'system' | 'light' | 'dark';

export const themeChoices: readonly ThemeChoice[] = ['light', 'system', 'dark'];

/** The localStorage key; the pre-paint script in app.html reads the same one. */
const STORAGE_KEY = 'theme';

/** Light, dark or the system's; remembered in localStorage and applied before paint by app.html. */
export class ThemeManager {
  choice = $state<ThemeChoice>('system');

  constructor() {
    if (typeof localStorage === 'undefined') return;
    try {
      const stored = localStorage.getItem(STORAGE_KEY);
      if (stored === 'light' || stored === 'dark') this.choice = stored;
    } catch {
      // Storage can be blocked; the system theme applies.
    }
  }

  set(choice: ThemeChoice) {
    this.choice = choice;
    if (choice === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = choice;
    try {
      if (choice === 'system') localStorage.removeItem(STORAGE_KEY);
      else localStorage.setItem(STORAGE_KEY, choice);
    } catch {
      // Not remembered, but applied for this page.
    }
  }
}
