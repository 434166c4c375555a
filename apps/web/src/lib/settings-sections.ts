/** Settings' pages (`/settings/<id>`), in the side navigation's order; `/settings` opens the first. */
export const settingsSections = [
  { id: 'projects', title: 'Projects' },
  { id: 'connections', title: 'Connections' },
  { id: 'layout', title: 'Layout' },
  { id: 'relay', title: 'Relay' },
  { id: 'webhooks', title: 'Webhooks' },
  { id: 'notifications', title: 'Notifications' },
  { id: 'briefing', title: 'Briefing' },
  { id: 'history', title: 'History' },
  { id: 'metric-alerts', title: 'Change alerts' },
  { id: 'backups', title: 'Refresh & alerts' },
  { id: 'security', title: 'Security' },
  { id: 'database', title: 'Database' },
] as const;

export type SettingsSectionId = (typeof settingsSections)[number]['id'];

export const firstSettingsSection: SettingsSectionId = settingsSections[0].id;

export const settingsPath = (id: SettingsSectionId) => `/settings/${id}`;

/** Anchors inside a section that links of the one-page Settings named (`/settings#devices`, `#chat`, `#project-<slug>`). */
const innerAnchors: [RegExp, SettingsSectionId][] = [
  [/^project-/, 'projects'],
  [/^devices$/, 'notifications'],
  [/^chat$/, 'notifications'],
];

/**
 * The page an anchor of the one-page Settings now lives on (`relay` -> relay, `devices` -> notifications), from a
 * fragment with or without its `#`; undefined for one no page is known to hold.
 */
export function sectionOfAnchor(fragment: string): SettingsSectionId | undefined {
  const anchor = fragment.replace(/^#/, '');
  return settingsSections.find((section) => section.id === anchor)?.id ?? innerAnchors.find(([pattern]) => pattern.test(anchor))?.[1];
}
