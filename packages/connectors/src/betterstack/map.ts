import type { Incident, Monitor } from '@dash/contracts';
import type { BetterStackIncident, BetterStackMonitor } from './schemas.ts';

/**
 * Up and down are what they say; maintenance, pending and validating (recovered, still inside the
 * recovery period) are shown as degraded. Paused monitors are left out by the caller.
 */
export function monitorStatusOf(status: BetterStackMonitor['attributes']['status']): Monitor['status'] {
  if (status === 'up' || status === 'down') return status;
  return 'degraded';
}

/** Response times come in seconds per region; the widget shows the newest check, in milliseconds. */
export function latestResponseMs(regions: { response_times: { at: string; response_time: number }[] }[]): number {
  let latest: { at: string; response_time: number } | undefined;
  for (const { response_times } of regions) {
    for (const sample of response_times) if (!latest || sample.at > latest.at) latest = sample;
  }
  return latest ? Math.round(latest.response_time * 1000) : 0;
}

export function toMonitor(monitor: BetterStackMonitor, responseTime: number): Monitor {
  const { attributes } = monitor;
  return {
    name: attributes.pronounceable_name ?? attributes.url,
    url: attributes.url,
    status: monitorStatusOf(attributes.status),
    responseTime,
    lastCheckedAt: attributes.last_checked_at ? new Date(attributes.last_checked_at).toISOString() : null,
  };
}

/** An unresolved incident is `ongoing`, or `acknowledged` once someone has taken it. */
export function toIncident(incident: BetterStackIncident): Incident {
  const { attributes } = incident;
  return {
    name: attributes.cause ? `${attributes.name ?? 'Monitor'}: ${attributes.cause}` : (attributes.name ?? 'Incident'),
    status: attributes.status.toLowerCase() === 'acknowledged' ? 'acknowledged' : 'ongoing',
    startedAt: new Date(attributes.started_at).toISOString(),
    ...(attributes.url ? { url: attributes.url } : {}),
  };
}
