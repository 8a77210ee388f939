import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfig } from "../config";
import { bucketContents, bucketOf, checkObjects } from "./bucket";
import { type BackupManifest, readManifest } from "./manifest";
import { unpackVerified } from "./restore";

export interface BucketVerdict {
  endpoint: string | null;
  bucket: string;
  listed: number;
  /** listed objects the bucket still holds, same size and ETag */
  present: number;
  /** originals gone or rewritten: the instance restored from this archive would lack them */
  missing: string[];
  changed: string[];
  /** thumbnails and posters gone or rewritten (`media rebuild-derived` makes them again) */
  derivedMissing: string[];
  derivedChanged: string[];
  /** the bucket could not be listed when the archive was made: nothing to check against */
  listingError?: string;
}

export interface VerifyReport {
  file: string;
  createdAt: string;
  schemaVersion: string | null;
  /** every file in the archive matched its manifest entry (size and sha256) */
  archiveFiles: number;
  bucket: BucketVerdict | null;
  /** false when an original the archive lists is no longer in the bucket as it was, or it lists none for want of a listing */
  ok: boolean;
}

/**
 * `backup verify FILE`: reads the whole archive checking every file's size and sha256 against
 * its manifest (throws at the first difference, as restore would), and, when the archive
 * lists a bucket's objects instead of holding the files, whether the bucket still holds
 * each of them with the same size and ETag. The bucket and endpoint are the manifest's; the
 * credentials come from DATADIR's config or environment. Changes nothing.
 */
export async function verifyBackup(opts: {
  dataDir: string;
  file: string;
  onProgress?: (p: { step: "archive" | "bucket"; done: number; total: number }) => void;
}): Promise<VerifyReport> {
  const file = resolve(opts.file);
  if (!existsSync(file)) throw new Error(`no backup archive at ${file}`);
  const manifest = await readManifest(file);
  await unpackVerified(file, manifest, null, (p) => opts.onProgress?.({ step: "archive", ...p }));
  const bucket = manifest.bucket ? await verifyBucket(opts.dataDir, manifest, opts.onProgress) : null;
  return {
    file,
    createdAt: manifest.createdAt,
    schemaVersion: manifest.schemaVersion,
    archiveFiles: manifest.files.length,
    bucket,
    ok: !bucket || (!bucket.listingError && bucket.missing.length === 0 && bucket.changed.length === 0),
  };
}

async function verifyBucket(
  dataDir: string,
  manifest: BackupManifest,
  onProgress: Parameters<typeof verifyBackup>[0]["onProgress"],
): Promise<BucketVerdict> {
  const listed = manifest.bucket!;
  const empty = { missing: [], changed: [], derivedMissing: [], derivedChanged: [] };
  if (listed.listingError)
    return {
      endpoint: listed.endpoint,
      bucket: listed.bucket,
      listed: 0,
      present: 0,
      ...empty,
      listingError: listed.listingError,
    };
  const config = loadConfig(resolve(dataDir), {
    "files.s3.endpoint": listed.endpoint ?? "",
    "files.s3.region": listed.region,
  });
  const contents = await bucketContents(bucketOf(config, listed.bucket), (n) =>
    onProgress?.({ step: "bucket", done: n, total: Math.max(n, listed.objectCount) }),
  );
  const check = checkObjects(listed.objects, contents);
  const keys = (objects: typeof listed.objects, derived: boolean) =>
    objects.filter((o) => Boolean(o.derived) === derived).map((o) => o.key);
  return {
    endpoint: listed.endpoint,
    bucket: listed.bucket,
    listed: listed.objectCount,
    present: check.present,
    missing: keys(check.missing, false),
    changed: keys(check.changed, false),
    derivedMissing: keys(check.missing, true),
    derivedChanged: keys(check.changed, true),
  };
}
