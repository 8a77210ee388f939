import type { MediaItem } from "../domain/chats/validate";
import { AppError } from "../lib/errors";
import { BOT_FILE_LIMITS, findUploadByContent, findUploadByUrl, storeUpload } from "../media/uploads";
import { renditionsOf, type UploadRow } from "../media/table";
import type { BotContext } from "./context";
import { badRequest, botError } from "./errors";
import { FETCH_FAILED, fetchLimited } from "../http/outbound";

/** The Bot API file fields and how each is stored and shown. */
export const FILE_FIELDS = {
  photo: { kind: "chat-image", media: "image" },
  sticker: { kind: "chat-image", media: "sticker" },
  video: { kind: "chat-video", media: "video" },
  animation: { kind: "chat-video", media: "video" },
  video_note: { kind: "chat-video", media: "video" },
  voice: { kind: "chat-voice", media: "voice" },
  audio: { kind: "chat-file", media: "file" },
  document: { kind: "chat-file", media: "file" },
} as const;
export type FileField = keyof typeof FILE_FIELDS;

/** An animation is a GIF or a silent video (the spec's words): a GIF is kept as the image it is. */
const isGifAnimation = (field: FileField, mime: string): boolean => field === "animation" && mime === "image/gif";

function mediaItemOf(field: FileField, row: UploadRow, fileName?: string): MediaItem {
  const item: MediaItem = {
    type: isGifAnimation(field, row.mime) ? "image" : FILE_FIELDS[field].media,
    url: row.url,
    mime: row.mime,
    sizeBytes: row.size_bytes,
  };
  if (row.width !== null) item.width = row.width;
  if (row.height !== null) item.height = row.height;
  if (row.duration_ms !== null) item.durationMs = row.duration_ms;
  if (row.thumb_url) item.thumb = row.thumb_url;
  if (row.poster_url) item.posterUrl = row.poster_url;
  const renditions = renditionsOf(row);
  if (renditions.length) item.renditions = renditions;
  const name = field === "video_note" ? "circle" : (fileName ?? row.original_name ?? undefined);
  if (name) item.name = name;
  return item;
}

/** Checks that a reused upload suits the field (a photo must be an image, a voice audio...). */
function assertSuits(field: FileField, row: UploadRow): void {
  const kind = FILE_FIELDS[field].kind;
  const ok =
    kind === "chat-file" ||
    isGifAnimation(field, row.mime) ||
    (kind === "chat-image" && row.mime.startsWith("image/")) ||
    (kind === "chat-video" && row.mime.startsWith("video/")) ||
    (kind === "chat-voice" && row.mime.startsWith("audio/"));
  if (!ok) throw badRequest(`wrong type of the file for ${field}`);
}

async function store(
  ctx: BotContext,
  field: FileField,
  data: Blob | Uint8Array,
  filename: string | undefined,
  mime: string | undefined,
  fromUrl = false,
): Promise<UploadRow> {
  const head = data instanceof Blob ? new Uint8Array(await data.slice(0, 4).arrayBuffer()) : data.subarray(0, 4);
  const gif = field === "animation" && new TextDecoder().decode(head) === "GIF8";
  const kind = gif ? "chat-image" : FILE_FIELDS[field].kind;
  // the same bytes sent again are the same file: one file_unique_id per content, as the compatible API gives
  const bytes = data instanceof Blob ? await data.bytes() : data;
  const contentHash = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  const again = await findUploadByContent(ctx.app, ctx.me.id, kind, contentHash);
  if (again) return again;
  try {
    return await storeUpload(ctx.app, {
      contentHash,
      ownerId: ctx.me.id,
      kind,
      data,
      filename,
      declaredMime: mime,
      maxBytes: BOT_FILE_LIMITS[kind],
    });
  } catch (err) {
    if (err instanceof AppError && err.status === 413) throw botError(413, "Request Entity Too Large");
    if (err instanceof AppError && err.code === "VALIDATION_ERROR") {
      // what a URL answered is "web page content" in the compatible API's words, whatever it was
      if (fromUrl) throw badRequest("wrong type of the web page content");
      const detail = (err.details as { fieldErrors?: Record<string, string[]> })?.fieldErrors?.file?.[0] ?? err.message;
      throw badRequest(`wrong file for ${field}: ${detail}`);
    }
    throw err;
  }
}

/** The compatible API's words for a file parameter that is neither a known file nor a URL, whatever the field. */
const WRONG_FILE_IDENTIFIER = "wrong file identifier/HTTP URL specified";

/**
 * Resolves a file parameter to an attachment: a multipart part named after the field,
 * `attach://<part>`, a file URL of this instance (reused, not copied) or an https URL
 * (downloaded with size and time limits; private addresses refused).
 */
export async function inputFile(
  ctx: BotContext,
  field: FileField,
  raw: unknown,
  opts: { fileName?: string; required?: boolean } = {},
): Promise<MediaItem> {
  const { params } = ctx;
  let value: unknown = raw;
  if (value === undefined || value === null || value === "") {
    const part = params.files.get(field);
    if (part) value = part;
  }
  if (value === undefined || value === null || value === "") throw badRequest(`there is no ${field} in the request`);
  if (typeof value === "string" && value.startsWith("attach://")) {
    const part = params.files.get(value.slice("attach://".length));
    if (!part) throw badRequest(`file ${value} not found in the request`);
    value = part;
  }
  if (value instanceof Blob) {
    const file = value as File;
    const row = await store(ctx, field, file, opts.fileName ?? (file.name || undefined), file.type || undefined);
    return mediaItemOf(field, row, opts.fileName);
  }
  if (typeof value !== "string") throw badRequest(WRONG_FILE_IDENTIFIER);
  const own = await findUploadByUrl(ctx.app, value);
  if (own) {
    assertSuits(field, own);
    return mediaItemOf(field, own, opts.fileName);
  }
  if (!/^https?:\/\//i.test(value)) throw badRequest(WRONG_FILE_IDENTIFIER);
  let fetched: Awaited<ReturnType<typeof fetchLimited>>;
  try {
    fetched = await fetchLimited(
      ctx.app,
      value,
      BOT_FILE_LIMITS[FILE_FIELDS[field].kind],
      undefined,
      undefined,
      (cause) => ctx.app.log.info("bot file URL not fetched", { botId: ctx.bot.id, cause }),
    );
  } catch (err) {
    // one answer for every refused or failed fetch (no port or address oracle); only a URL of
    // the wrong shape is told apart, since that depends on the text alone
    const message = (err as Error).message;
    throw badRequest(
      message === FETCH_FAILED ? "failed to get HTTP URL content" : `failed to get HTTP URL content: ${message}`,
    );
  }
  const row = await store(ctx, field, fetched.data, opts.fileName ?? fetched.name, fetched.mime ?? undefined, true);
  return mediaItemOf(field, row, opts.fileName);
}
