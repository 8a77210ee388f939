import { eventLoopLag } from "./event-loop";
import type { App } from "../app";
import { registerDataCleanups } from "./cleanups";
import { startHousekeeping } from "./housekeeping";
import { startBackupSchedule } from "./schedule";

export { registerCleanup, runCleanup, type CleanupFn } from "./housekeeping";

/** Operations' workers in a serving process: housekeeping (WAL checkpoint, optimize, cleanups) and scheduled backups. */
export function startOpsWorkers(app: App): void {
  registerDataCleanups(app);
  startHousekeeping(app);
  startBackupSchedule(app);
  // /readyz compares the event loop's lateness with readiness.maxEventLoopLagMs
  eventLoopLag(app);
}
