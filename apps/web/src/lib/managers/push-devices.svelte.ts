import type { PushContact, PushDevice, PushTestResult } from '@dash/contracts';
import { FormState } from '$lib/managers/form.svelte';
import { api } from '$lib/services/trpc';
import { describeError } from '$lib/utils/errors';

/**
 * Whether this browser can be notified by push, or why not: `insecure` (push needs https or localhost), `home-screen`
 * (iOS and iPadOS Safari have Web Push only in an app added to the Home Screen), `unsupported` (no Push API at all).
 */
export type PushSupport = 'ready' | 'insecure' | 'home-screen' | 'unsupported';

/** How long the browser's push service may take to subscribe: a browser that cannot reach its own (offline, blocked) never answers. */
export const SUBSCRIBE_TIMEOUT_MS = 30_000;

/**
 * What "Notify this device" says, instead of asking for the permission or subscribing, while push services have no
 * contact: the dashboard would subscribe the device and then have every push refused.
 */
export const NEEDS_CONTACT = 'Push services need a contact first: save your email address under “Contact for push services” above, then notify this device.';

/** Which device of the list this browser is: the id the dashboard gave its subscription's endpoint (never a secret). */
const THIS_DEVICE_KEY = 'dashboard:push-device';

/** An iPhone or iPad (iPadOS says it is a Mac, but one with a touch screen). */
function isAppleMobile(): boolean {
  return /iPad|iPhone|iPod/.test(navigator.userAgent) || (/Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1);
}

function readSupport(): PushSupport {
  if (!window.isSecureContext) return 'insecure';
  if ('serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window) return 'ready';
  return isAppleMobile() ? 'home-screen' : 'unsupported';
}

/** "Chrome on Android"-like, for a new device's name; the user can change it. */
export function defaultDeviceName(agent = navigator.userAgent): string {
  const browser = /Edg/.test(agent) ? 'Edge' : /Firefox|FxiOS/.test(agent) ? 'Firefox' : /Chrom(e|ium)|CriOS/.test(agent) ? 'Chrome' : /Safari/.test(agent) ? 'Safari' : 'Browser';
  const system = /Android/.test(agent)
    ? 'Android'
    : /iPhone/.test(agent)
      ? 'iPhone'
      : /iPad/.test(agent) || (/Macintosh/.test(agent) && navigator.maxTouchPoints > 1)
        ? 'iPad'
        : /Mac OS X/.test(agent)
          ? 'Mac'
          : /Windows/.test(agent)
            ? 'Windows'
            : /CrOS/.test(agent)
              ? 'Chromebook'
              : /Linux/.test(agent)
                ? 'Linux'
                : undefined;
  return system ? `${browser} on ${system}` : browser;
}

/** The VAPID key as `applicationServerKey` takes it: base64url to bytes. */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function rememberThisDevice(record: { id: string; endpoint: string } | undefined) {
  try {
    if (record) localStorage.setItem(THIS_DEVICE_KEY, JSON.stringify(record));
    else localStorage.removeItem(THIS_DEVICE_KEY);
  } catch {
    // Storage blocked: the list just cannot say which device is this one.
  }
}

function rememberedDevice(): { id: string; endpoint: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(THIS_DEVICE_KEY) ?? 'null');
    if (typeof parsed === 'object' && parsed !== null && 'id' in parsed && 'endpoint' in parsed && typeof parsed.id === 'string' && typeof parsed.endpoint === 'string') {
      return { id: parsed.id, endpoint: parsed.endpoint };
    }
  } catch {
    // Nothing readable: unknown.
  }
  return undefined;
}

/**
 * Settings → Notifications → Devices: this browser's push subscription and the dashboard's list of devices. The
 * permission is asked only from `subscribe`, which a click calls.
 */
export class PushDevices {
  /** `onchange`: told after the devices were read again (one subscribed or removed opens or closes the push channel). */
  constructor(private readonly onchange: (devices: readonly PushDevice[]) => void = () => {}) {}

  support = $state<PushSupport>('ready');
  permission = $state<NotificationPermission>('default');
  devices = $state<PushDevice[] | undefined>();
  /** The list could not be loaded: the server's message. */
  loadError = $state<string | undefined>();
  /** The endpoint of this browser's current subscription, if it has one. */
  endpoint = $state<string | null>(null);
  /** The device (by id) that is this browser, when its subscription is the one the dashboard has. */
  thisDevice = $state<string | undefined>();
  readonly subscribeForm = new FormState();
  /** Whether push services have a contact and where it comes from; undefined until read (or when the read failed). */
  contact = $state<PushContact | undefined>();
  readonly contactForm = new FormState();
  /** Per device: its "Send a test" and "Remove" state, and the test's results. */
  readonly forms: Record<string, FormState> = {};
  results = $state<Record<string, PushTestResult[]>>({});

  formOf(id: string): FormState {
    return (this.forms[id] ??= new FormState());
  }

  /** Reads what the browser allows (never asks), this browser's subscription, the devices and the contact. */
  async start(): Promise<void> {
    this.support = readSupport();
    const contact = this.loadContact();
    if (this.support === 'ready') {
      this.permission = Notification.permission;
      await this.readSubscription();
    }
    await Promise.all([this.load(), contact]);
  }

  /** Until a contact can be resolved, "Notify this device" says so instead of subscribing. */
  get needsContact(): boolean {
    return this.contact?.configured === false;
  }

  async loadContact(): Promise<void> {
    try {
      this.contact = await api.push.contact.query();
    } catch {
      // Unknown: the device list says why the server did not answer, and "Notify this device" asks again.
    }
  }

  /** Saves the owner's address as push services' contact; an empty field removes the saved one. */
  async saveContact(email: string): Promise<boolean> {
    return this.contactForm.submit(async () => {
      const trimmed = email.trim();
      const had = this.contact === undefined || this.contact.saved !== null;
      this.contact = await api.push.saveContact.mutate({ email: trimmed === '' ? null : trimmed });
      if (this.subscribeForm.error === NEEDS_CONTACT && this.contact.configured) this.subscribeForm.error = undefined;
      if (trimmed === '' && !had) return this.contact.configured ? undefined : 'No address saved: enter yours to save it.';
      if (trimmed === '') return this.contact.configured ? 'The saved address was removed.' : 'The saved address was removed: push services have no contact now.';
      return this.contact.source === 'env' ? 'Saved. VAPID_SUBJECT is what push services get while it is set.' : 'Saved: push services can reach you, and devices can be notified.';
    });
  }

  async load(): Promise<void> {
    try {
      this.devices = (await api.push.list.query()).devices;
      this.loadError = undefined;
      this.onchange(this.devices);
    } catch (error) {
      this.loadError = describeError(error).message;
    }
  }

  private async registration(): Promise<ServiceWorkerRegistration> {
    return withTimeout(navigator.serviceWorker.ready, SUBSCRIBE_TIMEOUT_MS, 'The dashboard’s service worker did not start; reload the page and try again.');
  }

  private async readSubscription(): Promise<void> {
    try {
      // Only a page the worker already controls: `ready` waits forever where the worker never installs.
      const registration = await navigator.serviceWorker.getRegistration();
      this.endpoint = (await registration?.pushManager.getSubscription())?.endpoint ?? null;
    } catch {
      this.endpoint = null;
    }
    const remembered = rememberedDevice();
    this.thisDevice = remembered && remembered.endpoint === this.endpoint ? remembered.id : undefined;
  }

  /**
   * "Notify this device": the permission (asked now, on the click), a subscription at the browser's push service with
   * the dashboard's key, and the dashboard told of it (with the owner's password, once one is set).
   */
  async subscribe(name: string, password: string | undefined): Promise<boolean> {
    return this.subscribeForm.submit(async () => {
      // Before the browser is asked anything: with no contact, every push to the device would be refused.
      if (this.contact === undefined) await this.loadContact();
      if (this.needsContact) throw new Error(NEEDS_CONTACT);
      this.permission = await Notification.requestPermission();
      if (this.permission !== 'granted') throw new Error(this.permission === 'denied' ? 'Notifications are blocked for this site.' : 'Notifications were not allowed.');
      const registration = await this.registration();
      const { publicKey } = await api.push.key.query();
      const subscription = await withTimeout(this.subscribeAt(registration, keyBytes(publicKey)), SUBSCRIBE_TIMEOUT_MS, 'The browser’s push service did not answer: is this device online? Try again in a moment.');
      const json = subscription.toJSON();
      const device = await api.push.subscribe.mutate({
        endpoint: json.endpoint ?? subscription.endpoint,
        expirationTime: json.expirationTime ?? null,
        keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
        name,
        ...(password === undefined ? {} : { password }),
      });
      rememberThisDevice({ id: device.id, endpoint: subscription.endpoint });
      this.endpoint = subscription.endpoint;
      this.thisDevice = device.id;
      await this.load();
      return `“${device.name}” gets notifications now. Send it a test below.`;
    });
  }

  private async subscribeAt(registration: ServiceWorkerRegistration, key: Uint8Array<ArrayBuffer>): Promise<PushSubscription> {
    const options = { userVisibleOnly: true, applicationServerKey: key };
    try {
      return await registration.pushManager.subscribe(options);
    } catch (error) {
      // Subscribed before with another key (the dashboard's keys were replaced): that subscription goes, a new one comes.
      const old = error instanceof DOMException && error.name === 'InvalidStateError' ? await registration.pushManager.getSubscription() : null;
      if (!old) throw new Error(`The browser did not subscribe: ${error instanceof Error ? error.message : String(error)}. A private window cannot receive push.`);
      await old.unsubscribe();
      return registration.pushManager.subscribe(options);
    }
  }

  /** A test push to one device; each result's message, or why none was sent (one test a minute: when to try again). */
  async test(device: PushDevice): Promise<void> {
    const form = this.formOf(device.id);
    this.results = { ...this.results, [device.id]: [] };
    await form.submit(async () => {
      const { results } = await api.push.test.mutate({ id: device.id });
      this.results = { ...this.results, [device.id]: results };
      return undefined;
    });
    await this.load();
  }

  /** Removes a device; this browser's own subscription goes with it, so the push service forgets it too. */
  async remove(device: PushDevice): Promise<void> {
    const removed = await this.formOf(device.id).submit(async () => {
      await api.push.remove.mutate({ id: device.id });
      if (device.id === this.thisDevice) {
        const registration = await navigator.serviceWorker.getRegistration();
        await (await registration?.pushManager.getSubscription())?.unsubscribe();
        rememberThisDevice(undefined);
        this.thisDevice = undefined;
        this.endpoint = null;
      }
      return undefined;
    });
    if (removed) await this.load();
  }
}
