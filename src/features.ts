import type { App } from "./app";

/**
 * Where features plug into the process. `installFeatureHooks` runs for every App (server,
 * CLI, tests): domain hook listeners go here, one line per feature. `startFeatureWorkers`
 * runs only in a serving process: timers and background delivery (webhooks, housekeeping);
 * each worker registers its own stop with app.onClose.
 */
export function installFeatureHooks(app: App): void {
  void app;
}

export function startFeatureWorkers(app: App): void {
  void app;
}
