import { S3Client } from "bun";
import { rmSync } from "node:fs";
import type { App } from "../app";
import type { Config } from "../config";
import { OCTET_STREAM, TYPES_BY_EXT } from "./sniff";
import { fileStoreService, type FileStore, type StoredFile } from "./store";

/** One object as a bucket listing names it. */
export interface BucketObject {
  key: string;
  size: number;
  etag: string;
}

/** A presigned URL lives this long; the redirect to it may be cached a little less. */
const PRESIGN_SECONDS = 3600;
export const REDIRECT_CACHE_SECONDS = PRESIGN_SECONDS - 300;

const SAFE_KEY = /^[A-Za-z0-9_-]+(\.[a-z0-9]{1,5})?$/;

const errorText = (err: unknown) =>
  err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err);

/**
 * Uploads, thumbnails and posters in an S3-compatible bucket (files.s3.*), through Bun's S3
 * client. Keys are the server-made names, flat in the bucket. Each object carries the type
 * and disposition the instance serves it with, so a presigned redirect (files.s3.serve =
 * redirect) shows the same Content-Type and inline/attachment as the proxied answer.
 * Scratch work (request bodies, ffmpeg input) stays on local disk under the data dir.
 */
export class S3FileStore implements FileStore {
  readonly engine = "s3";
  private readonly client: S3Client;

  constructor(
    config: Pick<
      Config,
      | "files.s3.endpoint"
      | "files.s3.bucket"
      | "files.s3.region"
      | "files.s3.accessKeyId"
      | "files.s3.secretAccessKey"
      | "files.s3.serve"
    >,
  ) {
    this.client = new S3Client({
      endpoint: config["files.s3.endpoint"] || undefined,
      bucket: config["files.s3.bucket"],
      region: config["files.s3.region"],
      accessKeyId: config["files.s3.accessKeyId"] || undefined,
      secretAccessKey: config["files.s3.secretAccessKey"] || undefined,
    });
    this.redirects = config["files.s3.serve"] === "redirect";
  }

  private readonly redirects: boolean;

  private options(key: string) {
    const type = TYPES_BY_EXT[key.slice(key.lastIndexOf(".") + 1)] ?? OCTET_STREAM;
    return { type: type.mime, contentDisposition: type.class === "file" ? "attachment" : "inline" };
  }

  private check(key: string): void {
    if (!SAFE_KEY.test(key)) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
  }

  async put(key: string, source: Blob | Uint8Array): Promise<void> {
    this.check(key);
    // an S3 PUT (or a completed multipart upload) is atomic: readers see all of it or nothing
    await this.client.write(key, source, this.options(key));
  }

  async moveIn(key: string, path: string): Promise<void> {
    this.check(key);
    try {
      await this.client.write(key, Bun.file(path), this.options(key));
    } finally {
      rmSync(path, { force: true });
    }
  }

  async get(key: string): Promise<StoredFile | null> {
    if (!SAFE_KEY.test(key)) return null;
    const file = this.client.file(key);
    let stat;
    try {
      stat = await file.stat();
    } catch (err) {
      if ((err as { code?: string }).code === "NoSuchKey") return null;
      throw err;
    }
    return {
      size: stat.size,
      mtimeMs: stat.lastModified.getTime(),
      body: file,
      // a Response made of an S3 file would redirect to a presigned URL: the bytes are streamed instead
      send: (start, end) => (start === undefined ? file : file.slice(start, end)).stream(),
    };
  }

  async delete(key: string): Promise<void> {
    this.check(key);
    await this.client.delete(key);
  }

  /** A presigned GET of KEY when files.s3.serve is redirect, else null (the instance streams it). */
  redirectUrl(key: string): string | null {
    return this.redirects ? this.client.presign(key, { expiresIn: PRESIGN_SECONDS }) : null;
  }

  /**
   * Every object of the bucket, a page (up to 1,000) at a time: what a backup
   * lists and verifies. ETag is as the bucket reports it (an MD5 of the bytes for a single
   * PUT; something else for multipart uploads and some encryption modes).
   */
  async *listObjects(): AsyncGenerator<BucketObject[]> {
    let continuationToken: string | undefined;
    for (;;) {
      const page = await this.client.list({ maxKeys: 1000, continuationToken });
      const objects = (page.contents ?? []).map((o) => ({ key: o.key, size: o.size ?? 0, etag: o.eTag ?? "" }));
      if (objects.length) yield objects;
      if (!page.isTruncated || !page.nextContinuationToken) return;
      continuationToken = page.nextContinuationToken;
    }
  }

  /** null while the bucket answers a listing, else why it does not. */
  async problem(): Promise<string | null> {
    try {
      // a prefix no key has: an empty answer, cheap on a big bucket and never paginated
      await this.client.list({ prefix: ".socialctl-probe/", maxKeys: 1 });
      return null;
    } catch (err) {
      return `s3: ${errorText(err)}`;
    }
  }
}

/** Puts uploads in the bucket when files.s3.bucket is set (chosen once, at start-up, by wiring.ts). */
export function openS3FileStore(app: App): void {
  if (!app.config["files.s3.bucket"]) return;
  app.services.provide(fileStoreService, new S3FileStore(app.config));
}
