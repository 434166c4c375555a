// How well the `unusual` metric alert finds injected drops and spikes, and how quiet it stays on series with nothing
// injected, against a plain "more than 20 % against the same weekday last week" rule on the same series.
//   node bench/anomaly.mjs [--smoke] [--series=40] [--seed=0]
// Seeded synthetic daily series (mulberry32, fixed seeds), 365 days each, at four sizes (50 to 5,000 a day): a weekly
// profile (weekend days at 55-90 % of a weekday), a trend of -0.1 % to +0.3 % a day, multiplicative log-normal noise of
// 3-8 % (per series) and Poisson noise on top (a count is a count). Into each, events are injected every 18-40 days from
// day 42 on: drops and spikes of 25-60 % (x0.40-0.75 or x1.25-1.60), on one day (60 %), two (20 %) or three (20 %). Each
// series has a clean twin: the same draws, nothing injected. Every series is walked forward day by day with
// packages/api/src/metric-alerts/detect.ts's `walk` (each day judged on the days before it only), and the alerts that
// open from day 35 on are counted:
//   precision: opens within one day of an injected event (its days +-1) / all opens on the injected series;
//   recall: injected events with such an open / all injected events;
//   false opens per 30 days: opens on the clean twins / their days x 30.
// Targets (issue 51), for `unusual` (direction either, the default z): precision >= 0.8, recall >= 0.8, at most one
// alert per metric per 30 days on the clean twins, held from 200 a day up (at 50 a day a 25 % move is within the Poisson
// noise; its figures are printed beside, for what they are). --seed=N walks another set of series, so that a setting
// chosen on the default seeds is checked on others. It prints them per size, for other z values, and for the baseline
// rule; and, on the clean twins with a permanent x0.6 or x1.5 step from day 180, how often each rule opens in the 6
// weeks after (one incident is the aim) and how long the step's incident stays open. A full run takes about 10-15 s.
// --smoke: 2 series a size, the default z only, in about a second; its figures are not to be quoted.
import { tsImport } from 'tsx/esm/api';
import { assertFigures, cliArgs, sayIfSmoke, smoke } from './support.mjs';

const { walk, UNUSUAL_WEEKDAYS, UNUSUAL_MIN_WEEKDAYS, MEDIAN_SHARE_FLOOR, LEVEL_DAYS, LEVEL_MIN_DAYS } = await tsImport('../packages/api/src/metric-alerts/detect.ts', import.meta.url);
const { DEFAULT_UNUSUAL_Z } = await tsImport('../packages/contracts/src/metric-alerts.ts', import.meta.url);
const { metricOf } = await tsImport('../packages/contracts/src/metrics.ts', import.meta.url);

const args = cliArgs();
const SERIES_PER_SIZE = smoke ? 2 : Number(args.series ?? 40);
/** --seed=N: another set of series (seeds N + 1000 × (size index + 1) + i; 0, the default, is the set the docs quote). */
const SEED = Number(args.seed ?? 0);
const SIZES = [50, 200, 1000, 5000];
const DAYS = 365;
/** Opens before this day are the walk's warm-up (the baseline needs 3 weeks; 5 give it a few same weekdays). */
const WARM_UP = 35;
const FIRST_EVENT = 42;
const NOISE = [0.03, 0.08];
const TREND = [-0.001, 0.003];
const WEEKEND = [0.55, 0.9];
const MAGNITUDE = [0.25, 0.6];
const GAP = [18, 40];
/** The clean twins again with a permanent step from this day on (x0.6 on even seeds, x1.5 on odd). */
const STEP_DAY = 180;
const STEPS = [0.6, 1.5];
const STEP_WINDOW = 42;
const Z_SWEEP = smoke ? [] : [2.5, 3, 3.5, 4, 5];
const visitors = metricOf('analytics.visitors');

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const uniform = (random, [low, high]) => low + (high - low) * random();
/** A standard normal (Box-Muller). */
const normal = (random) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
/** A Poisson draw from one uniform (inverse CDF) below a mean of 100, from one normal above (its approximation). */
function poisson(mean, u, z) {
  if (mean >= 100) return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  let k = 0;
  let p = Math.exp(-mean);
  let cumulative = p;
  while (u > cumulative && k < 1000) {
    k++;
    p *= mean / k;
    cumulative += p;
  }
  return k;
}

const start = Date.UTC(2025, 0, 6);
const dateOf = (day) => new Date(start + day * 86_400_000).toISOString().slice(0, 10);
const dayOf = (date) => Math.round((Date.parse(`${date}T00:00:00Z`) - start) / 86_400_000);

/** One seeded series and its clean twin: the same draws, the events multiplied in on the injected one only. */
function generate(seed, size) {
  const random = mulberry32(seed);
  const noise = uniform(random, NOISE);
  const trend = uniform(random, TREND);
  const weekend = uniform(random, WEEKEND);
  const profile = Array.from({ length: 7 }, (_, weekday) => (weekday >= 5 ? weekend : 1) * (1 + 0.1 * (random() - 0.5)));
  const mean = profile.reduce((sum, value) => sum + value, 0) / 7;
  const events = [];
  for (let day = FIRST_EVENT + Math.floor(random() * 10); day < DAYS - 3; day += Math.floor(uniform(random, GAP))) {
    const roll = random();
    const length = roll < 0.6 ? 1 : roll < 0.8 ? 2 : 3;
    const magnitude = uniform(random, MAGNITUDE);
    const spike = random() < 0.5;
    events.push({ start: day, end: day + length - 1, magnitude, spike, factor: spike ? 1 + magnitude : 1 - magnitude });
  }
  const stepFactor = seed % 2 === 0 ? STEPS[0] : STEPS[1];
  const injected = [];
  const clean = [];
  const stepped = [];
  /** What each day is expected to be before its noise: what an oracle knows and no detector does. */
  const expected = [];
  for (let day = 0; day < DAYS; day++) {
    expected.push(size * Math.exp(trend * day) * (profile[day % 7] / mean));
    const level = expected[day] * Math.exp(noise * normal(random) - (noise * noise) / 2);
    const [u, z] = [random(), normal(random)];
    const event = events.find((e) => day >= e.start && day <= e.end);
    clean.push({ date: dateOf(day), value: poisson(level, u, z) });
    injected.push({ date: dateOf(day), value: poisson(level * (event?.factor ?? 1), u, z) });
    stepped.push({ date: dateOf(day), value: poisson(level * (day >= STEP_DAY ? stepFactor : 1), u, z) });
  }
  return { noise, trend, events, injected, clean, stepped, expected };
}

const corpus = SIZES.flatMap((size, s) => Array.from({ length: SERIES_PER_SIZE }, (_, i) => ({ size, ...generate(SEED + 1000 * (s + 1) + i, size) })));

const opensOf = (series, params) => walk(series, params, { metric: visitors }).firings.filter((firing) => firing.verdict === 'open' && dayOf(firing.date) >= WARM_UP);

/**
 * One series' counts from the days something opened on it and how often it opened on its clean twin (and of those,
 * how many above the band): its opens, those near an event, its events found (by size of event), its twin's opens.
 */
function tally(entry, days, falseOpens, falseAbove) {
  const near = (day, e) => day >= e.start - 1 && day <= e.end + 1;
  return {
    size: entry.size,
    opens: days.length,
    matched: days.filter((day) => entry.events.some((e) => near(day, e))).length,
    events: entry.events.map((e) => ({ magnitude: e.magnitude, hit: days.some((day) => near(day, e)) })),
    falseOpens,
    falseAbove,
  };
}

/** One series' counts under a rule. */
function countsOf(params, entry) {
  const twin = opensOf(entry.clean, params);
  const above = twin.filter((firing) => firing.expected?.high !== null && firing.expected?.high !== undefined && firing.value > firing.expected.high);
  return tally(entry, opensOf(entry.injected, params).map((firing) => dayOf(firing.date)), twin.length, above.length);
}

/** The figures of one rule over a set of series' counts. */
function score(counts) {
  const sum = (pick) => counts.reduce((total, c) => total + pick(c), 0);
  const events = counts.flatMap((c) => c.events);
  const opens = sum((c) => c.opens);
  const byMagnitude = { '25-35 %': [0, 0], '35-45 %': [0, 0], '45-60 %': [0, 0] };
  for (const e of events) {
    const bucket = byMagnitude[e.magnitude < 0.35 ? '25-35 %' : e.magnitude < 0.45 ? '35-45 %' : '45-60 %'];
    bucket[0]++;
    if (e.hit) bucket[1]++;
  }
  return {
    precision: opens === 0 ? 0 : sum((c) => c.matched) / opens,
    recall: events.filter((e) => e.hit).length / events.length,
    perMonth: (sum((c) => c.falseOpens) / (counts.length * (DAYS - WARM_UP))) * 30,
    above: sum((c) => c.falseAbove) / Math.max(1, sum((c) => c.falseOpens)),
    opens,
    events: events.length,
    byMagnitude,
  };
}
const countsFor = (params) => corpus.map((entry) => countsOf(params, entry));

const f2 = (value) => value.toFixed(2);
const recallBy = (result) =>
  Object.entries(result.byMagnitude)
    .map(([name, [n, hit]]) => `${name} ${n === 0 ? '-' : f2(hit / n)}`)
    .join(', ');

sayIfSmoke();
const noises = corpus.map((entry) => entry.noise);
console.log(
  `${corpus.length} series (${SERIES_PER_SIZE} at each of ${SIZES.map((size) => size.toLocaleString('en-US')).join(', ')} a day), ${DAYS} days each, and as many clean twins; ` +
    `log-normal noise ${(NOISE[0] * 100).toFixed(0)}-${(NOISE[1] * 100).toFixed(0)} % (mean ${((noises.reduce((a, b) => a + b, 0) / noises.length) * 100).toFixed(1)} %) times Poisson, ` +
    `trend ${TREND[0] * 100} to +${TREND[1] * 100} % a day, weekend at ${Math.round(WEEKEND[0] * 100)}-${Math.round(WEEKEND[1] * 100)} % of a weekday`,
);
const allEvents = corpus.flatMap((entry) => entry.events);
console.log(
  `${allEvents.length} injected events (${allEvents.filter((e) => e.spike).length} spikes, ${allEvents.filter((e) => !e.spike).length} drops; ` +
    `${[1, 2, 3].map((n) => `${allEvents.filter((e) => e.end - e.start + 1 === n).length} of ${n} day${n > 1 ? 's' : ''}`).join(', ')}) of ${MAGNITUDE[0] * 100}-${MAGNITUDE[1] * 100} %, every ${GAP[0]}-${GAP[1]} days from day ${FIRST_EVENT}; opens counted from day ${WARM_UP}, an open within +-1 day of an event's days is a hit`,
);

const unusual = { kind: 'unusual', direction: 'either', z: DEFAULT_UNUSUAL_Z };
const change = { kind: 'change', direction: 'either', percent: 20, compareTo: 'same_weekday' };
const started = performance.now();
const unusualCounts = countsFor(unusual);
const changeCounts = countsFor(change);
const main = score(unusualCounts);
const baseline = score(changeCounts);
const line = (name, r) => `${name}: precision ${f2(r.precision)}, recall ${f2(r.recall)}, false opens per 30 days on clean twins ${f2(r.perMonth)}`;

console.log('\nper size (unusual, default z / change > 20 %):');
for (const size of SIZES) {
  const [u, c] = [score(unusualCounts.filter((c) => c.size === size)), score(changeCounts.filter((c) => c.size === size))];
  console.log(
    `  ${size.toLocaleString('en-US').padStart(5)} a day: precision ${f2(u.precision)} / ${f2(c.precision)}, recall ${f2(u.recall)} / ${f2(c.recall)}, false opens per 30 days ${f2(u.perMonth)} / ${f2(c.perMonth)}`,
  );
}
// 50 a day is Poisson noise of 14 % on its own (and 5.6 % log-normal on top): a 25 % move there is about 1.7 of its
// standard deviations, a 35 % one 2.3, so no band finds most of them without alerting on noise every few days. The
// targets are held on the sizes where a 25 % move can be told from the noise: 200 a day and up.
const big = (c) => c.size >= 200;
const [mainBig, baselineBig] = [score(unusualCounts.filter(big)), score(changeCounts.filter(big))];
console.log(
  `  200 a day and up: precision ${f2(mainBig.precision)} / ${f2(baselineBig.precision)}, recall ${f2(mainBig.recall)} / ${f2(baselineBig.recall)}, false opens per 30 days ${f2(mainBig.perMonth)} / ${f2(baselineBig.perMonth)}`,
);
console.log('  (at 50 a day the Poisson noise alone is 14 %: a 25-35 % move is within 2.5 standard deviations of it, so recall there is low for any z that does not flood)');
if (Z_SWEEP.length > 0) {
  console.log('\nunusual by z (direction either):');
  for (const z of Z_SWEEP) {
    const counts = z === DEFAULT_UNUSUAL_Z ? unusualCounts : countsFor({ ...unusual, z });
    const [r, big] = [score(counts), score(counts.filter((c) => c.size >= 200))];
    console.log(
      `  z ${z.toFixed(1)}: precision ${f2(r.precision)}, recall ${f2(r.recall)} (${recallBy(r)}), false opens per 30 days ${f2(r.perMonth)}; 200 a day and up ${f2(big.precision)}, ${f2(big.recall)}, ${f2(big.perMonth)}`,
    );
  }
}
console.log(`\nfalse opens on the clean twins above the band (the rest below): unusual ${(main.above * 100).toFixed(0)} %, change > 20 % ${(baseline.above * 100).toFixed(0)} %`);
console.log(`recall by size of the event: unusual ${recallBy(main)}; change > 20 % ${recallBy(baseline)}`);
assertFigures({ precision: main.precision, recall: main.recall, perMonth: main.perMonth, 'baseline precision': baseline.precision, 'baseline recall': baseline.recall, 'baseline perMonth': baseline.perMonth });
const meets = (r) => r.precision >= 0.8 && r.recall >= 0.8 && r.perMonth <= 1;
/** After a permanent step: the opens in the 6 weeks from the step (on the stepped series and, for reference, its twin) and how long the step's incident stayed open. */
function afterStep(params) {
  const inWindow = (firing) => firing.verdict === 'open' && dayOf(firing.date) >= STEP_DAY - 1 && dayOf(firing.date) < STEP_DAY + STEP_WINDOW;
  let opens = 0;
  let twinOpens = 0;
  const durations = [];
  for (const entry of corpus) {
    const { firings } = walk(entry.stepped, params, { metric: visitors });
    opens += firings.filter(inWindow).length;
    twinOpens += walk(entry.clean, params, { metric: visitors }).firings.filter(inWindow).length;
    const open = firings.find((firing) => firing.verdict === 'open' && dayOf(firing.date) >= STEP_DAY - 1);
    const resolve = open && firings.find((firing) => firing.verdict === 'resolve' && firing.date > open.date);
    if (open && dayOf(open.date) <= STEP_DAY + 1) durations.push(resolve ? dayOf(resolve.date) - dayOf(open.date) : Infinity);
  }
  durations.sort((a, b) => a - b);
  const median = durations[Math.floor(durations.length / 2)];
  return { opens: opens / corpus.length, twin: twinOpens / corpus.length, median, caught: durations.length / corpus.length };
}
// What no detector can beat: an oracle that knows each day's expected value before its noise and the noise's spread
// (log-normal times Poisson), and opens when the day, or the run of 2 or 3 days ending on it, is further from the
// expected than a threshold in standard deviations (an incident: a flagged day after an unflagged one). A detector
// has to estimate both from the history; the oracle's best is the ceiling at each size. Swept over its threshold,
// it shows what the targets ask at each size: the best recall any threshold gives while precision >= 0.8 and false
// opens <= 1 per 30 days, and the best precision while recall >= 0.8.
function oracleCounts(threshold, entry) {
  const scores = (series) => {
    const z = series.map((point, day) => (Math.log(point.value + 0.5) - Math.log(entry.expected[day])) / Math.sqrt(entry.noise ** 2 + 1 / entry.expected[day]));
    return z.map((_, day) => Math.max(...[1, 2, 3].filter((w) => day - w + 1 >= 0).map((w) => Math.abs(z.slice(day - w + 1, day + 1).reduce((a, b) => a + b, 0)) / Math.sqrt(w))));
  };
  const opens = (series) => {
    const flagged = scores(series).map((score) => score > threshold);
    return flagged.flatMap((flag, day) => (flag && !flagged[day - 1] && day >= WARM_UP ? [day] : []));
  };
  return tally(entry, opens(entry.injected), opens(entry.clean).length, 0);
}
{
  // A smoke run walks one threshold, so that this code runs there too.
  const thresholds = smoke ? [3] : Array.from({ length: 36 }, (_, i) => 1.5 + i * 0.1);
  console.log("\nthe ceiling: an oracle that knows each day's expected value and the noise's spread (no detector does), judging each day and each run of 2-3 days:");
  for (const size of SIZES) {
    const entries = corpus.filter((entry) => entry.size === size);
    const results = thresholds.map((t) => ({ t, ...score(entries.map((entry) => oracleCounts(t, entry))) }));
    const precise = results.filter((r) => r.precision >= 0.8 && r.perMonth <= 1).sort((a, b) => b.recall - a.recall)[0];
    const finding = results.filter((r) => r.recall >= 0.8).sort((a, b) => b.precision - a.precision)[0];
    const ours = score(unusualCounts.filter((c) => c.size === size));
    console.log(
      `  ${size.toLocaleString('en-US').padStart(5)} a day: with precision >= 0.8 and <= 1 false open a month, recall at most ${precise ? `${f2(precise.recall)} (threshold ${precise.t.toFixed(1)})` : '- (no threshold)'}; ` +
        `with recall >= 0.8, precision at most ${finding ? `${f2(finding.precision)} (threshold ${finding.t.toFixed(1)}, ${f2(finding.perMonth)} false opens a month)` : '- (no threshold)'}; unusual: ${f2(ours.precision)}, ${f2(ours.recall)}`,
    );
  }
}
const [stepUnusual, stepChange] = [afterStep(unusual), afterStep(change)];
const stepLine = (r) => `${f2(r.opens)} opens a series in the ${STEP_WINDOW} days from the step (its clean twin ${f2(r.twin)}); the step opened one on ${(r.caught * 100).toFixed(0)} % of them, open a median ${r.median} days`;
console.log(`\npermanent step (x${STEPS[0]} or x${STEPS[1]} from day ${STEP_DAY}, the clean twins): unusual ${stepLine(stepUnusual)}; change > 20 % ${stepLine(stepChange)}`);

console.log(
  `\nunusual, K ${UNUSUAL_WEEKDAYS} (min ${UNUSUAL_MIN_WEEKDAYS}), on the logarithms, the median moved to the level of the last ${LEVEL_DAYS} days in range (at least ${LEVEL_MIN_DAYS}), z ${DEFAULT_UNUSUAL_Z}, scale at least ${MEDIAN_SHARE_FLOOR * 100} % and (a count) 1/sqrt(center); seeds from ${SEED}:`,
);
console.log(`${line('unusual, 200 a day and up', mainBig)} (targets >= 0.8, >= 0.8, <= 1) ${meets(mainBig) ? 'MET' : 'NOT MET'}`);
console.log(`${line('unusual, all sizes with 50 a day', main)} (targets ${meets(main) ? 'met' : 'not met: 50 a day is within its noise, where the oracle above cannot meet them either'})`);
console.log(`${line('change > 20 % against the same weekday', baseline)} (the baseline rule)`);
console.log(`(${main.opens} opens for ${main.events} events; walked in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
