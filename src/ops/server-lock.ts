import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../app";
import { SERVER_LOCK_FILE } from "../config/layout";
import { toIso } from "../lib/clock";

/*
 * data/server.pid (SERVER_LOCK_FILE): written by `serve` while it runs, so `status` can find
 * the running server and `backup restore` refuses to pull the data dir from under it.
 */

export interface ServerLockInfo {
  pid: number;
  url: string;
  startedAt: string;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

/** The server running on this data dir, or null (a lock left by a dead process counts as none). */
export function readServerLock(dataDir: string): ServerLockInfo | null {
  const path = join(dataDir, SERVER_LOCK_FILE);
  if (!existsSync(path)) return null;
  try {
    const info = JSON.parse(readFileSync(path, "utf8")) as ServerLockInfo;
    if (!Number.isInteger(info.pid) || typeof info.url !== "string") return null;
    return processAlive(info.pid) ? info : null;
  } catch {
    return null;
  }
}

/**
 * The base URL links and bot library settings should name, seen from a command run beside
 * the server: a configured baseUrl as it is; the derived default (loopback and the config's
 * port) is replaced by the address the running server listens on (`serve --port` wins).
 */
export function effectiveBaseUrl(app: App): string {
  if (app.config.baseUrl !== `http://127.0.0.1:${app.config.port}`) return app.config.baseUrl;
  return readServerLock(app.dataDir)?.url ?? app.config.baseUrl;
}

/** Throws when another live process serves this data dir. */
export function assertNoServerRunning(dataDir: string, doing: string): void {
  const running = readServerLock(dataDir);
  if (running && running.pid !== process.pid) {
    throw new Error(`a server (pid ${running.pid}, ${running.url}) is running on ${dataDir}: stop it before ${doing}`);
  }
}

/** Records this process as the data dir's server; the record is removed on shutdown. */
export function claimServerLock(server: { app: App; url: string }): void {
  const { dataDir } = server.app;
  assertNoServerRunning(dataDir, "starting another");
  const path = join(dataDir, SERVER_LOCK_FILE);
  const info: ServerLockInfo = { pid: process.pid, url: server.url, startedAt: toIso(server.app.startedAt) };
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(info) + "\n");
  renameSync(tmp, path);
  server.app.onClose(() => {
    try {
      const current = JSON.parse(readFileSync(path, "utf8")) as ServerLockInfo;
      if (current.pid === process.pid) rmSync(path, { force: true });
    } catch {
      // already gone
    }
  });
}
