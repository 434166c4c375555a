import type { BriefingPeriod, BriefingTrend } from '@dash/contracts';
import { metricOf } from '@dash/contracts/names';

// The briefing page's "against last week" in words and shapes, pure: a trend's value and change, which way it went and
// whether that is good news, and a sparkline's points. The email says the same in packages/api/src/briefing/trend.ts.

const number = (value: number, digits = 2) => new Intl.NumberFormat('en-US', { maximumFractionDigits: digits }).format(value);

/** A trend's value: "$12,340", "1,204", "99.82 %". */
export function valueText(trend: Pick<BriefingTrend, 'unit' | 'currency'>, value: number): string {
  if (trend.unit === 'percent') return `${number(value)} %`;
  if (trend.unit === 'money') {
    const cents = Number.isInteger(value) ? 0 : 2;
    try {
      return new Intl.NumberFormat('en-US', { style: 'currency', currency: trend.currency ?? 'USD', minimumFractionDigits: cents, maximumFractionDigits: cents }).format(value);
    } catch {
      return `${value.toFixed(2)} ${trend.currency ?? ''}`.trim();
    }
  }
  return number(value);
}

/** "+12 %", "−30 %", "±0 %"; a percent metric (uptime) in points ("−0.4 pts"); empty when there is nothing to compare. */
export function changeText(trend: BriefingTrend): string {
  if (trend.unit === 'percent') {
    if (trend.value === null || trend.previous === null) return '';
    const points = Math.round((trend.value - trend.previous) * 100) / 100;
    return points === 0 ? '±0 pts' : `${points > 0 ? '+' : '−'}${number(Math.abs(points))} pts`;
  }
  if (trend.change === null) return '';
  const percent = Math.round(trend.change * 100);
  return percent === 0 ? '±0 %' : `${percent > 0 ? '+' : '−'}${number(Math.abs(percent), 0)} %`;
}

export const directionOf = (trend: BriefingTrend): 'up' | 'down' | 'flat' => {
  const text = changeText(trend);
  return text.startsWith('+') ? 'up' : text.startsWith('−') ? 'down' : 'flat';
};

/** Less is better for these: their rise is the bad news. */
const LOWER_IS_BETTER = new Set<string>(['errors.events', 'bugs.open']);

/** good, bad or neutral (flat, or nothing to compare), for the colour beside the words. */
export function toneOf(trend: BriefingTrend): 'good' | 'bad' | 'neutral' {
  const direction = directionOf(trend);
  if (direction === 'flat') return 'neutral';
  return (direction === 'up') !== LOWER_IS_BETTER.has(trend.metric) ? 'good' : 'bad';
}

export const againstText = (period: BriefingPeriod) => (period === 'week' ? 'the week before' : 'the same day last week');

/** The 7 days a weekly sparkline covers (UTC dates, oldest first), ending on the last complete day. */
export function sparkDays(last: string): string[] {
  const end = Date.parse(`${last}T00:00:00Z`);
  return Array.from({ length: 7 }, (_, i) => new Date(end - (6 - i) * 86_400_000).toISOString().slice(0, 10));
}

const dayText = (day: string) => new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' }).format(Date.parse(`${day}T00:00:00Z`));

/** A sparkline said in words: "Visitors, Thu 19 Nov to Wed 25 Nov: Thu 19 Nov 170, Fri 20 Nov 180, …". */
export function sparkLabel(trend: BriefingTrend, days: readonly string[]): string {
  const values = (trend.spark ?? []).map((value, i) => `${dayText(days[i] ?? '')} ${valueText(trend, value)}`);
  return `${trend.label}, ${dayText(days[0] ?? '')} to ${dayText(days.at(-1) ?? '')}: ${values.join(', ')}`;
}

/**
 * A sparkline's points in a 100 × `height` box: a flow of counts or money from zero, a level (a stock, a share) across
 * what it reached, so a steady MRR is not a flat line at the top.
 */
export function sparkPoints(trend: BriefingTrend, height: number): string {
  const values = trend.spark ?? [];
  if (values.length < 2) return '';
  const fromZero = metricOf(trend.metric)?.kind === 'flow' && trend.unit !== 'percent';
  const low = fromZero ? Math.min(0, ...values) : Math.min(...values);
  const high = fromZero ? Math.max(0, ...values) : Math.max(...values);
  const pad = 2;
  const y = (value: number) => (high === low ? height / 2 : pad + (1 - (value - low) / (high - low)) * (height - 2 * pad));
  return values.map((value, i) => `${Math.round((i / (values.length - 1)) * 1000) / 10},${Math.round(y(value) * 10) / 10}`).join(' ');
}
