import pLimit from "p-limit";
import { resolve } from "node:path";
import { loadConfig, storeConfigValues } from "../config";
import { dbPath, filesDir, isInitialised } from "../config/layout";
import { openInstanceStorage } from "../db";
import type { S3FileStore } from "../media/s3-store";
import { LocalFileStore } from "../media/store";
import { bucketOf, storedKeysOf, type StoredKey } from "./bucket";
import { instanceFiles, sha256Blob } from "./layout";
import { assertNoServerRunning } from "./server-lock";

export interface ToS3Result {
  bucket: string;
  endpoint: string | null;
  /** files the uploads table names (originals, thumbnails, posters) */
  files: number;
  /** copied by this run, each read back and matched by size and sha256 */
  uploaded: number;
  /** already in the bucket: with the same size and sha256 as here (an earlier run), or only there */
  alreadyThere: number;
  bytes: number;
  /** named by the database but neither under files/ nor in the bucket (they were already lost) */
  missing: string[];
  /** files under files/ no upload names: left where they are, not copied */
  unreferenced: number;
  /** files.s3.bucket was set by this run (false: the instance already used this bucket) */
  switched: boolean;
  ms: number;
}

/** S3's bucket naming rules (lowercase letters, digits, dots and hyphens, 3 to 63 characters). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Files copied at once: enough to hide a bucket's latency, few enough for a small VPS. */
const PARALLEL = 4;

/** Waits between read-backs of an object that does not match yet. */
const READ_BACK_DELAYS_MS = [100, 400, 1500, 3000];

/**
 * Reads KEY back from the bucket until it has SIZE bytes with SHA256, or throws why not.
 * Some S3-compatible servers (s3rver among them) answer a PUT before its bytes are
 * readable, so a mismatch is read again a few times before it counts.
 */
async function readBack(store: S3FileStore, key: string, size: number, sha256: string): Promise<void> {
  let why = "";
  for (let attempt = 0; attempt <= READ_BACK_DELAYS_MS.length; attempt++) {
    if (attempt > 0) await Bun.sleep(READ_BACK_DELAYS_MS[attempt - 1]!);
    const back = await store.get(key);
    if (!back) why = "not in the bucket after the upload";
    else if (back.size !== size) why = `${back.size} bytes in the bucket after the upload, ${size} here`;
    else if ((await sha256Blob(back.body)) !== sha256) why = "sha256 differs after the upload";
    else return;
  }
  throw new Error(why);
}

/**
 * `socialctl media to-s3 BUCKET`: copies every file the instance's uploads table names from
 * the data dir's files/ into BUCKET (files.s3.endpoint, region and keys as configured), reads
 * each back and compares size and sha256, and only when every one matches sets
 * files.s3.bucket, which switches the instance to the bucket at its next start. Files already
 * in the bucket with the same bytes are not copied again, so a run that failed halfway (or a
 * second run) picks up where it stopped. The server must be stopped: an upload made during
 * the copy would stay behind. Local files are left as they were.
 */
export async function moveFilesToS3(
  dataDirInput: string,
  bucket: string,
  onProgress?: (p: { done: number; total: number }) => void,
): Promise<ToS3Result> {
  const t0 = performance.now();
  const dataDir = resolve(dataDirInput);
  if (!BUCKET_NAME.test(bucket))
    throw new Error(`"${bucket}" is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens)`);
  if (!isInitialised(dataDir)) throw new Error(`no instance in ${dataDir}: nothing to move`);
  const config = loadConfig(dataDir);
  const current = config["files.s3.bucket"];
  if (current && current !== bucket)
    throw new Error(`the instance already keeps its files in bucket ${current} (files.s3.bucket)`);
  assertNoServerRunning(dataDir, "moving its files");
  const store = bucketOf(config, bucket);
  const problem = await store.problem();
  if (problem)
    throw new Error(
      `bucket ${bucket} cannot be used (${problem}): check files.s3.endpoint, files.s3.region and the access keys`,
    );

  const storage = openInstanceStorage(config["database.url"], dbPath(dataDir), {
    poolSize: config["database.poolSize"],
  });
  let keys: StoredKey[];
  try {
    keys = storedKeysOf(
      await storage.db
        .selectFrom("uploads")
        .select(["storage_key", "thumb_url", "poster_url", "renditions"])
        .orderBy("id")
        .execute(),
    );
  } finally {
    await storage.close();
  }

  const local = new LocalFileStore(filesDir(dataDir));
  const result: ToS3Result = {
    bucket,
    endpoint: config["files.s3.endpoint"] || null,
    files: keys.length,
    uploaded: 0,
    alreadyThere: 0,
    bytes: 0,
    missing: [],
    unreferenced: 0,
    switched: false,
    ms: 0,
  };
  const failures: string[] = [];
  let done = 0;
  const limit = pLimit(PARALLEL);
  await Promise.all(
    keys.map(({ key }) =>
      limit(async () => {
        try {
          const mine = await local.get(key);
          const theirs = await store.get(key);
          if (!mine) {
            if (theirs) result.alreadyThere++;
            else result.missing.push(key);
          } else {
            const sha256 = await sha256Blob(mine.body);
            if (theirs && theirs.size === mine.size && (await sha256Blob(theirs.body)) === sha256) {
              result.alreadyThere++;
            } else {
              await store.put(key, mine.body);
              await readBack(store, key, mine.size, sha256);
              result.uploaded++;
              result.bytes += mine.size;
            }
          }
        } catch (err) {
          failures.push(`${key}: ${(err as Error).message}`);
        }
        onProgress?.({ done: ++done, total: keys.length });
      }),
    ),
  );
  if (failures.length)
    throw new Error(
      `${failures.length} of ${keys.length} files could not be copied and verified (${failures[0]}); the instance stays on local files: run the command again`,
    );
  const named = new Set(keys.map((k) => k.key));
  result.unreferenced = instanceFiles(dataDir).filter((f) => !named.has(f.rel.split("/").at(-1)!)).length;
  result.missing.sort();
  if (!current) {
    storeConfigValues(dataDir, { "files.s3.bucket": bucket });
    result.switched = true;
  }
  result.ms = performance.now() - t0;
  return result;
}
