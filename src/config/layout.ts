import { chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The version this build reports (healthz, status, backups, `socialctl --version`). */
export const VERSION = "0.1.0";

/** Where things live inside a data dir (product.md "Data directory"): every name, once. */
export const DB_FILE = "social.db";
export const FILES_DIR = "files";
export const BACKUPS_DIR = "backups";
export const CONFIG_FILE = "config";
export const SECRET_FILE = "secret";
/** the instance's VAPID key pair for Web Push, kept and carried with the secret (src/config/vapid.ts) */
export const VAPID_FILE = "vapid.json";
/** written by `serve` while it runs (src/ops/server-lock.ts) */
export const SERVER_LOCK_FILE = "server.pid";
/** the serving process's control socket (src/ops/control.ts) */
export const CONTROL_SOCKET = "control.sock";
/** marks a data dir `socialctl dev` made, with its person, bot and token (cli/commands/dev.ts) */
export const SANDBOX_FILE = "sandbox.json";
/** Uploads still being written, inside FILES_DIR; dot folders are not part of the instance's files. */
export const UPLOADS_TMP_DIR = ".tmp";

export const PRE_MIGRATE_RE = /^pre-migrate-.+\.db$/;

export const dbPath = (dataDir: string) => join(dataDir, DB_FILE);
export const filesDir = (dataDir: string) => join(dataDir, FILES_DIR);
export const backupsDir = (dataDir: string) => join(dataDir, BACKUPS_DIR);

/**
 * An instance exists in DATADIR once its database does (`socialctl init` or a first `serve`):
 * the SQLite file, or, on PostgreSQL, the instance secret beside a config naming database.url.
 */
export function isInitialised(dataDir: string): boolean {
  if (existsSync(dbPath(dataDir))) return true;
  if (!existsSync(join(dataDir, SECRET_FILE))) return false;
  try {
    const config = JSON.parse(readFileSync(join(dataDir, CONFIG_FILE), "utf8")) as Record<string, unknown>;
    return typeof config["database.url"] === "string" && config["database.url"] !== "";
  } catch {
    return false;
  }
}

/**
 * Creates DATADIR (with any missing parents) for its owner only, whatever the umask: it holds
 * the instance secret, the database, uploads and the control socket. A directory that exists
 * keeps the mode its operator gave it (`socialctl doctor` warns about secrets others can read).
 */
export function ensureDataDir(dataDir: string): void {
  if (existsSync(dataDir)) return;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // a umask can only take bits away from mkdir's mode; this also restores any it took from the owner
  chmodSync(dataDir, 0o700);
}

/** A sortable, file-name-safe timestamp: 20261122T030900.123Z. */
export const fileStamp = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, "");
