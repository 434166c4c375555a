import type { NotificationSeverity, WebhookIntegration as RelayIntegration } from '@dash/contracts';

/** Header lookup, case-insensitive (a fetch `Headers` fits). */
export interface HeaderBag {
  get(name: string): string | null;
}

export type Severity = NotificationSeverity;

/** What a provider's parser makes of one real-world event in a delivery. */
export interface ParsedEvent {
  integration: RelayIntegration;
  /** `pr.opened`, `pr.merged`, `deploy.error`, `monitor.down`, … */
  type: string;
  /** Unique per real-world event (repo + PR number + action, deployment id + state, incident id + state…). */
  sourceEventId: string;
  title: string;
  url?: string;
  /** A hint for which dashboard project it belongs to: the repo `owner/name`, the Vercel project, the Sentry project… */
  project?: string;
  repo?: string;
  severity: Severity;
  /** ISO 8601, when it happened upstream (falls back to the delivery's time). */
  occurredAt: string;
  /**
   * The thing whose state changes (a monitor, a deploy target, a Sentry issue), so that an outage and
   * its recovery read as one story; absent for events without state (a merged PR, a new Linear issue).
   */
  subject?: string;
  /** `trigger`: trouble begins for the subject; `resolve`: it is over. */
  transition?: 'trigger' | 'resolve';
  /**
   * What it belongs to, as `<integration>:<id>` keys that a dashboard project's integration settings
   * also produce: `code_host:owner/repo`, `deploy_host:<Vercel project id>`, `error_tracker:<Sentry
   * project slug>`, `issue_tracker:<Linear team id or key>`, `uptime_monitor:<Better Stack monitor id>`.
   */
  refs?: string[];
  /** A small, curated copy of the provider's payload, under the provider's own field names, that notification rules' dot paths read (`deployment.target`). Scalars and short arrays only; never secrets or large bodies. */
  payload?: Record<string, unknown>;
}

/** The webhook an event came in with, for the dashboard's deliveries log (issue 53). */
export interface DeliveryInfo {
  /** The provider's delivery id, or the SHA-256 (hex) of the raw body where it sends none. */
  id: string;
  /** The provider's own name for the kind of webhook (`pull_request`, `issue`, `Issue`), when it says one. */
  kind?: string;
  /** The raw body as text, on the first event of a delivery only, where the receiver forwards bodies. */
  body?: string;
}

/** A stored event: a parsed one plus what the relay adds. */
export interface RelayEvent extends ParsedEvent {
  id: string;
  receivedAt: string;
  /** Absent from relays older than the deliveries log. */
  delivery?: DeliveryInfo;
}

/** What the relay needs before verifying: never fails, whatever the body is. */
export interface DeliveryIdentity {
  /** The provider's delivery id, or the SHA-256 (hex) of the raw body where it sends none. */
  deliveryId: string;
  /** The signed send time in ms since the epoch, where the provider sends one (Sentry, Linear). */
  timestamp?: number;
}

export type ParseResult = { ok: true; events: ParsedEvent[] } | { ok: false; error: string };

export interface WebhookProvider {
  integration: RelayIntegration;
  /** True when one of the secrets verifies the raw body exactly as received. Constant-time. */
  verify(rawBody: Uint8Array, headers: HeaderBag, secrets: readonly string[]): boolean;
  identify(rawBody: Uint8Array, headers: HeaderBag): DeliveryIdentity;
  /** Invalid JSON is `{ ok: false }`, never an empty list; an ignored kind (GitHub `ping`) is `{ ok: true, events: [] }`. */
  parse(rawBody: Uint8Array, headers: HeaderBag, receivedAt: Date): ParseResult;
}
