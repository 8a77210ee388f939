import { fileURLToPath } from "node:url";
import type { App } from "../app";
import { listBackups } from "./backup";

/** Whether this is the compiled single executable (its modules live in Bun's embedded file system). */
export const runningCompiled = (): boolean => import.meta.url.includes("$bunfs") || import.meta.url.includes("~BUN");

/**
 * The command line that runs this same socialctl: the compiled binary runs itself; from
 * source, Bun runs cli/index.ts.
 */
export function selfCommand(): string[] {
  return runningCompiled()
    ? [process.execPath]
    : [process.execPath, fileURLToPath(new URL("../../cli/index.ts", import.meta.url))];
}

/**
 * Runs `socialctl --data-dir DATA_DIR --json ARGS…` as a child process and answers its exit
 * code and outputs; ON_CHILD gets the process (to kill it at shutdown). Backups run this way
 * so the snapshot's synchronous SQLite work never stalls the serving event loop.
 */
export async function runSelf(
  dataDir: string,
  args: string[],
  onChild?: (child: ReturnType<typeof Bun.spawn> | null) => void,
): Promise<{ code: number; out: string; err: string }> {
  const child = Bun.spawn([...selfCommand(), "--data-dir", dataDir, "--json", ...args], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  onChild?.(child);
  try {
    const [out, err, code] = await Promise.all([
      new Response(child.stdout as ReadableStream).text(),
      new Response(child.stderr as ReadableStream).text(),
      child.exited,
    ]);
    return { code, out, err };
  } finally {
    onChild?.(null);
  }
}

/** The last line a failed child wrote to stderr: its error message. */
export const lastLine = (text: string) => text.trim().split("\n").at(-1) ?? "";

/**
 * Automatic backups (config backup.every, backup.keep) by the serving process. Each one
 * runs `socialctl backup create` in a child process, so the snapshot's synchronous
 * SQLite work and the compression never stall this process's event loop.
 */
export function startBackupSchedule(app: App): void {
  const everyMs = app.config["backup.every"] * 1000;
  if (everyMs <= 0) return;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let child: ReturnType<typeof Bun.spawn> | null = null;
  let stopped = false;

  const run = async () => {
    const { code, out, err } = await runSelf(
      app.dataDir,
      ["backup", "create", "--keep", String(app.config["backup.keep"])],
      (c) => (child = c),
    );
    if (code === 0) {
      const result = JSON.parse(out) as { path: string; sizeBytes: number; snapshotMs: number; totalMs: number };
      app.log.info("scheduled backup created", {
        path: result.path,
        sizeBytes: result.sizeBytes,
        snapshotMs: Math.round(result.snapshotMs),
        totalMs: Math.round(result.totalMs),
      });
    } else if (!stopped) {
      app.log.error("scheduled backup failed", { exitCode: code, error: lastLine(err) });
    }
  };
  const next = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      run()
        .catch((err) => app.log.error("scheduled backup failed", { error: String(err) }))
        .finally(() => next(everyMs));
    }, delay);
    timer.unref?.();
  };

  // the first one is due one period after the newest archive (at once when there is none)
  void listBackups(app.dataDir)
    .then((list) => {
      const newest = list.find((b) => b.kind === "archive" && !b.error);
      const due = newest ? Date.parse(newest.createdAt) + everyMs - Date.now() : 0;
      next(Math.max(1000, due));
    })
    .catch(() => next(everyMs));

  app.onClose(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (child) {
      child.kill();
      await child.exited;
    }
  });
}
