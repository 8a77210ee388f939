import { createReadStream, createWriteStream } from "node:fs";
import { once } from "node:events";
import { createGunzip, createGzip } from "node:zlib";
import type { Writable } from "node:stream";

/**
 * A small streaming tar (ustar) writer and reader over gzip, so backups need no external
 * binaries. Only regular files are written and read; names are relative POSIX paths.
 */
const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** Splits a path into ustar's prefix (≤155) and name (≤100) fields. */
function splitName(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: "" };
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { name, prefix };
  }
  throw new Error(`path too long for the archive: ${path}`);
}

function header(path: string, size: number, mtimeMs: number, mode = 0o600): Buffer {
  const h = Buffer.alloc(BLOCK, 0);
  const { name, prefix } = splitName(path);
  h.write(name, 0, 100, "utf8");
  h.write(octal(mode, 8), 100, 8, "ascii");
  h.write(octal(0, 8), 108, 8, "ascii");
  h.write(octal(0, 8), 116, 8, "ascii");
  h.write(octal(size, 12), 124, 12, "ascii");
  h.write(octal(Math.floor(mtimeMs / 1000), 12), 136, 12, "ascii");
  h.write("        ", 148, 8, "ascii");
  h.write("0", 156, 1, "ascii");
  h.write("ustar\0", 257, 6, "ascii");
  h.write("00", 263, 2, "ascii");
  h.write(prefix, 345, 155, "utf8");
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + " ", 148, 8, "ascii");
  return h;
}

async function write(out: Writable, chunk: Buffer): Promise<void> {
  if (!out.write(chunk)) await once(out, "drain");
}

/** Writes a .tar.gz file entry by entry with backpressure. */
export class TarGzWriter {
  private readonly gzip = createGzip({ level: 6 });
  private readonly file: Writable;
  private readonly done: Promise<void>;

  constructor(path: string) {
    this.file = createWriteStream(path, { mode: 0o600 });
    this.gzip.pipe(this.file);
    this.done = new Promise((resolve, reject) => {
      this.file.on("finish", resolve);
      this.file.on("error", reject);
      this.gzip.on("error", reject);
    });
    // surface write errors through finish() rather than as unhandled rejections
    this.done.catch(() => {});
  }

  /** Adds an in-memory entry. */
  async addBuffer(path: string, data: Uint8Array, mtimeMs = Date.now()): Promise<void> {
    await write(this.gzip, header(path, data.byteLength, mtimeMs));
    await write(this.gzip, Buffer.from(data));
    await this.pad(data.byteLength);
  }

  /** Streams a file from disk; its size must not change while it is read. */
  async addFile(path: string, source: string, size: number, mtimeMs: number, onBytes?: (n: number) => void): Promise<void> {
    await write(this.gzip, header(path, size, mtimeMs));
    let seen = 0;
    for await (const chunk of createReadStream(source)) {
      const buf = chunk as Buffer;
      seen += buf.byteLength;
      if (seen > size) throw new Error(`${source} grew while it was archived`);
      await write(this.gzip, buf);
      onBytes?.(buf.byteLength);
    }
    if (seen !== size) throw new Error(`${source} shrank while it was archived`);
    await this.pad(size);
  }

  private async pad(size: number): Promise<void> {
    const rest = size % BLOCK;
    if (rest) await write(this.gzip, Buffer.alloc(BLOCK - rest, 0));
  }

  /** Writes the end-of-archive marker and waits until the file is flushed. */
  async finish(): Promise<void> {
    await write(this.gzip, Buffer.alloc(BLOCK * 2, 0));
    this.gzip.end();
    await this.done;
  }

  /** Abandons the archive (the caller removes the file). */
  abort(): void {
    this.gzip.destroy();
    this.file.destroy();
  }
}

export interface TarEntry {
  path: string;
  size: number;
}

/** What a reader does with one entry's bytes; null skips the entry. */
export interface EntrySink {
  write(chunk: Buffer): void | Promise<void>;
  end(): void | Promise<void>;
}

function parseOctal(buf: Buffer, start: number, len: number): number {
  const text = buf.toString("ascii", start, start + len).replace(/\0.*$/, "").trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new Error("archive is corrupt (bad number in a header)");
  return parseInt(text, 8);
}

function parseHeader(h: Buffer): (TarEntry & { type: string }) | null {
  if (h.every((b) => b === 0)) return null;
  const stored = parseOctal(h, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  if (sum !== stored) throw new Error("archive is corrupt (header checksum mismatch)");
  const name = h.toString("utf8", 0, 100).replace(/\0.*$/s, "");
  const prefix = h.toString("utf8", 345, 500).replace(/\0.*$/s, "");
  const type = String.fromCharCode(h[156] || 48);
  return { path: prefix ? `${prefix}/${name}` : name, size: parseOctal(h, 124, 12), type };
}

/**
 * Reads a .tar.gz, calling `open` for each regular file; `stopAfter` ends reading early
 * (e.g. once the manifest is read). Throws on a truncated or corrupt archive.
 */
export async function readTarGz(
  path: string,
  open: (entry: TarEntry) => EntrySink | null | Promise<EntrySink | null>,
  opts: { stopAfter?: (entry: TarEntry) => boolean } = {},
): Promise<void> {
  const source = createReadStream(path);
  const gunzip = createGunzip();
  source.pipe(gunzip);
  let pending = Buffer.alloc(0);
  let entry: (TarEntry & { type: string }) | null = null;
  let sink: EntrySink | null = null;
  let remaining = 0;
  let padding = 0;
  let ended = false;
  try {
    for await (const raw of gunzip) {
      let chunk = raw as Buffer;
      while (chunk.length > 0) {
        if (ended) return;
        if (entry && remaining > 0) {
          const take = Math.min(remaining, chunk.length);
          if (sink) await sink.write(chunk.subarray(0, take));
          remaining -= take;
          chunk = chunk.subarray(take);
          if (remaining === 0) {
            if (sink) await sink.end();
            const finished = entry;
            entry = null;
            sink = null;
            if (opts.stopAfter?.(finished)) return;
          }
          continue;
        }
        if (padding > 0) {
          const take = Math.min(padding, chunk.length);
          padding -= take;
          chunk = chunk.subarray(take);
          continue;
        }
        const need = BLOCK - pending.length;
        pending = Buffer.concat([pending, chunk.subarray(0, need)]);
        chunk = chunk.subarray(need);
        if (pending.length < BLOCK) continue;
        const h = parseHeader(pending);
        pending = Buffer.alloc(0);
        if (!h) {
          ended = true;
          return;
        }
        padding = h.size % BLOCK ? BLOCK - (h.size % BLOCK) : 0;
        if (h.type !== "0") throw new Error(`archive holds an unsupported entry type for ${h.path}`);
        sink = await open(h);
        if (h.size === 0) {
          if (sink) await sink.end();
          sink = null;
          if (opts.stopAfter?.(h)) return;
          continue;
        }
        entry = h;
        remaining = h.size;
      }
    }
    if (!ended) throw new Error("archive is truncated");
  } catch (err) {
    if ((err as { code?: string }).code === "Z_DATA_ERROR" || (err as { code?: string }).code === "Z_BUF_ERROR") {
      throw new Error("archive is corrupt (gzip data error)", { cause: err });
    }
    throw err;
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}
