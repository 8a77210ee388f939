import type { Database as SqliteDatabase } from "bun:sqlite";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { VERSION, dbPath } from "../config/layout";
import { knownMigrationNames } from "../db";
import { listBackups, type BackupListing } from "./backup";
import { fileSize, instanceFiles } from "./layout";
import { readServerLock } from "./server-lock";
import { probeEngines, type EngineReport } from "./engines";
import { appliedMigrations, columnNames, openReadOnly, tableExists } from "./sqlite";

export interface InstanceStatus {
  version: string;
  dataDir: string;
  initialised: boolean;
  server: {
    running: boolean;
    pid?: number;
    url?: string;
    startedAt?: string;
    uptimeSeconds?: number;
    healthy?: boolean;
  };
  database: { sizeBytes: number; walSizeBytes: number };
  files: { count: number; totalBytes: number; byKind: Record<string, { count: number; bytes: number }> | null };
  /** null where the feature's table does not exist in this database */
  counts: {
    accounts: number | null;
    posts: number | null;
    messages: number | null;
    bots: number | null;
    queuedBotUpdates: number | null;
  };
  lastBackup: Pick<BackupListing, "path" | "createdAt" | "sizeBytes" | "kind"> | null;
  schema: { version: string | null; applied: number; pending: string[]; unknown: string[] };
  /** the pub/sub and file engines the config chooses, and whether each answers (null before init) */
  engines: EngineReport | null;
}

/**
 * Everything an operator asks first (`socialctl status`, GET /api/admin/status), read without
 * changing anything: the database is opened read-only and never migrated, and a running server
 * is asked for its uptime.
 */
export async function collectStatus(
  dataDirInput: string,
  opts: { self?: InstanceStatus["server"] } = {},
): Promise<InstanceStatus> {
  const dataDir = resolve(dataDirInput);
  const initialised = existsSync(dbPath(dataDir));
  const status: InstanceStatus = {
    version: VERSION,
    dataDir,
    initialised,
    // the serving process describes itself (the admin API) instead of calling its own /healthz
    server: opts.self ?? (await serverStatus(dataDir)),
    database: { sizeBytes: fileSize(dbPath(dataDir)), walSizeBytes: fileSize(`${dbPath(dataDir)}-wal`) },
    files: { count: 0, totalBytes: 0, byKind: null },
    counts: { accounts: null, posts: null, messages: null, bots: null, queuedBotUpdates: null },
    lastBackup: null,
    schema: { version: null, applied: 0, pending: [], unknown: [] },
    engines: null,
  };
  const onDisk = instanceFiles(dataDir);
  status.files.count = onDisk.length;
  status.files.totalBytes = onDisk.reduce((n, f) => n + f.size, 0);
  const archive = (await listBackups(dataDir)).find((b) => !b.error);
  if (archive)
    status.lastBackup = {
      path: archive.path,
      createdAt: archive.createdAt,
      sizeBytes: archive.sizeBytes,
      kind: archive.kind,
    };
  if (!initialised) {
    status.schema.pending = knownMigrationNames();
    return status;
  }
  status.engines = await probeEngines(dataDir);
  const db = openReadOnly(dbPath(dataDir));
  try {
    const applied = appliedMigrations(db);
    const known = knownMigrationNames();
    status.schema = {
      version: applied.at(-1) ?? null,
      applied: applied.length,
      pending: known.filter((m) => !applied.includes(m)),
      unknown: applied.filter((m) => !known.includes(m)),
    };
    status.counts = {
      accounts: countRows(db, "users", ["is_bot = 0", "is_system = 0", "deleted_at IS NULL"]),
      posts: countRows(db, "posts", ["deleted_at IS NULL"]),
      messages: countRows(db, "messages", ["deleted_at IS NULL"]),
      bots: countRows(db, "bots", []),
      queuedBotUpdates: countRows(db, "bot_updates", ["delivered_at IS NULL"]),
    };
    status.files.byKind = filesByKind(db);
  } finally {
    db.close();
  }
  return status;
}

/** Counts rows, applying only the conditions whose column exists (tables are built by several features). */
function countRows(db: SqliteDatabase, table: string, conditions: string[]): number | null {
  if (!tableExists(db, table)) return null;
  const cols = new Set(columnNames(db, table));
  const where = conditions.filter((c) => cols.has(c.split(" ")[0]!));
  const row = db
    .query(`SELECT count(*) AS n FROM "${table}"${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`)
    .get() as { n: number };
  return row.n;
}

function filesByKind(db: SqliteDatabase): InstanceStatus["files"]["byKind"] {
  if (!tableExists(db, "uploads")) return null;
  const cols = new Set(columnNames(db, "uploads"));
  if (!cols.has("kind") || !cols.has("size_bytes")) return null;
  const rows = db
    .query(
      "SELECT kind, count(*) AS count, coalesce(sum(size_bytes), 0) AS bytes FROM uploads GROUP BY kind ORDER BY kind",
    )
    .all() as Array<{ kind: string; count: number; bytes: number }>;
  return Object.fromEntries(rows.map((r) => [r.kind, { count: r.count, bytes: r.bytes }]));
}

async function serverStatus(dataDir: string): Promise<InstanceStatus["server"]> {
  const lock = readServerLock(dataDir);
  if (!lock) return { running: false };
  const out: InstanceStatus["server"] = {
    running: true,
    pid: lock.pid,
    url: lock.url,
    startedAt: lock.startedAt,
    healthy: false,
  };
  try {
    const res = await fetch(`${lock.url}/healthz`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { status?: string; uptimeSeconds?: number };
    out.healthy = res.ok && body.status === "ok";
    if (typeof body.uptimeSeconds === "number") out.uptimeSeconds = body.uptimeSeconds;
  } catch {
    // running but not answering: reported as unhealthy
  }
  return out;
}
