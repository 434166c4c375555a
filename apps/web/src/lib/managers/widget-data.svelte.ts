import { untrack } from 'svelte';
import type { DataMeta, DataResult, NotConfigured } from '@dash/contracts';
import type { FirstAnswer, Outcome } from '$lib/first-render';
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
    const answer = (async (): Promise<Outcome<DataResult<T>>> => {
      try {
        return { result: await this.query(refresh) };
      } catch (error) {
        return { error: describeError(error).message };
      }
    })();
    await this.settle(refresh, answer);
  }

  /** The first render's answer, streamed by the server after the HTML: taken as this widget's own request. */
  async adopt(answer: Promise<Outcome<DataResult<T>>>) {
    await this.settle(false, answer);
  }

  /** Shows an answer: its data (or "not configured") and freshness, or its error over whatever is still on screen. */
  show(outcome: Outcome<DataResult<T>>) {
    if ('error' in outcome) {
      this.error = outcome.error;
    } else {
      const { data, meta } = outcome.result;
      if (typeof data === 'object' && data !== null && 'configured' in data && data.configured === false) {
        this.notConfigured = data;
        this.value = undefined;
      } else {
        this.value = data as T;
        this.notConfigured = undefined;
      }
      this.meta = meta;
      this.error = undefined;
    }
    this.loading = false;
    this.refreshing = false;
  }

  /** Waits for an answer to show, unless a newer request was made meanwhile. */
  private async settle(refresh: boolean, answer: Promise<Outcome<DataResult<T>>>) {
    const request = ++this.latest;
    if (this.value === undefined && this.notConfigured === undefined) this.loading = true;
    this.refreshing = refresh;
    const outcome = await answer;
    if (request === this.latest) this.show(outcome);
  }
}

/**
 * A widget's data, loaded at once and again whenever what `inputs` reads changes (the project tab,
 * a range). Call it while a component initialises; only `inputs` is tracked, not what load touches.
 * With `initial`, the server's answer for the first inputs: shown at once when the HTML held it (the
 * server renders it, and hydration asks nothing), awaited when it is streamed; later inputs ask as usual.
 */
export function widgetData<T>(
  query: (refresh: boolean) => Promise<DataResult<T>>,
  inputs: () => unknown,
  initial: () => FirstAnswer<DataResult<T>> | undefined = () => undefined,
): WidgetData<T> {
  const data = new WidgetData(query);
  const first = initial();
  if (first && !('pending' in first)) data.show(first);
  let streamed = first && 'pending' in first ? first.pending : undefined;
  let asked = first !== undefined;
  $effect(() => {
    inputs();
    untrack(() => {
      if (!asked) void data.load();
      else if (streamed) void data.adopt(streamed);
      asked = false;
      streamed = undefined;
    });
  });
  return data;
}
