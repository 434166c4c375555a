import { untrack } from 'svelte';
import type { DataMeta, DataResult, NotConfigured } from '@dash/contracts';
import { describeError } from '$lib/utils/errors';

/**
 * One widget's data: what the procedure answered, whether it is loading, and the error when there is
 * nothing to show. A refresh keeps the current data on screen until the new answer arrives, and an
 * answer to an older request never overwrites a newer one.
 */
export class WidgetData<T> {
  value = $state<T | undefined>();
  notConfigured = $state<NotConfigured | undefined>();
  meta = $state<DataMeta | null>(null);
  error = $state<string | undefined>();
  loading = $state(true);
  refreshing = $state(false);
  private latest = 0;

  constructor(private readonly query: (refresh: boolean) => Promise<DataResult<T>>) {}

  async load({ refresh = false } = {}) {
    const request = ++this.latest;
    if (this.value === undefined && this.notConfigured === undefined) this.loading = true;
    this.refreshing = refresh;
    try {
      const result = await this.query(refresh);
      if (request !== this.latest) return;
      if (typeof result.data === 'object' && result.data !== null && 'configured' in result.data && result.data.configured === false) {
        this.notConfigured = result.data;
        this.value = undefined;
      } else {
        this.value = result.data as T;
        this.notConfigured = undefined;
      }
      this.meta = result.meta;
      this.error = undefined;
    } catch (error) {
      if (request !== this.latest) return;
      this.error = describeError(error).message;
    } finally {
      if (request === this.latest) {
        this.loading = false;
        this.refreshing = false;
      }
    }
  }
}

/**
 * A widget's data, loaded at once and again whenever what `inputs` reads changes (the project tab,
 * a range). Call it while a component initialises; only `inputs` is tracked, not what load touches.
 */
export function widgetData<T>(query: (refresh: boolean) => Promise<DataResult<T>>, inputs: () => unknown): WidgetData<T> {
  const data = new WidgetData(query);
  $effect(() => {
    inputs();
    untrack(() => void data.load());
  });
  return data;
}
