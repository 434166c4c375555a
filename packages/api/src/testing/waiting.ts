/** Waits `ms` of real time: for a test that shows something does *not* happen, or gives a loop time to turn. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, trying every 10 ms for up to `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`Still not so after ${ms} ms: ${check.toString()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
