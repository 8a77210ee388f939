import { createReadStream, createWriteStream } from "node:fs";
import { once } from "node:events";
import type { Writable } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import { Header, Pack, Parser, ReadEntry } from "tar";

/**
 * Backup archives through npm's `tar` (the one npm itself uses): a .tar.gz of regular
 * files with relative POSIX paths (long names get PAX headers). Reading is strict: anything
 * but a regular file (links, directories, devices), a corrupt header or a truncated stream
 * is an error. Compression goes through node:zlib's streams rather than tar's own gzip
 * (minizlib's synchronous calls): under Bun that failed now and then with Z_STREAM_ERROR or
 * "write after end" when a process wrote several archives. Whether a path may be
 * unpacked at all is the caller's decision (restore checks every one against the manifest).
 * Callers import this module with `await import("./tar")` when they first touch an archive,
 * so neither a serving process nor a CLI command loads npm's tar before it needs it.
 */

/** Writes a .tar.gz file entry by entry with backpressure. */
export class TarGzWriter {
  private readonly pack = new Pack({ portable: true, noDirRecurse: true });
  private readonly gzip = createGzip({ level: 6 });
  private readonly file: Writable;
  private readonly done: Promise<void>;

  constructor(path: string) {
    this.file = createWriteStream(path, { mode: 0o600 });
    this.pack.pipe(this.gzip).pipe(this.file);
    this.done = new Promise((resolve, reject) => {
      this.file.on("finish", resolve);
      this.file.on("error", reject);
      this.gzip.on("error", reject);
      this.pack.on("error", reject);
    });
    // surface write errors through finish() rather than as unhandled rejections
    this.done.catch(() => {});
  }

  private entry(path: string, size: number, mtimeMs: number): ReadEntry {
    const entry = new ReadEntry(
      new Header({ path, size, mode: 0o600, mtime: new Date(Math.floor(mtimeMs / 1000) * 1000), type: "File" }),
    );
    this.pack.add(entry);
    return entry;
  }

  /** Adds an in-memory entry. */
  async addBuffer(path: string, data: Uint8Array, mtimeMs = Date.now()): Promise<void> {
    const entry = this.entry(path, data.byteLength, mtimeMs);
    entry.end(Buffer.from(data));
    await this.flushed();
  }

  /** Streams a file from disk; its size must not change while it is read. */
  async addFile(
    path: string,
    source: string,
    size: number,
    mtimeMs: number,
    onBytes?: (n: number) => void,
  ): Promise<void> {
    const entry = this.entry(path, size, mtimeMs);
    let seen = 0;
    for await (const chunk of createReadStream(source)) {
      const buf = chunk as Buffer;
      seen += buf.byteLength;
      if (seen > size) throw new Error(`${source} grew while it was archived`);
      await this.write(entry, buf, onBytes);
    }
    if (seen !== size) throw new Error(`${source} shrank while it was archived`);
    entry.end();
    await this.flushed();
  }

  private async write(entry: ReadEntry, chunk: Buffer, onBytes?: (n: number) => void): Promise<void> {
    if (!entry.write(chunk)) await once(entry, "drain");
    onBytes?.(chunk.byteLength);
  }

  /** Waits while the compressed output is behind, so memory stays bounded. */
  private async flushed(): Promise<void> {
    if (this.gzip.writableNeedDrain) await once(this.gzip, "drain");
  }

  /** Writes the end-of-archive marker and waits until the file is flushed. */
  async finish(): Promise<void> {
    this.pack.end();
    await this.done;
  }

  /** Abandons the archive (the caller removes the file). */
  abort(): void {
    this.pack.unpipe(this.gzip);
    this.gzip.destroy();
    this.file.destroy();
  }
}

export interface TarEntry {
  path: string;
  size: number;
}

/** What a reader does with one entry's bytes; null skips the entry. Errors thrown abort the read. */
export interface EntrySink {
  write(chunk: Buffer): void;
  end(): void;
}

const REGULAR = new Set(["File", "OldFile"]);

/**
 * Reads a .tar.gz, calling `open` for each regular file; `stopAfter` ends reading early
 * (e.g. once the manifest is read). Throws on a truncated or corrupt archive.
 */
export async function readTarGz(
  path: string,
  open: (entry: TarEntry) => EntrySink | null,
  opts: { stopAfter?: (entry: TarEntry) => boolean } = {},
): Promise<void> {
  const source = createReadStream(path);
  const gunzip = createGunzip();
  const parser = new Parser({ strict: true });
  let settled = false;
  let sawEnd = false;
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const finished = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const settle = (err: Error | null) => {
    if (settled) return;
    settled = true;
    gunzip.unpipe(parser);
    source.destroy();
    gunzip.destroy();
    if (err) reject(err);
    else resolve();
  };
  // the parser's and zlib's complaints (strict mode turns every warning into one)
  const refuse = (err: unknown) => settle(new Error(describe(String((err as Error)?.message ?? err)), { cause: err }));
  parser.on("warn", (_code: string, message: unknown) => refuse(message));
  parser.on("error", refuse);
  parser.on("eof", () => (sawEnd = true));
  parser.on("end", () => settle(sawEnd ? null : new Error("archive is truncated")));
  source.on("error", (err) => settle(err));
  gunzip.on("error", (err) => settle(new Error("archive is corrupt (gzip data error)", { cause: err })));
  parser.on("entry", (entry: ReadEntry) => {
    if (settled) return entry.resume();
    if (!REGULAR.has(entry.type)) return settle(new Error(`archive holds an unsupported entry type for ${entry.path}`));
    const info = { path: entry.path, size: entry.size };
    let sink: EntrySink | null;
    try {
      sink = open(info);
    } catch (err) {
      return settle(err as Error);
    }
    entry.on("data", (chunk: Buffer) => {
      if (!sink || settled) return;
      try {
        sink.write(chunk);
      } catch (err) {
        settle(err as Error);
      }
    });
    entry.on("end", () => {
      if (settled) return;
      try {
        sink?.end();
      } catch (err) {
        return settle(err as Error);
      }
      if (opts.stopAfter?.(info)) settle(null);
    });
  });
  source.pipe(gunzip).pipe(parser);
  await finished;
}

/** tar's messages, in the words restore has always used. */
function describe(message: string): string {
  if (/checksum/i.test(message)) return "archive is corrupt (header checksum mismatch)";
  if (/truncated/i.test(message)) return "archive is truncated";
  return `archive is corrupt (${message})`;
}
