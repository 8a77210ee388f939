/** The first entry of every backup archive: what it holds and how to check it. */
export const MANIFEST_NAME = "manifest.json";

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

/** An object of the instance's bucket, listed (not copied) by a backup. */
export interface ManifestObject {
  key: string;
  size: number;
  /** as the bucket reported it, quotes included */
  etag: string;
  /** a thumbnail or poster (made again from its original by `media rebuild-derived`) */
  derived?: true;
}

/**
 * With files.s3.* set, the files are the bucket's: the archive lists the objects the database
 * references instead of holding them, and says what the bucket's own versioning or
 * replication must keep.
 */
export interface ManifestBucket {
  endpoint: string | null;
  bucket: string;
  region: string;
  objectCount: number;
  totalBytes: number;
  /** keys the database references that the bucket did not hold when the backup was made */
  missing: string[];
  /** why the bucket could not be listed (then `objects` is empty: the archive records no files) */
  listingError?: string;
  covers: string;
  objects: ManifestObject[];
}

export interface BackupManifest {
  format: "socialctl-backup";
  formatVersion: 1;
  appVersion: string;
  /** name of the last applied migration (null for an empty database) */
  schemaVersion: string | null;
  /** every applied migration, oldest first */
  migrations: string[];
  createdAt: string;
  fileCount: number;
  totalBytes: number;
  withoutDerived: boolean;
  derivedOmitted: number;
  /**
   * Which engine the database was on, the file in the archive holding it (null: none, the
   * operator's PostgreSQL backups must cover it) and, in words, what the archive covers.
   * Absent in archives made before PostgreSQL support: those are SQLite's.
   */
  database?: { engine: "sqlite" | "postgres"; file: string | null; covers: string };
  files: ManifestFile[];
  /** present when the instance kept its files in a bucket (absent: the files are in `files`) */
  bucket?: ManifestBucket;
}

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** Validates a parsed manifest's shape; throws naming what is wrong. */
export function parseManifest(text: string): BackupManifest {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw new Error("backup manifest is not valid JSON");
  }
  const o = m as Partial<BackupManifest>;
  if (!o || typeof o !== "object" || o.format !== "socialctl-backup")
    throw new Error("not a socialctl backup (manifest format)");
  if (o.formatVersion !== 1) throw new Error(`unsupported backup format version ${String(o.formatVersion)}`);
  if (!Array.isArray(o.files) || !Array.isArray(o.migrations))
    throw new Error("backup manifest lacks its file or migration list");
  for (const f of o.files) {
    if (
      !f ||
      typeof f.path !== "string" ||
      typeof f.size !== "number" ||
      typeof f.sha256 !== "string" ||
      !/^[0-9a-f]{64}$/.test(f.sha256)
    ) {
      throw new Error("backup manifest has a malformed file entry");
    }
    if (!isSafeRelativePath(f.path)) throw new Error(`backup manifest names an unsafe path: ${f.path}`);
  }
  if (o.fileCount !== o.files.length) throw new Error("backup manifest file count does not match its file list");
  if (o.bucket !== undefined) parseBucket(o.bucket);
  return o as BackupManifest;
}

const OBJECT_KEY = /^[A-Za-z0-9_-]+(\.[a-z0-9]{1,5})?$/;

function parseBucket(b: Partial<ManifestBucket>): void {
  if (!b || typeof b !== "object" || typeof b.bucket !== "string" || !Array.isArray(b.objects))
    throw new Error("backup manifest has a malformed bucket listing");
  for (const o of b.objects) {
    if (
      !o ||
      typeof o.key !== "string" ||
      !OBJECT_KEY.test(o.key) ||
      typeof o.size !== "number" ||
      typeof o.etag !== "string"
    )
      throw new Error("backup manifest has a malformed bucket object");
  }
  if (b.objectCount !== b.objects.length)
    throw new Error("backup manifest object count does not match its object list");
}

/** Relative, normalised, inside the data dir: no absolute paths, no `..`, no empty segments. */
export function isSafeRelativePath(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0")) return false;
  return path.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..");
}

/** Reads only the manifest (the archive's first entry), without unpacking the rest. */
export async function readManifest(archive: string): Promise<BackupManifest> {
  let text: string | null = null;
  let first = true;
  const { readTarGz } = await import("./tar");
  await readTarGz(
    archive,
    (entry) => {
      if (!first) return null;
      first = false;
      if (entry.path !== MANIFEST_NAME) throw new Error("not a socialctl backup (no manifest first)");
      if (entry.size > MAX_MANIFEST_BYTES) throw new Error("backup manifest is too large");
      const chunks: Buffer[] = [];
      return {
        write: (c) => void chunks.push(Buffer.from(c)),
        end: () => void (text = Buffer.concat(chunks).toString("utf8")),
      };
    },
    { stopAfter: () => true },
  );
  if (text === null) throw new Error("not a socialctl backup (empty archive)");
  return parseManifest(text);
}
