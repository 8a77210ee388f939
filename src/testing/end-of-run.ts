/**
 * Work to do once a test run ends. `bun test` emits no `exit` event (measured: neither `exit`
 * nor `beforeExit` handlers run), so a resource started for the whole process (the shared
 * PostgreSQL cluster) registers its stop here, and the preload `end-of-run-hook.ts` (named in
 * bunfig.toml) runs it after the last test file. Each function runs once.
 */
const pending = new Set<() => void>();

export function atEndOfRun(fn: () => void): void {
  pending.add(fn);
}

export function runEndOfRun(): void {
  for (const fn of [...pending]) {
    pending.delete(fn);
    try {
      fn();
    } catch (err) {
      console.error("cleanup at the end of the test run failed:", err);
    }
  }
}
