export * from './errors.ts';
export * from './settings.ts';
export * from './projects.ts';
export * from './credentials.ts';
export * from './data.ts';
export * from './auth.ts';
export * from './notifications.ts';
export * from './quiet-hours.ts';
