/** The metric history: its rows (a project's metric on one day) and its interface. */

/**
 * One value of the metric history (`metric_points`): a project's metric on one day (`YYYY-MM-DD`), in `currency` for
 * money (null otherwise). `late`: taken after its day's time had passed; `source`: the daily snapshot, a provider's
 * series read back, or a CSV import; `takenAt`: when it was read, ms UTC.
 */
export interface MetricPointRow {
  project: string;
  metric: string;
  date: string;
  value: number;
  currency: string | null;
  late: boolean;
  source: 'snapshot' | 'backfill' | 'import';
  takenAt: number;
}

/** The metric history: the dashboard's own memory of each project's numbers, a value per metric and day. */
export type HistoryStore = {
  /**
   * Writes each point in one transaction; a stored point of the same (project, metric, date) is replaced (the later
   * read wins), but one whose value, currency and late flag are the same is left as it is (its source and takenAt
   * too). Of points naming one day twice, the later is the one written (and counted once). Answers how many were
   * new, replaced and unchanged, exactly even while another process puts the same days. A value must be finite.
   */
  put(points: readonly MetricPointRow[]): Promise<{ created: number; updated: number; unchanged: number }>;
  /**
   * One project's (undefined: every project's) metrics (undefined: all of them) from `from` to `to` inclusive,
   * ordered by project, metric, then date.
   */
  read(project: string | undefined, metrics: readonly string[] | undefined, from: string, to: string): Promise<MetricPointRow[]>;
  /** Per project and metric (in that order): how many days are stored, the first and the last. */
  summary(project?: string): Promise<{ project: string; metric: string; points: number; first: string; last: string }[]>;
  /** Rows stored in all. */
  count(): Promise<number>;
  /** Removes these projects' history (a project deleted, the demo removed); answers how many rows went. */
  removeForProjects(slugs: readonly string[]): Promise<number>;
};
