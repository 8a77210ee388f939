import { defineService, type App } from "../app";
import { startCheckpointer, type Checkpointer } from "./checkpointer";

/**
 * Periodic cleanups run by the serving process. Features register theirs with
 * `registerCleanup` (from the listeners or workers wiring.ts installs); the tasks only run
 * once `startHousekeeping` has been called, which happens in serving processes only.
 */
export type CleanupFn = (app: App) => Promise<number | void> | number | void;

export interface CleanupRun {
  name: string;
  ok: boolean;
  /** what the task reported it removed or did (e.g. rows deleted), when it says */
  result?: number;
  error?: string;
  ms: number;
}

interface Task {
  name: string;
  everyMs: number;
  fn: CleanupFn;
  running: Promise<CleanupRun> | null;
  timer: ReturnType<typeof setInterval> | null;
  last: CleanupRun | null;
}

interface Registry {
  tasks: Map<string, Task>;
  started: boolean;
}

const registry = defineService<Registry>("ops:housekeeping", () => ({ tasks: new Map(), started: false }));

const registryOf = (app: App): Registry => app.services.get(registry);

/** Registers a periodic cleanup under a unique name; it runs every `everyMs` once housekeeping starts. */
export function registerCleanup(app: App, name: string, everyMs: number, fn: CleanupFn): void {
  if (!Number.isFinite(everyMs) || everyMs < 1) throw new Error(`cleanup ${name}: everyMs must be a positive number`);
  const reg = registryOf(app);
  if (reg.tasks.has(name)) throw new Error(`cleanup ${name} is registered twice`);
  const task: Task = { name, everyMs, fn, running: null, timer: null, last: null };
  reg.tasks.set(name, task);
  if (reg.started) schedule(app, task);
}

/** Runs one registered cleanup now (a run already under way is awaited, not doubled). */
export function runCleanup(app: App, name: string): Promise<CleanupRun> {
  const task = registryOf(app).tasks.get(name);
  if (!task) throw new Error(`no cleanup named ${name}`);
  task.running ??= (async () => {
    const t0 = performance.now();
    let run: CleanupRun;
    try {
      const result = await task.fn(app);
      run = { name, ok: true, ms: performance.now() - t0, ...(typeof result === "number" ? { result } : {}) };
      app.log.debug("cleanup done", { cleanup: name, result: run.result, ms: Math.round(run.ms) });
    } catch (err) {
      run = { name, ok: false, error: err instanceof Error ? err.message : String(err), ms: performance.now() - t0 };
      app.log.error("cleanup failed", {
        cleanup: name,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    }
    task.last = run;
    task.running = null;
    return run;
  })();
  return task.running;
}

/** The registered cleanups with their last run. */
export function cleanupTasks(app: App): Array<{ name: string; everyMs: number; last: CleanupRun | null }> {
  return [...registryOf(app).tasks.values()].map((t) => ({ name: t.name, everyMs: t.everyMs, last: t.last }));
}

function schedule(app: App, task: Task): void {
  task.timer = setInterval(() => void runCleanup(app, task.name), task.everyMs);
  task.timer.unref?.();
}

/**
 * Keeps the database fast: folds the WAL back into the file (in the checkpoint worker,
 * without blocking writers or waiting for readers such as a running backup), refreshes
 * planner statistics. Returns the WAL pages checkpointed.
 */
export async function maintainDatabase(app: App, checkpointer: Checkpointer | null): Promise<number> {
  const sqlite = app.storage.sqlite;
  // PostgreSQL: autovacuum keeps statistics and dead rows in check, and there is no WAL to fold
  if (!sqlite) return 0;
  let checkpointed: number;
  if (checkpointer) checkpointed = (await checkpointer.checkpoint()).checkpointed;
  else
    checkpointed =
      (sqlite.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { checkpointed: number } | null)?.checkpointed ?? 0;
  sqlite.exec("PRAGMA optimize");
  return checkpointed;
}

/** Starts every registered cleanup (and the database maintenance) in a serving process; stopped on close. */
export function startHousekeeping(app: App): void {
  const reg = registryOf(app);
  if (reg.started) return;
  const checkpointer = startCheckpointer(app, {
    walLimitBytes: app.config["database.walLimitMB"] * 1024 * 1024,
  }).catch((err) => {
    app.log.error("checkpoint worker did not start; commits checkpoint by themselves", { error: String(err) });
    return null;
  });
  if (!reg.tasks.has("database"))
    registerCleanup(app, "database", app.config["housekeeping.everySeconds"] * 1000, async () =>
      maintainDatabase(app, await checkpointer),
    );
  reg.started = true;
  for (const task of reg.tasks.values()) schedule(app, task);
  app.onClose(async () => {
    reg.started = false;
    for (const task of reg.tasks.values()) {
      if (task.timer) clearInterval(task.timer);
      task.timer = null;
    }
    // let a cleanup that is mid-run finish before the database closes
    await Promise.all([...reg.tasks.values()].map((t) => t.running));
  });
}
