// The dashboard's service worker, built by SvelteKit from this folder to /service-worker.js and registered by every
// page. It makes the app installable and keeps one thing offline: the offline page. What it caches and answers is
// in $lib/app-cache.ts; each kind of event has its own file here, registered below.
import { build, files, version } from '$service-worker';
import { SIGNED_OUT_MESSAGE, precacheList } from '$lib/app-cache';
import { activate, answer, forgetSignedIn, install } from './offline';
import { onNotificationClick, onPush, openFromNotification } from './push';

const worker = self as unknown as ServiceWorkerGlobalScope;
const assets = precacheList(build, files);
const precached: ReadonlySet<string> = new Set(assets);

// A new version takes over at once: the old one's cache goes on activation, and a tab of the old version that asks
// for one of its files after that gets it from the network, as it would without a worker.
worker.addEventListener('install', (event) => event.waitUntil(install(version, assets).then(() => worker.skipWaiting())));
worker.addEventListener('activate', (event) => event.waitUntil(activate(version).then(() => worker.clients.claim())));
worker.addEventListener('fetch', (event) => answer(event, version, precached, worker.location.origin));
worker.addEventListener('message', (event) => {
  if (event.data === SIGNED_OUT_MESSAGE) event.waitUntil(forgetSignedIn(version));
});

// Web Push (issue 38): a push shows one notification on this device; a click on one opens the dashboard at its thread.
worker.addEventListener('push', (event) => onPush(worker, event));
worker.addEventListener('notificationclick', (event) => onNotificationClick(worker, event));
// What a click does, reachable from DevTools and the browser tests: CDP has no way to click a system notification. Only
// code running in this worker can call it; no page can.
Object.assign(worker, { openFromNotification: (notification: Notification) => openFromNotification(worker, notification) });
