import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { defineService, type App } from "../app";
import { randomToken } from "../lib/ids";
import { filesDir, UPLOADS_TMP_DIR } from "../config/layout";

/** A stored file as the server reads it back: size, modification time, and a sliceable body. */
export interface StoredFile {
  size: number;
  mtimeMs: number;
  /** the whole file; `.slice(start, end)` reads a byte range lazily */
  body: Blob;
  /** What a Response sends for bytes START..END-1 (all without them): the local file itself, so Bun can sendfile it, or a stream from the bucket. */
  send(start?: number, end?: number): Blob | ReadableStream;
}

/**
 * Where uploaded files live. Keys are server-made names (see uploads.ts), never user input.
 * The local directory is the default; an S3-compatible bucket (s3-store.ts) takes its place
 * when files.s3.bucket is set, so several nodes serve the same files.
 */
export interface FileStore {
  /** what status and /readyz name */
  readonly engine: "local" | "s3";
  /** Stores SOURCE under KEY atomically: readers see the whole file or nothing. */
  put(key: string, source: Blob | Uint8Array): Promise<void>;
  /** Moves a local scratch file into the store under KEY (the path is gone afterwards). */
  moveIn(key: string, path: string): Promise<void>;
  get(key: string): Promise<StoredFile | null>;
  delete(key: string): Promise<void>;
  /** Where to send a client for KEY instead of streaming it through this server, or null. */
  redirectUrl(key: string): string | null;
  /** null while the store is usable, else why not (for /readyz, status and doctor). */
  problem(): Promise<string | null>;
}

/** Keys are validated by the caller; this only rejects anything that could leave the directory. */
const SAFE_KEY = /^[A-Za-z0-9_-]+(\.[a-z0-9]{1,5})?$/;

/** Files under <data-dir>/files/<first two characters>/<key>, written via a temp file and rename. */
export class LocalFileStore implements FileStore {
  readonly engine = "local";
  private readonly tmpDir: string;

  constructor(private readonly root: string) {
    this.tmpDir = join(root, UPLOADS_TMP_DIR);
  }

  private pathOf(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
    return join(this.root, key.slice(0, 2), key);
  }

  async put(key: string, source: Blob | Uint8Array): Promise<void> {
    const target = this.pathOf(key);
    mkdirSync(this.tmpDir, { recursive: true });
    mkdirSync(join(this.root, key.slice(0, 2)), { recursive: true });
    const tmp = join(this.tmpDir, `${randomToken(12)}.part`);
    try {
      await Bun.write(tmp, source);
      // same filesystem: rename is atomic, so a crash never leaves half a file behind a URL
      renameSync(tmp, target);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  async moveIn(key: string, path: string): Promise<void> {
    const target = this.pathOf(key);
    mkdirSync(join(this.root, key.slice(0, 2)), { recursive: true });
    try {
      // scratch files live in <root>/.tmp: same filesystem, so this is an atomic rename
      renameSync(path, target);
    } catch {
      await this.put(key, Bun.file(path));
      rmSync(path, { force: true });
    }
  }

  async get(key: string): Promise<StoredFile | null> {
    if (!SAFE_KEY.test(key)) return null;
    const path = this.pathOf(key);
    let st;
    try {
      st = statSync(path);
    } catch {
      return null;
    }
    if (!st.isFile()) return null;
    const body = Bun.file(path);
    return {
      size: st.size,
      mtimeMs: st.mtimeMs,
      body,
      send: (start, end) => (start === undefined ? body : body.slice(start, end)),
    };
  }

  async delete(key: string): Promise<void> {
    rmSync(this.pathOf(key), { force: true });
  }

  redirectUrl(): null {
    return null;
  }

  async problem(): Promise<string | null> {
    // the database check already covers the data dir's disk; a files dir that cannot be made is the rest
    try {
      mkdirSync(this.tmpDir, { recursive: true });
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }
}

/** The file store service: local under the data dir unless another store is provided. */
export const fileStoreService = defineService<FileStore>(
  "media:file-store",
  (app) => new LocalFileStore(filesDir(app.dataDir)),
);

/** The App's file store. */
export const fileStore = (app: App): FileStore => app.services.get(fileStoreService);

/** A scratch directory for streamed request bodies, inside the data dir (same filesystem as files/). */
export function scratchDir(app: App): string {
  const dir = join(filesDir(app.dataDir), UPLOADS_TMP_DIR);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Removes scratch files (streamed bodies, half-written files, video work files) last
 * touched before OLDERTHAN: what a crash or a killed process left behind. Work in progress
 * is minutes old at most. Returns the files removed.
 */
export function removeStaleScratch(app: App, olderThan: number): number {
  const dir = scratchDir(app);
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (!st.isFile() || st.mtimeMs >= olderThan) continue;
      rmSync(path, { force: true });
      removed++;
    } catch {
      // gone meanwhile
    }
  }
  return removed;
}
