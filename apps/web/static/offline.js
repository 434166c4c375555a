// The offline page's script (offline.html): the theme before paint, as app.html applies it; when the dashboard's data
// was last seen, from the time the pages note (LAST_SEEN_KEY in src/lib/app-cache.ts); and a reload once it answers.
(() => {
  /** @returns {string | null} */
  const stored = (/** @type {string} */ key) => {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  };
  const theme = stored('theme');
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;

  /** "less than a minute ago", "5 minutes ago", "yesterday", "3 days ago". */
  const ago = (/** @type {Date} */ then) => {
    const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
    let value = Math.round((then.getTime() - Date.now()) / 60_000);
    if (value === 0) return 'less than a minute ago';
    for (const [size, unit] of /** @type {const} */ ([
      [60, 'minute'],
      [24, 'hour'],
    ])) {
      if (Math.abs(value) < size) return format.format(value, unit);
      value = Math.round(value / size);
    }
    return format.format(value, 'day');
  };

  const show = () => {
    const line = document.getElementById('last-seen');
    const seen = stored('dashboard:last-seen');
    const then = seen === null ? undefined : new Date(seen);
    if (!line || !then || Number.isNaN(then.getTime())) return;
    const time = document.createElement('time');
    time.dateTime = then.toISOString();
    time.textContent = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(then);
    line.replaceChildren('Data last seen ', time, ` (${ago(then)}).`);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show);
  else show();

  // The page that was asked for, once the dashboard answers again: asked when the device says it is back online, and
  // every few seconds (being online is not the same as reaching the dashboard, and the event can come early).
  let asking = false;
  const retry = async () => {
    if (asking) return;
    asking = true;
    try {
      const health = await fetch('/healthz', { cache: 'no-store' });
      if (health.ok) location.reload();
    } catch {
      // Still out of reach.
    } finally {
      asking = false;
    }
  };
  addEventListener('online', () => void retry());
  setInterval(() => void retry(), 5000);
})();
