// The band of an `unusual` rule (detect.ts): the center and scale of a baseline sample of same weekdays. Pure arithmetic.
// docs/metric-alerts.md ("How unusual is decided") says why, with what bench/anomaly.mjs measured.

/** MAD × 1.4826 estimates a normal standard deviation. */
export const MAD_TO_SIGMA = 1.4826;
/** The scale is at least this share of the center's size (a MAD of a quiet stretch is not the noise of every day). */
export const MEDIAN_SHARE_FLOOR = 0.05;
/** A scale is never 0 (after weeks of exactly 0, say, any other value is unusual; the band is not empty). */
export const SCALE_EPSILON = 1e-9;
/**
 * A flow's level: the median, over the last LEVEL_DAYS days that were in range, of each day's value to its own
 * same-weekday median, when at least LEVEL_MIN_DAYS of them are. The median of 8 weeks is the level of about 4 weeks
 * ago: on a metric growing 0.3 % a day it is 10 % low, and most false alerts were above it. The recent days to their
 * own medians say by how much, whatever the weekday. Days out of range (a spike, the first weeks of a step) say nothing
 * of the level: after a step the correction waits, and the step stays one incident until the medians have moved.
 */
export const LEVEL_DAYS = 7;
export const LEVEL_MIN_DAYS = 4;

export const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export interface Band {
  /** The sample's median (before the level correction): what a later day's level is measured against. */
  median: number;
  center: number;
  low: number;
  high: number;
}

/** The level correction is held between the median and the median of this many latest same weekdays. */
export const LEVEL_HOLD_WEEKS = 2;
/**
 * The level correction of a flow, as a factor on the median: the median of the recent ratios (1 with too few of them),
 * held between the median and the last LEVEL_HOLD_WEEKS same weekdays' median (sample[0] is the latest). Without that hold, after a
 * step the weekdays whose medians have moved already were corrected by the ratios of those whose medians had not.
 */
function levelOf(sample: readonly number[], ratios: readonly number[]) {
  const middle = median(sample);
  if (ratios.length < LEVEL_MIN_DAYS || middle === 0) return 1;
  const recent = median(sample.slice(0, LEVEL_HOLD_WEEKS)) / middle;
  return Math.min(Math.max(median(ratios), Math.min(1, recent)), Math.max(1, recent));
}

/**
 * A stock's differences (and a flow with a value ≤ 0 in its sample, or a unit that is not a count or money): median ±
 * z × scale, the scale max(1.4826 × MAD, 5 % of the center, √center for a count, `levelFloor`).
 */
export function linearBandOf(sample: readonly number[], z: number, countLike: boolean, levelFloor: number, ratios: readonly number[] = []): Band {
  const middle = median(sample);
  const level = levelOf(sample, ratios);
  const center = middle * level;
  const mad = median(sample.map((value) => Math.abs(value - middle))) * Math.abs(level);
  const scale = Math.max(MAD_TO_SIGMA * mad, MEDIAN_SHARE_FLOOR * Math.abs(center), countLike ? Math.sqrt(Math.max(Math.abs(center), 1)) : 0, levelFloor, SCALE_EPSILON);
  return { median: middle, center, low: center - z * scale, high: center + z * scale };
}

/**
 * A flow of counts or money, all its sample above 0: the same on the logarithms, so the band is relative and as
 * likely to be left up as down (a day's noise multiplies; a linear band is left 20-100 times more often above than
 * below by log-normal noise of 5-8 %). The scale's floors in log terms: 5 %, and 1/√center for a count (Poisson).
 */
export function logBandOf(sample: readonly number[], z: number, countLike: boolean, ratios: readonly number[]): Band {
  const logs = sample.map(Math.log);
  const middle = median(logs);
  const center = middle + Math.log(levelOf(sample, ratios));
  const mad = median(logs.map((value) => Math.abs(value - middle)));
  const scale = Math.max(MAD_TO_SIGMA * mad, MEDIAN_SHARE_FLOOR, countLike ? 1 / Math.sqrt(Math.max(Math.exp(center), 1)) : 0, SCALE_EPSILON);
  return { median: Math.exp(middle), center: Math.exp(center), low: Math.exp(center - z * scale), high: Math.exp(center + z * scale) };
}
