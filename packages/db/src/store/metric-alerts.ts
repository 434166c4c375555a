import type { MetricAlertParams, MetricAlertSeverity, MetricKey } from '@dash/contracts';

/** The change alert rules on the metric history: their rows and their interface. */

/**
 * A change alert rule on the metric history (`metric_alert_rules`): a project's metric held to `params` (a threshold,
 * a change against a comparison period, or its usual band), its alerts sent as `severity` while `enabled`. The id is a
 * UUID, or `default:<project>:<metric>` for the owner's change to a built-in `unusual` rule. Instants are ms UTC.
 */
export interface MetricAlertRuleRow {
  id: string;
  projectSlug: string;
  metric: MetricKey;
  params: MetricAlertParams;
  severity: MetricAlertSeverity;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

/**
 * The change alert rules on the metric history (see MetricAlertRuleRow). A stored rule whose params do not parse as
 * contracts' `MetricAlertParams` is an error naming the rule, never skipped (only the store writes them).
 */
export type MetricAlertsStore = {
  /** One project's rules (undefined: every project's), ordered by project, metric, then createdAt (and id). */
  list(projectSlug?: string): Promise<MetricAlertRuleRow[]>;
  get(id: string): Promise<MetricAlertRuleRow | undefined>;
  /**
   * Writes the rule, or replaces the one of its id (its project, metric, params, severity, enabled and updatedAt;
   * the first put's createdAt stays), in one statement: of processes putting one id at once, one row remains, the
   * last put's. Params that do not parse as `MetricAlertParams` are refused before anything is written.
   */
  put(row: MetricAlertRuleRow): Promise<void>;
  /** False when there was none. */
  remove(id: string): Promise<boolean>;
  /** Removes these projects' rules (a project deleted, the demo removed); answers how many went. */
  removeForProjects(slugs: readonly string[]): Promise<number>;
};
