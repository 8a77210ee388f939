import { spawnSync } from "node:child_process";

/**
 * Runs shell COMMAND once this process has ended, however it ends: `bun test` emits no exit
 * event (neither in a serial run nor in its `--parallel` workers, which are ended without
 * one), and a crashed or killed run ends without cleaning up. A shell in a session of its own
 * watches the process and runs COMMAND after it. It is started through a shell that exits at
 * once, so it is no child of this process: `bun test` kills the children a timed-out test
 * leaves, which would take the cleanup with it. For what a test process starts for all its
 * files: the shared PostgreSQL cluster, the migrated SQLite template.
 */
export function whenProcessEnds(command: string): void {
  const watch = `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done; ${command}`;
  spawnSync("sh", ["-c", 'setsid sh -c "$WATCH" >/dev/null 2>&1 </dev/null &'], {
    cwd: "/",
    env: { PATH: process.env.PATH, WATCH: watch },
    stdio: "ignore",
  });
}
