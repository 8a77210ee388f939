import type { Database as SqliteDatabase } from "bun:sqlite";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Kysely } from "kysely";
import { readConfigFile } from "../config";
import { VERSION, dbPath, isInitialised } from "../config/layout";
import { knownMigrationNames, openPostgresStorage } from "../db";
import type { Engine } from "../db/engine";
import { listBackups, type BackupListing } from "./backup";
import { fileSize, instanceFiles } from "./layout";
import { postgresDatabaseBytes } from "./database-size";
import type { Readiness } from "./health";
import { readServerLock } from "./server-lock";
import { probeEngines, type EngineReport } from "./engines";
import { appliedMigrations, columnNames, openReadOnly, schemaMinimumOf, tableExists } from "./sqlite";
import { readSchemaMinimum, schemaIncompatibility, schemaLevel, type SchemaMinimum } from "../db/schema-guard";
import { listNodes, parseNodeReadiness, type NodeRecord } from "./nodes";
import { bunSqliteDialect } from "../db/sqlite-dialect";
import { jobsStatus, type JobsStatus } from "../jobs/dead-letters";
import type { JobsTables } from "../jobs/table";

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
    /** what the running server says of itself (/readyz): whether it can serve, and each engine as it sees it */
    readiness?: Readiness;
  };
  /** engine: which one database.url chose; server: its version (PostgreSQL) */
  database: { engine: Engine; server?: string; sizeBytes: number; walSizeBytes: number };
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
  /**
   * version: the database's newest migration; level: this socialctl's; minimum: the oldest code
   * the database admits (its newest breaking migration); problem: why this socialctl may not use it
   */
  schema: {
    version: string | null;
    applied: number;
    pending: string[];
    unknown: string[];
    level: string;
    minimum: SchemaMinimum | null;
    problem: string | null;
  };
  /** the serving nodes the database has seen (each records itself at start and every minute) */
  nodes: NodeRecord[];
  /** the pub/sub and file engines the config chooses, and whether each answers (null before init) */
  engines: EngineReport | null;
  /** the job queue: jobs per kind and state, the newest dead letters (null before its migration) */
  jobs: JobsStatus | null;
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
  const initialised = isInitialised(dataDir);
  const databaseUrl = readConfigFile(dataDir)["database.url"];
  const status: InstanceStatus = {
    version: VERSION,
    dataDir,
    initialised,
    // the serving process describes itself (the admin API) instead of calling its own /healthz
    server: opts.self ?? (await serverStatus(dataDir)),
    database: {
      engine: "sqlite",
      sizeBytes: fileSize(dbPath(dataDir)),
      walSizeBytes: fileSize(`${dbPath(dataDir)}-wal`),
    },
    files: { count: 0, totalBytes: 0, byKind: null },
    counts: { accounts: null, posts: null, messages: null, bots: null, queuedBotUpdates: null },
    lastBackup: null,
    schema: schemaOf([], null),
    nodes: [],
    engines: null,
    jobs: null,
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
  if (typeof databaseUrl === "string" && databaseUrl) {
    await postgresStatus(status, databaseUrl);
    return status;
  }
  const db = openReadOnly(dbPath(dataDir));
  try {
    status.schema = schemaOf(appliedMigrations(db), schemaMinimumOf(db));
    status.nodes = sqliteNodes(db);
    status.counts = {
      accounts: countRows(db, "users", ["is_bot = 0", "is_system = 0", "deleted_at IS NULL"]),
      posts: countRows(db, "posts", ["deleted_at IS NULL"]),
      messages: countRows(db, "messages", ["deleted_at IS NULL"]),
      bots: countRows(db, "bots", []),
      queuedBotUpdates: countRows(db, "bot_updates", ["delivered_at IS NULL"]),
    };
    status.files.byKind = filesByKind(db);
    if (tableExists(db, "jobs"))
      status.jobs = await jobsStatus(new Kysely<JobsTables>({ dialect: bunSqliteDialect(db, { statements: 0 }) }));
  } finally {
    db.close();
  }
  return status;
}

/** The schema part of a status from the migrations a database has APPLIED (oldest first) and its recorded MINIMUM. */
function schemaOf(applied: string[], minimum: SchemaMinimum | null): InstanceStatus["schema"] {
  const known = knownMigrationNames();
  const level = schemaLevel(known);
  return {
    version: applied.at(-1) ?? null,
    applied: applied.length,
    pending: known.filter((m) => !applied.includes(m)),
    unknown: applied.filter((m) => !known.includes(m)),
    level,
    minimum,
    problem: schemaIncompatibility(minimum, level),
  };
}

export function sqliteNodes(db: SqliteDatabase): NodeRecord[] {
  if (!tableExists(db, "nodes")) return [];
  // an instance not yet migrated to a column reads it as null (no sighting, no readiness reported)
  const columns = columnNames(db, "nodes");
  const sighting = columns.includes("forwarded_for_seen_at") ? "forwarded_for_seen_at" : "NULL";
  const readiness = columns.includes("readiness") ? "readiness" : "NULL";
  const rows = db
    .query(
      `SELECT id, version, schema, started_at, seen_at, ${sighting} AS forwarded_for_seen_at, ${readiness} AS readiness FROM nodes ORDER BY id`,
    )
    .all() as Array<{
    id: string;
    version: string;
    schema: string;
    started_at: number;
    seen_at: number;
    forwarded_for_seen_at: number | null;
    readiness: string | null;
  }>;
  return rows.map((r) => ({
    id: r.id,
    version: r.version,
    schema: r.schema,
    startedAt: r.started_at,
    seenAt: r.seen_at,
    forwardedForSeenAt: r.forwarded_for_seen_at,
    readiness: parseNodeReadiness(r.readiness),
  }));
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

/**
 * The database part of STATUS from PostgreSQL at URL, read only: the same counts through
 * Kysely, its size as the server reports it (no WAL of the instance's own).
 */
async function postgresStatus(status: InstanceStatus, url: string): Promise<void> {
  // one question at a time: a single connection is all it needs
  const storage = openPostgresStorage(url, { poolSize: 1 });
  try {
    const db = storage.db as Kysely<any>;
    status.database = { engine: "postgres", server: await storage.describe(), sizeBytes: 0, walSizeBytes: 0 };
    status.database.sizeBytes = await postgresDatabaseBytes(db);
    const tables = new Map(
      (await db.introspection.getTables({ withInternalKyselyTables: true })).map((t) => [
        t.name,
        new Set(t.columns.map((c) => c.name)),
      ]),
    );
    const applied = tables.has("kysely_migration")
      ? (await db.selectFrom("kysely_migration").select("name").orderBy("name").execute()).map((r) => r.name as string)
      : [];
    status.schema = schemaOf(applied, await readSchemaMinimum(db));
    if (tables.has("nodes")) status.nodes = await listNodes(db);
    if (tables.has("jobs")) status.jobs = await jobsStatus(db);
    const count = async (table: string, nullColumns: string[], zeroColumns: string[] = []) => {
      const cols = tables.get(table);
      if (!cols) return null;
      let q = db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n"));
      for (const c of nullColumns) if (cols.has(c)) q = q.where(c, "is", null);
      for (const c of zeroColumns) if (cols.has(c)) q = q.where(c, "=", 0);
      return Number((await q.executeTakeFirstOrThrow()).n);
    };
    status.counts = {
      accounts: await count("users", ["deleted_at"], ["is_bot", "is_system"]),
      posts: await count("posts", ["deleted_at"]),
      messages: await count("messages", ["deleted_at"]),
      bots: await count("bots", []),
      queuedBotUpdates: await count("bot_updates", ["delivered_at"]),
    };
    if (tables.has("uploads")) {
      const rows = await db
        .selectFrom("uploads")
        .select([
          "kind",
          (eb) => eb.fn.countAll<number>().as("count"),
          (eb) => eb.fn.sum<number>("size_bytes").as("bytes"),
        ])
        .groupBy("kind")
        .orderBy("kind")
        .execute();
      status.files.byKind = Object.fromEntries(
        rows.map((r) => [r.kind as string, { count: Number(r.count), bytes: Number(r.bytes ?? 0) }]),
      );
    }
  } finally {
    await storage.close();
  }
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
    const ready = await fetch(`${lock.url}/readyz`, { signal: AbortSignal.timeout(5000) });
    out.readiness = (await ready.json()) as Readiness;
  } catch {
    // running but not answering: reported as unhealthy
  }
  return out;
}
