/**
 * Polls CHECK every 25 ms until it returns a value (anything but undefined, null or false)
 * and returns that value; throws "timed out waiting for WHAT" once MS have passed.
 * The one bounded wait for tests and scripts: use it instead of hand-written sleep loops.
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false | null> | T | undefined | false | null,
  ms = 5_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}
