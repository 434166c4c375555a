import type { Incident, Monitor } from '@dash/contracts';
import type { DailyValue } from '../connector.ts';
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

/**
 * One day's availability summaries (a monitor each) as that day's `uptime.up_ratio`, the monitors' average availability
 * as a fraction (Better Stack's is a percentage), and `uptime.incidents`, their incidents summed; days oldest first.
 */
export function dailyUptime(summaries: readonly { date: string; availability: number; number_of_incidents: number }[]): DailyValue[] {
  const days = new Map<string, { availability: number; incidents: number; monitors: number }>();
  for (const { date, availability, number_of_incidents } of summaries) {
    const day = days.get(date) ?? { availability: 0, incidents: 0, monitors: 0 };
    day.availability += availability;
    day.incidents += number_of_incidents;
    day.monitors += 1;
    days.set(date, day);
  }
  return [...days.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([date, day]) => [
      { metric: 'uptime.up_ratio' as const, date, value: Math.round((day.availability / day.monitors) * 10_000) / 1_000_000 },
      { metric: 'uptime.incidents' as const, date, value: day.incidents },
    ]);
}
