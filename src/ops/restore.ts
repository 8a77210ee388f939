import { sha256 } from "../lib/crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  rmdirSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { sql, type Kysely } from "kysely";
import { knownMigrationNames, openPostgresStorage } from "../db";
import { parseConfigValue, readConfigFile, storeConfigValues } from "../config";
import { BACKUPS_DIR, DB_FILE, fileStamp, isInitialised } from "../config/layout";
import { PG_DUMP_FILE } from "./backup";
import { redactUrl } from "./engines";
import { findPgTool, pgRestoreFrom } from "./postgres-tools";
import { MANIFEST_NAME, type BackupManifest, isSafeRelativePath, readManifest } from "./manifest";
import { assertNoServerRunning } from "./server-lock";
import { integrityCheck, openReadOnly } from "./sqlite";

export interface RestoreOptions {
  dataDir: string;
  file: string;
  /** replace an existing (stopped) instance */
  force?: boolean;
  /** a PostgreSQL instance's archive: restore its dump into this empty database instead of the one its config names */
  databaseUrl?: string;
  onProgress?: (p: { done: number; total: number }) => void;
}

export interface RestoreResult {
  dataDir: string;
  manifest: BackupManifest;
  /** true when an existing instance was replaced */
  replaced: boolean;
  /** the PostgreSQL database the dump went into (password hidden) */
  databaseUrl?: string;
}

/** Folders of the current data dir that survive a restore: the backups themselves. */
const CARRIED_OVER = [BACKUPS_DIR];

/**
 * Restores a backup archive into a stopped instance or an empty data dir. Everything is
 * unpacked and verified (manifest, every size and sha256, the database's integrity) in a
 * temp dir beside the data dir, which then replaces it by rename: a failure or a crash
 * never leaves a half-restored data dir.
 */
export async function restoreBackup(opts: RestoreOptions): Promise<RestoreResult> {
  const dataDir = resolve(opts.dataDir);
  const file = resolve(opts.file);
  if (!existsSync(file)) throw new Error(`no backup archive at ${file}`);
  assertNoServerRunning(dataDir, "restoring into its data dir");
  const occupied = isInitialised(dataDir);
  if (occupied && !opts.force)
    throw new Error(`${dataDir} already holds an instance: stop it and pass --force to replace it`);

  const manifest = await readManifest(file);
  assertSchemaKnown(manifest);
  const postgres = manifest.database?.engine === "postgres";
  if (postgres && !manifest.database!.file)
    throw new Error(
      `${file} holds no database (pg_dump was missing when it was made): it covers ${manifest.database!.covers}`,
    );
  if (!postgres && opts.databaseUrl !== undefined)
    throw new Error(`${file} is a backup of a SQLite instance: --database-url is for PostgreSQL instances' archives`);
  const pgRestore = postgres ? findPgTool("pg_restore") : null;
  if (postgres && !pgRestore)
    throw new Error(
      "pg_restore was not found: install the PostgreSQL client tools (apt-get install postgresql-client)",
    );

  mkdirSync(dirname(dataDir), { recursive: true });
  const temp = mkdtempSync(join(dirname(dataDir), `.${basename(dataDir)}.restore-`));
  let databaseUrl: string | undefined;
  try {
    await unpackVerified(file, manifest, temp, opts.onProgress);
    if (postgres) {
      databaseUrl = await restorePostgres(temp, manifest, pgRestore!, opts.databaseUrl);
    } else {
      if (!existsSync(join(temp, DB_FILE))) throw new Error("archive holds no database");
      const verdict = checkDatabase(join(temp, DB_FILE));
      if (verdict !== "ok") throw new Error(`the backup's database fails its integrity check: ${verdict}`);
    }
    swapInto(temp, dataDir);
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    throw err;
  }
  return { dataDir, manifest, replaced: occupied, ...(databaseUrl ? { databaseUrl: redactUrl(databaseUrl) } : {}) };
}

/**
 * The database part of restoring a PostgreSQL instance's archive unpacked in TEMP: its dump
 * goes into the database the archive's config names (or URL), which must be empty, in one
 * transaction; the restored migrations must be the manifest's. The dump is not kept in the
 * data dir (the archive has it). Returns the database's URL.
 */
async function restorePostgres(
  temp: string,
  manifest: BackupManifest,
  pgRestore: string,
  url: string | undefined,
): Promise<string> {
  const target = url ?? String(readConfigFile(temp)["database.url"] ?? "");
  if (!target) throw new Error("the archive's config names no database.url: pass --database-url postgres://…");
  parseConfigValue("database.url", target);
  if (url !== undefined) storeConfigValues(temp, { "database.url": url });
  const storage = openPostgresStorage(target);
  try {
    const { rows } = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() LIMIT 1`.execute(
      storage.db,
    );
    if (rows.length)
      throw new Error(
        `the database ${redactUrl(target)} is not empty (table ${rows[0]!.name}): restore into a new database (createdb, then --database-url) or empty this one first`,
      );
    await pgRestoreFrom(pgRestore, target, join(temp, PG_DUMP_FILE));
    const restored = (
      await (storage.db as Kysely<any>).selectFrom("kysely_migration").select("name").orderBy("name").execute()
    ).map((r) => r.name as string);
    if (restored.join() !== manifest.migrations.join())
      throw new Error("the restored database's migrations differ from the backup's manifest");
  } finally {
    await storage.close();
  }
  rmSync(join(temp, PG_DUMP_FILE), { force: true });
  return target;
}

/** Refuses a backup made by a newer socialctl: one with migrations this binary does not know. */
export function assertSchemaKnown(manifest: BackupManifest): void {
  const known = new Set(knownMigrationNames());
  const unknown = manifest.migrations.filter((m) => !known.has(m));
  if (unknown.length) {
    throw new Error(
      `the backup's schema (${manifest.schemaVersion}) is newer than this socialctl knows (unknown migrations: ${unknown.join(", ")}); upgrade socialctl first`,
    );
  }
}

/**
 * Reads every entry of the archive FILE after its manifest, checking each against MANIFEST
 * (listed, once, same size and sha256) and that none is missing; writes them under DEST, or
 * nowhere when DEST is null (a check only). Throws at the first difference.
 */
export async function unpackVerified(
  file: string,
  manifest: BackupManifest,
  dest: string | null,
  onProgress?: RestoreOptions["onProgress"],
): Promise<void> {
  const expected = new Map(manifest.files.map((f) => [f.path, f]));
  const seen = new Set<string>();
  let first = true;
  const { readTarGz } = await import("./tar");
  await readTarGz(file, (entry) => {
    if (first) {
      first = false;
      return null; // the manifest, already read and checked
    }
    if (entry.path === MANIFEST_NAME) throw new Error("archive holds a second manifest");
    const want = expected.get(entry.path);
    if (!want || !isSafeRelativePath(entry.path))
      throw new Error(`archive holds a file its manifest does not list: ${entry.path}`);
    if (seen.has(entry.path)) throw new Error(`archive holds ${entry.path} twice`);
    if (entry.size !== want.size) throw new Error(`size mismatch for ${entry.path}: the archive is corrupt`);
    seen.add(entry.path);
    let fd: number | null = null;
    if (dest !== null) {
      const target = join(dest, entry.path);
      mkdirSync(dirname(target), { recursive: true });
      fd = openSync(target, "wx", 0o600);
    }
    const hash = sha256();
    return {
      write(chunk) {
        hash.update(chunk);
        if (fd !== null) writeSync(fd, chunk);
      },
      end() {
        if (fd !== null) closeSync(fd);
        if (hash.digest("hex") !== want.sha256)
          throw new Error(`checksum mismatch for ${entry.path}: the archive is corrupt`);
        onProgress?.({ done: seen.size, total: expected.size });
      },
    };
  });
  const missing = manifest.files.filter((f) => !seen.has(f.path)).map((f) => f.path);
  if (missing.length)
    throw new Error(
      `archive is missing ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` and ${missing.length - 5} more` : ""}`,
    );
}

function checkDatabase(path: string): string {
  const db = openReadOnly(path);
  try {
    return integrityCheck(db);
  } finally {
    db.close();
  }
}

/** temp → dataDir by rename; the old data dir is renamed aside first and removed last. */
function swapInto(temp: string, dataDir: string): void {
  if (existsSync(dataDir) && readdirSync(dataDir).length === 0) rmdirSync(dataDir);
  if (!existsSync(dataDir)) {
    renameSync(temp, dataDir);
    return;
  }
  const aside = `${dataDir}.replaced-${fileStamp(Date.now())}`;
  renameSync(dataDir, aside);
  renameSync(temp, dataDir);
  for (const name of CARRIED_OVER) {
    if (existsSync(join(aside, name)) && !existsSync(join(dataDir, name)))
      renameSync(join(aside, name), join(dataDir, name));
  }
  rmSync(aside, { recursive: true, force: true });
}
