import type { Config } from "../config";
import { S3FileStore, type BucketObject } from "../media/s3-store";
import { FILES_DIR } from "../config/layout";
import type { ManifestObject } from "./manifest";
import { renditionsOf } from "../media/table";

/* What an instance's database says is in its file store, set against what a bucket holds. */

/** A stored file the uploads table names: an original, or a thumbnail or poster made from one. */
export interface StoredKey {
  key: string;
  derived: boolean;
}

/** The stored file name that one of this instance's file URLs (absolute or path-only) points at. */
export function storedNameOf(url: string): string | null {
  let pathname: string;
  try {
    pathname = new URL(url, "http://local").pathname;
  } catch {
    return null;
  }
  const at = pathname.lastIndexOf(`/${FILES_DIR}/`);
  if (at === -1) return null;
  const name = decodeURIComponent(pathname.slice(at + FILES_DIR.length + 2))
    .split("/")
    .at(-1);
  return name && name !== ".." && name !== "." ? name : null;
}

/**
 * Every key the uploads rows ROWS name, each once: the file itself, and its thumbnail,
 * poster and display renditions (derived: made again from the original by `media
 * rebuild-derived`). A video's poster doubles as its thumbnail, and a thumbnail URL may name
 * the original itself.
 */
export function storedKeysOf(
  rows: Iterable<{
    storage_key: string;
    thumb_url?: string | null;
    poster_url?: string | null;
    renditions?: string | null;
  }>,
): StoredKey[] {
  const out = new Map<string, StoredKey>();
  for (const row of rows) {
    out.set(row.storage_key, { key: row.storage_key, derived: false });
    const renditionUrls = renditionsOf({ renditions: row.renditions ?? null }).map((r) => r.url);
    for (const url of [row.thumb_url, row.poster_url, ...renditionUrls]) {
      const key = url ? storedNameOf(url) : null;
      if (key && !out.has(key)) out.set(key, { key, derived: true });
    }
  }
  return [...out.values()];
}

/** The bucket files.s3.* of CONFIG names, with BUCKET in its place when given. */
export function bucketOf(config: Config, bucket?: string): S3FileStore {
  return new S3FileStore(bucket === undefined ? config : { ...config, "files.s3.bucket": bucket });
}

/**
 * The whole bucket as key → object, read through its listing (1,000 keys a request, where a
 * HEAD per key would be one request a file). Objects the instance does not name are kept
 * too: the bucket may be shared, and the caller picks what it needs.
 */
export async function bucketContents(
  store: S3FileStore,
  onPage?: (listed: number) => void,
): Promise<Map<string, BucketObject>> {
  const found = new Map<string, BucketObject>();
  for await (const page of store.listObjects()) {
    for (const o of page) found.set(o.key, o);
    onPage?.(found.size);
  }
  return found;
}

/** KEYS as the bucket holds them (size, ETag), and those it lacks. */
export function objectsOf(
  keys: StoredKey[],
  contents: Map<string, BucketObject>,
): { objects: ManifestObject[]; missing: string[] } {
  const objects: ManifestObject[] = [];
  const missing: string[] = [];
  for (const { key, derived } of keys) {
    const o = contents.get(key);
    if (!o) missing.push(key);
    else objects.push({ key, size: o.size, etag: o.etag, ...(derived ? { derived: true as const } : {}) });
  }
  return { objects, missing };
}

export interface BucketCheck {
  /** listed objects found with the same size and ETag */
  present: number;
  /** listed objects the bucket no longer has */
  missing: ManifestObject[];
  /** listed objects whose size or ETag differ now (rewritten since) */
  changed: ManifestObject[];
}

/** Compares a manifest's OBJECTS with the bucket's current CONTENTS. */
export function checkObjects(objects: ManifestObject[], contents: Map<string, BucketObject>): BucketCheck {
  const check: BucketCheck = { present: 0, missing: [], changed: [] };
  for (const o of objects) {
    const now = contents.get(o.key);
    if (!now) check.missing.push(o);
    else if (now.size !== o.size || now.etag !== o.etag) check.changed.push(o);
    else check.present++;
  }
  return check;
}
