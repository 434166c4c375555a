export type ThemeChoice = 'system' | 'light' | 'dark';

const STORAGE_KEY = 'theme';

/** Light, dark or the system's; remembered in localStorage and applied before paint by app.html. */
export class ThemeManager {
  choice = $state<ThemeChoice>('system');

  constructor() {
    if (typeof localStorage === 'undefined') return;
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored === 'light' || stored === 'dark') this.choice = stored;
  }

  set(choice: ThemeChoice) {
    this.choice = choice;
    if (choice === 'system') {
      localStorage.removeItem(STORAGE_KEY);
      delete document.documentElement.dataset.theme;
    } else {
      localStorage.setItem(STORAGE_KEY, choice);
      document.documentElement.dataset.theme = choice;
    }
  }

  /** system -> light -> dark -> system. */
  cycle() {
    this.set(this.choice === 'system' ? 'light' : this.choice === 'light' ? 'dark' : 'system');
  }
}
