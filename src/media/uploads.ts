import { rmSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import type { App } from "../app";
import type { Db } from "../db";
import { AppError, fieldError } from "../lib/errors";
import { newCuid, randomToken } from "../lib/ids";
import { describeImage, processImage, type RenditionImage } from "./image";
import { UPLOAD_KINDS, type MediaClass, type UploadKind } from "./kinds";
import { sniffType, type SniffedType } from "./sniff";
import { fileStore, scratchDir } from "./store";
import { ffmpegTools, makePoster, probeMedia } from "./video";
import type { Rendition, UploadRow } from "./table";

export { UPLOAD_KINDS, BOT_FILE_LIMITS, MAX_UPLOAD_BYTES, isUploadKind, type UploadKind } from "./kinds";

export interface StoreUploadInput {
  ownerId: number;
  kind: UploadKind;
  data: Blob | Uint8Array;
  filename?: string;
  /** the client's claimed type; recorded nowhere, the bytes decide */
  declaredMime?: string;
  /** a different size limit than the kind's (the Bot API's file limits) */
  maxBytes?: number;
  /** SHA-256 (hex) of DATA, recorded when the caller finds uploads by content (the Bot API) */
  contentHash?: string;
}

/**
 * Served names: 24 random URL-safe characters, `-t` (thumbnail), `-p` (poster) or `-d<box>`
 * (display rendition), extension.
 */
export const FILE_NAME = /^[A-Za-z0-9_-]{24}(-[tp]|-d\d{2,4})?\.[a-z0-9]{1,5}$/;

/** The storage key of an upload's display rendition in BOX (see image.ts RENDITION_BOXES). */
export const renditionKey = (storageKey: string, box: number): string => `${storageKey.slice(0, 24)}-d${box}.webp`;
export const FILES_PATH = "/files/";

export const fileUrl = (app: App, key: string): string => `${app.config.baseUrl}${FILES_PATH}${key}`;

const MB = 1024 * 1024;
const formatMb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

/** 413 VALIDATION_ERROR on `file`: the file is over the limit of its kind. */
export function fileTooLarge(kind: string, maxBytes: number): AppError {
  return new AppError(413, "VALIDATION_ERROR", `file: larger than the ${formatMb(maxBytes)} limit of kind "${kind}"`, {
    fieldErrors: { file: [`must be at most ${formatMb(maxBytes)} (${maxBytes} bytes) for kind "${kind}"`] },
  });
}

const CLASS_NAMES: Record<MediaClass, string> = {
  image: "an image (JPEG, PNG, GIF, WebP, AVIF)",
  video: "a video",
  audio: "an audio recording",
  file: "a file",
};

/**
 * Stores one uploaded file: checks its size against the kind's limit, decides its real type
 * from the bytes, re-encodes images (metadata stripped, thumbnail made), probes videos and
 * audio when ffmpeg is on PATH (poster, duration), writes everything atomically into the
 * file store and records the upload. Bad files are VALIDATION_ERRORs on `file`.
 */
export async function storeUpload(app: App, input: StoreUploadInput): Promise<UploadRow> {
  const spec = UPLOAD_KINDS[input.kind];
  if (!spec) throw fieldError("kind", "is not a known upload kind");
  const maxBytes = input.maxBytes ?? spec.maxBytes;
  const blob = input.data instanceof Uint8Array ? new Blob([input.data as Uint8Array<ArrayBuffer>]) : input.data;
  if (blob.size > maxBytes) throw fileTooLarge(input.kind, maxBytes);
  if (blob.size === 0) throw fieldError("file", "is empty");

  const sniffed = await sniffType(await blob.slice(0, 4096).bytes());
  const accepts = spec.accepts as readonly MediaClass[];
  if (!accepts.includes(sniffed.class)) {
    throw fieldError(
      "file",
      `must be ${accepts.map((c) => CLASS_NAMES[c]).join(" or ")} for kind "${input.kind}"; the content is ${sniffed.mime.split(";")[0]}`,
    );
  }

  const base = randomToken(18);
  const store = fileStore(app);
  const written: string[] = [];
  const put = async (key: string, data: Blob | Uint8Array) => {
    await store.put(key, data);
    written.push(key);
  };

  try {
    const media = await prepareMedia(app, blob, sniffed, accepts.length === 1);
    const key = `${base}.${media.type.ext}`;
    const size = media.data instanceof Uint8Array ? media.data.byteLength : media.data.size;
    const scratchPath = media.data === blob ? ownScratchPath(app, blob) : null;
    if (scratchPath) {
      // a request body streamed to scratch by this server: moved, not copied (up to 120 MB)
      await store.moveIn(key, scratchPath);
      written.push(key);
    } else {
      await put(key, media.data);
    }
    let thumbUrl: string | null = null;
    let posterUrl: string | null = null;
    if (media.thumb) {
      await put(`${base}-t.webp`, media.thumb);
      thumbUrl = fileUrl(app, `${base}-t.webp`);
    }
    if (media.poster) {
      await put(`${base}-p.jpg`, media.poster);
      posterUrl = fileUrl(app, `${base}-p.jpg`);
      // the poster of a video doubles as its thumbnail
      thumbUrl ??= posterUrl;
    }
    const renditions: Rendition[] = [];
    for (const r of media.renditions) {
      const rKey = renditionKey(key, r.box);
      await put(rKey, r.data);
      renditions.push({ url: fileUrl(app, rKey), width: r.width, height: r.height, size: r.data.byteLength });
    }
    return await app.db
      .insertInto("uploads")
      .values({
        cuid: newCuid(),
        owner_id: input.ownerId,
        kind: input.kind,
        storage_key: key,
        url: fileUrl(app, key),
        mime: media.type.mime,
        size_bytes: size,
        width: media.width,
        height: media.height,
        duration_ms: media.durationMs,
        thumb_url: thumbUrl,
        poster_url: posterUrl,
        original_name: cleanFileName(input.filename),
        created_at: app.clock.now(),
        attached_at: null,
        content_hash: input.contentHash ?? null,
        renditions: renditions.length ? JSON.stringify(renditions) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    for (const key of written) await store.delete(key).catch(() => undefined);
    throw err;
  }
}

interface PreparedMedia {
  data: Blob | Uint8Array;
  type: SniffedType;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  thumb: Uint8Array | null;
  poster: Uint8Array | null;
  renditions: RenditionImage[];
}

/** Per-class processing. MEDIA_ONLY kinds re-encode images; file kinds keep bytes as sent. */
async function prepareMedia(app: App, blob: Blob, type: SniffedType, mediaOnly: boolean): Promise<PreparedMedia> {
  const plain: PreparedMedia = {
    data: blob,
    type,
    width: null,
    height: null,
    durationMs: null,
    thumb: null,
    poster: null,
    renditions: [],
  };
  if (type.class === "image") {
    const bytes = await blob.bytes();
    if (mediaOnly) {
      const img = await processImage(app, bytes, type);
      return {
        ...plain,
        data: img.data,
        type: img.type,
        width: img.width,
        height: img.height,
        thumb: img.thumb,
        renditions: img.renditions,
      };
    }
    const described = await describeImage(app, bytes);
    return described
      ? { ...plain, data: bytes, width: described.width, height: described.height, thumb: described.thumb }
      : { ...plain, data: bytes };
  }
  if (type.class !== "video" && type.class !== "audio") return plain;
  const tools = ffmpegTools();
  if (!tools) return plain;
  // ffmpeg reads from a path: the streamed request body already is a file; memory data is written out
  const ownPath = localPathOf(blob);
  const scratch = join(scratchDir(app), randomToken(12));
  try {
    const path = ownPath ?? `${scratch}.${type.ext}`;
    if (!ownPath) await Bun.write(path, blob);
    const probe = await probeMedia(app, tools.ffprobe, path);
    let poster: Uint8Array | null = null;
    if (type.class === "video" && (await makePoster(app, tools.ffmpeg, path, `${scratch}-p.jpg`))) {
      poster = await Bun.file(`${scratch}-p.jpg`).bytes();
    }
    return {
      ...plain,
      width: probe?.width ?? null,
      height: probe?.height ?? null,
      durationMs: probe?.durationMs ?? null,
      poster,
    };
  } finally {
    rmSync(`${scratch}.${type.ext}`, { force: true });
    rmSync(`${scratch}-p.jpg`, { force: true });
  }
}

/** The absolute path of a Blob that is a local file (Bun.file), else null. */
function localPathOf(blob: Blob): string | null {
  const name = (blob as Blob & { name?: unknown }).name;
  return typeof name === "string" && isAbsolute(name) ? name : null;
}

/** The path of BLOB when it is a file in this server's scratch directory, else null. */
function ownScratchPath(app: App, blob: Blob): string | null {
  const name = localPathOf(blob);
  if (name === null) return null;
  const dir = scratchDir(app) + sep;
  return name.startsWith(dir) && !name.slice(dir.length).includes(sep) ? name : null;
}

/** Why a video upload has no poster, for the upload result; null when nothing is missing. */
export function processingNotes(row: UploadRow): Record<string, string> | null {
  if (!row.mime.startsWith("video/") || row.poster_url) return null;
  return { poster: ffmpegTools() ? "ffmpeg could not read a frame of this video" : "ffmpeg not available" };
}

/** The client's file name without directories or control characters, at most 255 characters. */
export function cleanFileName(name: string | undefined): string | null {
  if (!name) return null;
  const last = name.split(/[\\/]/).pop() ?? "";
  const clean = last
    .replace(/[\x00-\x1f\x7f"]/g, "")
    .trim()
    .slice(0, 255);
  return clean && clean !== "." && clean !== ".." ? clean : null;
}

/** The storage key in one of this instance's file URLs (absolute under baseUrl, or path-only), else null. */
export function fileKeyFromUrl(app: App, url: string): string | null {
  let path: string;
  if (url.startsWith(FILES_PATH)) path = url;
  else if (url.startsWith(app.config.baseUrl + FILES_PATH)) path = url.slice(app.config.baseUrl.length);
  else return null;
  const key = path.slice(FILES_PATH.length);
  return FILE_NAME.test(key) ? key : null;
}

/** The upload behind one of this instance's file URLs (the main file, not its thumbnail or poster). */
export async function findUploadByUrl(app: App, url: string): Promise<UploadRow | undefined> {
  const key = fileKeyFromUrl(app, url);
  if (!key) return undefined;
  return app.db.selectFrom("uploads").selectAll().where("storage_key", "=", key).executeTakeFirst();
}

/** OWNER's upload of KIND whose bytes hash to CONTENT_HASH (recorded by storeUpload's contentHash). */
export async function findUploadByContent(
  app: App,
  ownerId: number,
  kind: UploadKind,
  contentHash: string,
): Promise<UploadRow | undefined> {
  return app.db
    .selectFrom("uploads")
    .selectAll()
    .where("owner_id", "=", ownerId)
    .where("content_hash", "=", contentHash)
    .where("kind", "=", kind)
    .executeTakeFirst();
}

/**
 * The caller's own upload of one of KINDS behind URL, for attaching to a post, message,
 * story or profile; otherwise a VALIDATION_ERROR naming FIELD (default "url").
 */
export async function resolveOwnUpload(
  app: App,
  url: string,
  ownerId: number,
  kinds: string[],
  field = "url",
): Promise<UploadRow> {
  const row = await findUploadByUrl(app, url);
  if (!row || row.owner_id !== ownerId) throw fieldError(field, "must be the address of a file you uploaded");
  if (!kinds.includes(row.kind))
    throw fieldError(field, `must be an upload of kind ${kinds.join(", ")} (this one is "${row.kind}")`);
  return row;
}

/** Marks an upload as in use (first attachment time is kept). */
export async function markAttached(db: Db, uploadId: number, at: number = Date.now()): Promise<void> {
  await db
    .updateTable("uploads")
    .set({ attached_at: at })
    .where("id", "=", uploadId)
    .where("attached_at", "is", null)
    .execute();
}

/** The original name of a stored file, for the download name of documents. */
export async function originalNameOf(app: App, key: string): Promise<string | null> {
  const row = await app.db
    .selectFrom("uploads")
    .select("original_name")
    .where("storage_key", "=", key)
    .executeTakeFirst();
  return row?.original_name ?? null;
}
