import type { SandboxReply } from '../service.ts';
import { usdRates } from './currency.ts';
import type { Day, Project } from './projects.ts';
import { error } from './replies.ts';

/** RevenueCat's metrics overview: a project's snapshot of trials, subscriptions, MRR and the last 28 days. */

export function overview(project: Project, currency: string): SandboxReply {
  const rate = usdRates[currency] ?? 1;
  const today = project.days.at(-1);
  if (!today) return error(500, 'server_error', 'No data');
  const last28 = project.days.slice(-29, -1);
  const sum = (pick: (day: Day) => number) => last28.reduce((total, day) => total + pick(day), 0);
  const mrr = today.monthlyActives * project.monthlyPrice + (today.yearlyActives * project.yearlyPrice) / 12;
  // The overview is a cached snapshot: values come truncated to whole units.
  const metric = (id: string, name: string, description: string, unit: string, period: string, value: number) => ({
    object: 'overview_metric',
    id,
    name,
    description,
    unit,
    period,
    value: Math.trunc(value),
    last_updated_at: null,
    last_updated_at_iso8601: null,
  });
  return {
    body: {
      object: 'overview_metrics',
      metrics: [
        metric('active_trials', 'Active Trials', 'In total', '#', 'P0D', today.actives * 0.045),
        metric('active_subscriptions', 'Active Subscriptions', 'In total', '#', 'P0D', today.actives),
        metric('mrr', 'MRR', 'In the last 28 days', '$', 'P28D', mrr * rate),
        metric('revenue', 'Revenue', 'In the last 28 days', '$', 'P28D', sum((day) => day.revenue) * rate),
        metric('new_customers', 'New Customers', 'In the last 28 days', '#', 'P28D', today.actives * 0.52),
        metric('active_users', 'Active Users', 'In the last 28 days', '#', 'P28D', today.actives * 5.1),
        metric('num_tx_last_28_days', 'Transactions', 'In the last 28 days', '#', 'P28D', sum((day) => day.transactions)),
      ],
    },
  };
}
