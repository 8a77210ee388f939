import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Kysely } from "kysely";
import { toIso } from "../lib/clock";
import { loadConfig, type Config } from "../config";
import { openPostgresStorage } from "../db";
import { findPgTool, pgDumpInto } from "./postgres-tools";
import {
  VERSION,
  PRE_MIGRATE_RE,
  CONFIG_FILE,
  DB_FILE,
  FILES_DIR,
  SECRET_FILE,
  VAPID_FILE,
  backupsDir,
  dbPath,
  fileStamp,
  isInitialised,
} from "../config/layout";
import { sha256File, instanceFiles } from "./layout";
import { MANIFEST_NAME, type BackupManifest, type ManifestBucket, type ManifestFile, readManifest } from "./manifest";
import { bucketContents, bucketOf, objectsOf, storedKeysOf, type StoredKey } from "./bucket";
import { appliedMigrations, columnNames, openReadOnly, tableExists, vacuumInto } from "./sqlite";

export interface BackupProgress {
  phase: "snapshot" | "bucket" | "files" | "checksums" | "compress";
  done: number;
  total: number;
}

export interface CreateBackupOptions {
  dataDir: string;
  /** archive path; default data/backups/backup-<time>.tar.gz */
  out?: string;
  /** keep only the newest N backup archives in the archive's folder */
  keep?: number;
  /** leave out thumbnails and video posters (rebuildable from the originals) */
  withoutDerived?: boolean;
  onProgress?: (p: BackupProgress) => void;
  now?: () => number;
}

export interface BackupResult {
  path: string;
  sizeBytes: number;
  manifest: BackupManifest;
  /** how long the database snapshot (the only step touching the live database) took */
  snapshotMs: number;
  totalMs: number;
  pruned: string[];
}

export const ARCHIVE_RE = /^backup-.+\.tar\.gz$/;

/**
 * Hot backup of a data dir: a consistent database snapshot (VACUUM INTO on its own
 * connection; the live database is only read, and only during that step), the uploaded
 * files (hard-linked into a staging dir so later deletions do not matter), config and the
 * instance secret, packed with a manifest of sha256 checksums into one .tar.gz.
 */
export async function createBackup(opts: CreateBackupOptions): Promise<BackupResult> {
  const now = opts.now ?? Date.now;
  const started = performance.now();
  const dataDir = resolve(opts.dataDir);
  if (!isInitialised(dataDir)) throw new Error(`no instance in ${dataDir}: nothing to back up`);
  const config = loadConfig(dataDir);
  const databaseUrl = config["database.url"];
  const inBucket = Boolean(config["files.s3.bucket"]);
  if (opts.keep !== undefined && (!Number.isInteger(opts.keep) || opts.keep < 1))
    throw new Error("--keep must be a positive integer");
  const createdAt = now();
  const out = resolve(opts.out ?? join(backupsDir(dataDir), `backup-${fileStamp(createdAt)}.tar.gz`));
  if (existsSync(out)) throw new Error(`${out} already exists`);
  mkdirSync(backupsDir(dataDir), { recursive: true });
  mkdirSync(dirname(out), { recursive: true });
  sweepStale(backupsDir(dataDir), createdAt);
  const staging = mkdtempSync(join(backupsDir(dataDir), ".staging-"));
  const partial = `${out}.partial`;
  try {
    opts.onProgress?.({ phase: "snapshot", done: 0, total: 1 });
    const snapshot = databaseUrl
      ? await snapshotPostgres(databaseUrl, staging, inBucket)
      : {
          ms: vacuumInto(dbPath(dataDir), join(staging, DB_FILE)),
          database: sqliteCovers(inBucket),
          ...inspectSnapshot(join(staging, DB_FILE)),
        };
    const { migrations, stored, database } = snapshot;
    const derived = new Set(stored.filter((k) => k.derived).map((k) => k.key));
    const snapshotMs = snapshot.ms;
    opts.onProgress?.({ phase: "snapshot", done: 1, total: 1 });

    // files are listed after the snapshot: every file a snapshot row refers to was written before its row
    const bucket = inBucket ? await listBucket(config, stored, opts.onProgress) : undefined;
    // with a bucket, files left under the data dir are not the instance's (the server never reads them)
    const files = inBucket ? [] : instanceFiles(dataDir);
    const kept = opts.withoutDerived ? files.filter((f) => !derived.has(f.rel.split("/").at(-1)!)) : files;
    for (const [i, f] of kept.entries()) {
      stageFile(join(dataDir, FILES_DIR, f.rel), join(staging, FILES_DIR, f.rel));
      opts.onProgress?.({ phase: "files", done: i + 1, total: kept.length });
    }
    for (const name of [CONFIG_FILE, SECRET_FILE, VAPID_FILE]) {
      if (existsSync(join(dataDir, name))) copyFileSync(join(dataDir, name), join(staging, name));
    }

    const entries = [DB_FILE, PG_DUMP_FILE, CONFIG_FILE, SECRET_FILE, VAPID_FILE].filter((n) =>
      existsSync(join(staging, n)),
    );
    entries.push(...kept.map((f) => `${FILES_DIR}/${f.rel}`));
    const listed: ManifestFile[] = [];
    for (const [i, rel] of entries.entries()) {
      const full = join(staging, rel);
      listed.push({ path: rel, size: statSync(full).size, sha256: await sha256File(full) });
      opts.onProgress?.({ phase: "checksums", done: i + 1, total: entries.length });
    }
    const manifest: BackupManifest = {
      format: "socialctl-backup",
      formatVersion: 1,
      appVersion: VERSION,
      schemaVersion: migrations.at(-1) ?? null,
      migrations,
      createdAt: toIso(createdAt),
      fileCount: listed.length,
      totalBytes: listed.reduce((n, f) => n + f.size, 0),
      withoutDerived: Boolean(opts.withoutDerived),
      derivedOmitted: files.length - kept.length,
      database,
      files: listed,
      ...(bucket ? { bucket } : {}),
    };

    const { TarGzWriter } = await import("./tar");
    const writer = new TarGzWriter(partial);
    try {
      await writer.addBuffer(MANIFEST_NAME, Buffer.from(JSON.stringify(manifest, null, 2)), createdAt);
      let done = 0;
      for (const f of listed) {
        const st = statSync(join(staging, f.path));
        await writer.addFile(f.path, join(staging, f.path), f.size, st.mtimeMs, (n) => {
          done += n;
          opts.onProgress?.({ phase: "compress", done, total: manifest.totalBytes });
        });
      }
      await writer.finish();
    } catch (err) {
      writer.abort();
      throw err;
    }
    renameSync(partial, out);
    const pruned = opts.keep ? pruneBackups(dirname(out), opts.keep) : [];
    return {
      path: out,
      sizeBytes: statSync(out).size,
      manifest,
      snapshotMs,
      totalMs: performance.now() - started,
      pruned,
    };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

/** The database dump's name inside a PostgreSQL instance's archive (pg_restore reads it). */
export const PG_DUMP_FILE = "database.pgdump";

/** What an archive holds beside the database: the files, unless they are in a bucket. */
const restCovered = (inBucket: boolean) =>
  inBucket
    ? "config and instance secret (the files are in the bucket: listed, not copied)"
    : "the files, config and instance secret";

const sqliteCovers = (inBucket: boolean): BackupManifest["database"] => ({
  engine: "sqlite",
  file: DB_FILE,
  covers: `the whole database (${DB_FILE}, a consistent copy), ${restCovered(inBucket)}`,
});

/**
 * The bucket's part of a backup: the objects the snapshot's uploads name, as the bucket's
 * listing gives them (key, size, ETag). No bytes are copied, and no sha256 taken, which would
 * mean reading the whole bucket back on every backup.
 */
async function listBucket(
  config: Config,
  stored: StoredKey[],
  onProgress: CreateBackupOptions["onProgress"],
): Promise<ManifestBucket> {
  const name = config["files.s3.bucket"];
  const where = { endpoint: config["files.s3.endpoint"] || null, bucket: name, region: config["files.s3.region"] };
  let contents;
  try {
    contents = await bucketContents(bucketOf(config), (listed) =>
      onProgress?.({ phase: "bucket", done: listed, total: Math.max(listed, stored.length) }),
    );
  } catch (err) {
    // the database's backup matters more than the listing: it is written all the same, saying so
    const why = (err as Error).message || String(err);
    return {
      ...where,
      objectCount: 0,
      totalBytes: 0,
      missing: [],
      listingError: why,
      covers: `no record of the ${stored.length} objects of bucket ${name} the database references: the bucket could not be listed (${why}); its own versioning or replication must keep them`,
      objects: [],
    };
  }
  const { objects, missing } = objectsOf(stored, contents);
  return {
    ...where,
    objectCount: objects.length,
    totalBytes: objects.reduce((n, o) => n + o.size, 0),
    missing,
    covers: `the names, sizes and ETags of the ${objects.length} objects of bucket ${name} the database references, NOT their bytes: the bucket's own versioning (keeping deleted and overwritten versions at least as long as you keep backups) or replication must keep them`,
    objects,
  };
}

/**
 * The database part of a PostgreSQL instance's backup: a pg_dump when pg_dump is installed
 * (the whole database as one consistent snapshot), otherwise nothing of the database, and the
 * manifest says so: the operator's own PostgreSQL backups must cover it then.
 */
async function snapshotPostgres(
  url: string,
  staging: string,
  inBucket: boolean,
): Promise<{ ms: number; migrations: string[]; stored: StoredKey[]; database: BackupManifest["database"] }> {
  const pgDump = findPgTool("pg_dump");
  const ms = pgDump ? await pgDumpInto(pgDump, url, join(staging, PG_DUMP_FILE)) : 0;
  const storage = openPostgresStorage(url);
  try {
    const db = storage.db;
    const migrations = (
      await (db as Kysely<any>).selectFrom("kysely_migration").select("name").orderBy("name").execute()
    ).map((r) => r.name as string);
    // read after the dump: an upload made between the two is listed too, which does no harm
    const stored = storedKeysOf(
      await db
        .selectFrom("uploads")
        .select(["storage_key", "thumb_url", "poster_url", "renditions"])
        .orderBy("id")
        .execute(),
    );
    return {
      ms,
      migrations,
      stored,
      database: pgDump
        ? {
            engine: "postgres",
            file: PG_DUMP_FILE,
            covers: `the whole PostgreSQL database (${PG_DUMP_FILE}: pg_dump custom format, one consistent snapshot; socialctl backup restore puts it into an empty database with pg_restore), ${restCovered(inBucket)}`,
          }
        : {
            engine: "postgres",
            file: null,
            covers: `${restCovered(inBucket)} only, NOT the database: pg_dump was not found (apt-get install postgresql-client); back up PostgreSQL with your own tools (pg_dump, base backups)`,
          },
    };
  } finally {
    await storage.close();
  }
}

const STALE_MS = 6 * 3600_000;

/** Removes staging folders and partial archives left by a backup that was killed long ago. */
function sweepStale(dir: string, now: number): void {
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(".staging-") && !name.endsWith(".partial")) continue;
    try {
      if (now - statSync(join(dir, name)).mtimeMs > STALE_MS) rmSync(join(dir, name), { recursive: true, force: true });
    } catch {
      // removed by someone else meanwhile
    }
  }
}

/** Hard link (instant, immune to later deletion of the original), or a copy across devices. */
function stageFile(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return; // removed meanwhile: no longer part of the instance
    copyFileSync(from, to);
  }
}

/** Reads what the snapshot says about itself: the applied migrations and the files its uploads table names. */
function inspectSnapshot(path: string): { migrations: string[]; stored: StoredKey[] } {
  const db = openReadOnly(path);
  try {
    let stored: StoredKey[] = [];
    if (tableExists(db, "uploads")) {
      const cols = columnNames(db, "uploads").filter(
        (c) => c === "thumb_url" || c === "poster_url" || c === "renditions",
      );
      stored = storedKeysOf(
        db.query(`SELECT ${["storage_key", ...cols].join(", ")} FROM uploads ORDER BY id`).all() as Array<{
          storage_key: string;
        }>,
      );
    }
    return { migrations: appliedMigrations(db), stored };
  } finally {
    db.close();
  }
}

export interface BackupListing {
  kind: "archive" | "pre-migrate";
  path: string;
  name: string;
  sizeBytes: number;
  createdAt: string;
  schemaVersion: string | null;
  fileCount: number | null;
  withoutDerived?: boolean;
  /** objects of the bucket the archive lists (not holds); absent when the files are in the archive */
  bucketObjects?: number;
  /** why the entry could not be read (a damaged archive is listed, not hidden) */
  error?: string;
}

/** Backup archives and pre-migration snapshots in data/backups, newest first. */
export async function listBackups(dataDir: string): Promise<BackupListing[]> {
  const dir = backupsDir(resolve(dataDir));
  if (!existsSync(dir)) return [];
  const out: BackupListing[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (!st.isFile()) continue;
    if (ARCHIVE_RE.test(name)) {
      try {
        const m = await readManifest(path);
        out.push({
          kind: "archive",
          path,
          name,
          sizeBytes: st.size,
          createdAt: m.createdAt,
          schemaVersion: m.schemaVersion,
          fileCount: m.fileCount,
          withoutDerived: m.withoutDerived,
          ...(m.bucket ? { bucketObjects: m.bucket.objectCount } : {}),
        });
      } catch (err) {
        out.push({
          kind: "archive",
          path,
          name,
          sizeBytes: st.size,
          createdAt: toIso(st.mtimeMs),
          schemaVersion: null,
          fileCount: null,
          error: (err as Error).message,
        });
      }
    } else if (PRE_MIGRATE_RE.test(name)) {
      let schemaVersion: string | null = null;
      try {
        const db = openReadOnly(path);
        try {
          schemaVersion = appliedMigrations(db).at(-1) ?? null;
        } finally {
          db.close();
        }
      } catch {
        // listed with an unknown schema
      }
      out.push({
        kind: "pre-migrate",
        path,
        name,
        sizeBytes: st.size,
        createdAt: toIso(st.mtimeMs),
        schemaVersion,
        fileCount: null,
      });
    }
  }
  return out.sort((a, b) =>
    a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.name.localeCompare(a.name),
  );
}

/** Deletes all but the newest `keep` backup archives in `dir`; returns the removed paths. */
export function pruneBackups(dir: string, keep: number): string[] {
  if (!existsSync(dir)) return [];
  const archives = readdirSync(dir)
    .filter((n) => ARCHIVE_RE.test(n))
    .sort()
    .reverse();
  const removed: string[] = [];
  for (const name of archives.slice(keep)) {
    rmSync(join(dir, name), { force: true });
    removed.push(join(dir, name));
  }
  return removed;
}
