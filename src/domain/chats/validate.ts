import type { MessageEntity } from "../../lib/message-entity";
import { checkLink } from "../../lib/entity-url";
import { fieldError, validationError, type FieldErrors } from "../../lib/errors";
import { checkAlt } from "../../lib/alt-text";
import type { Rendition } from "../../media/table";

/** Longest message text, as the compatible bot API allows (UTF-16 units, like JS length). */
export const MAX_CONTENT = 4096;
export const MAX_CLIENT_MESSAGE_ID = 64;
export const MAX_GROUP_TITLE = 128;
export const MAX_MEDIA_ITEMS = 10;
export const MAX_ENTITIES = 100;
export const START_LABEL_RE = /^[A-Za-z0-9_-]{1,64}$/;

export const MEDIA_TYPES = ["image", "video", "voice", "file", "sticker"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** One attachment of a message, as the spec's `media` object. */
export interface MediaItem {
  type: MediaType;
  url: string;
  name?: string;
  mime?: string;
  sizeBytes?: number;
  width?: number;
  height?: number;
  durationMs?: number;
  waveform?: number[];
  thumb?: string | null;
  posterUrl?: string | null;
  /** display renditions of an image, smallest first (set by the server from the upload, never by a client) */
  renditions?: Rendition[];
  /** the sender's description of an image */
  alt?: string;
}

export type { MessageEntity };

const ENTITY_TYPE_RE = /^[a-z_]{1,32}$/;

/** Text of a message: at most 4096 characters; empty only when something else carries the message. */
export function checkContent(content: string, opts: { allowEmpty: boolean; field?: string }): string {
  const field = opts.field ?? "content";
  if (content.length > MAX_CONTENT) throw fieldError(field, `must be at most ${MAX_CONTENT} characters`);
  if (!opts.allowEmpty && content.trim().length === 0) throw fieldError(field, "must not be empty");
  return content;
}

/**
 * Entities must lie inside the text (UTF-16 offsets) and name a type; a URL an entity carries
 * (text_link's, or any other type's `url`) must pass the Bot API's link rule, and is kept as
 * that rule normalizes it.
 */
export function checkEntities(entities: unknown, content: string, field = "entities"): MessageEntity[] {
  if (!Array.isArray(entities)) throw fieldError(field, "must be an array");
  if (entities.length > MAX_ENTITIES) throw fieldError(field, `must have at most ${MAX_ENTITIES} items`);
  return entities.map((e, i) => {
    const where = `${field}.${i}`;
    if (!e || typeof e !== "object") throw fieldError(where, "must be an object");
    const { type, offset, length, url } = e as Record<string, unknown>;
    if (typeof type !== "string" || !ENTITY_TYPE_RE.test(type))
      throw fieldError(`${where}.type`, "must be an entity type");
    if (!Number.isInteger(offset) || (offset as number) < 0)
      throw fieldError(`${where}.offset`, "must be a non-negative integer");
    if (!Number.isInteger(length) || (length as number) < 1)
      throw fieldError(`${where}.length`, "must be a positive integer");
    if ((offset as number) + (length as number) > content.length) throw fieldError(where, "lies outside the text");
    if (type === "text_link" && (typeof url !== "string" || url.length === 0 || url.length > 2048))
      throw fieldError(`${where}.url`, "is required for text_link");
    // a client may send fields it does not use as null; they are never shown to anyone
    if (url === undefined || url === null) return { ...(e as MessageEntity) };
    if (typeof url !== "string" || url.length > 2048) throw fieldError(`${where}.url`, "must be a link");
    const link = checkLink(url);
    if (!link.ok)
      throw fieldError(
        `${where}.url`,
        `is not an allowed link (${link.reason}): only http, https, tg and ton links are`,
      );
    return { ...(e as MessageEntity), url: link.url };
  });
}

/** Shape check of attachments (ownership of the files is the surface's job: see checkMessageMedia). */
export function checkMediaShape(media: unknown, field = "media"): MediaItem[] {
  if (!Array.isArray(media)) throw fieldError(field, "must be an array");
  if (media.length > MAX_MEDIA_ITEMS) throw fieldError(field, `must have at most ${MAX_MEDIA_ITEMS} items`);
  return media.map((m, i) => {
    const where = `${field}.${i}`;
    const errors: FieldErrors = {};
    const bad = (k: string, msg: string) => (errors[`${where}.${k}`] ??= []).push(msg);
    if (!m || typeof m !== "object" || Array.isArray(m)) throw fieldError(where, "must be an object");
    const item = m as Record<string, unknown>;
    if (typeof item.type !== "string" || !(MEDIA_TYPES as readonly string[]).includes(item.type))
      bad("type", `must be one of ${MEDIA_TYPES.join(", ")}`);
    if (typeof item.url !== "string" || item.url.length === 0 || item.url.length > 2048) bad("url", "is required");
    if (item.name !== undefined && (typeof item.name !== "string" || item.name.length > 255))
      bad("name", "must be a string of at most 255 characters");
    if (item.mime !== undefined && (typeof item.mime !== "string" || item.mime.length > 255))
      bad("mime", "must be a string");
    for (const k of ["sizeBytes", "width", "height", "durationMs"] as const) {
      const v = item[k];
      if (v !== undefined && v !== null && (!Number.isInteger(v) || (v as number) < 0 || (v as number) > 2 ** 42))
        bad(k, "must be a non-negative integer");
    }
    if (item.waveform !== undefined && item.waveform !== null) {
      const w = item.waveform;
      if (!Array.isArray(w) || w.length > 1024 || !w.every((x) => typeof x === "number" && Number.isFinite(x)))
        bad("waveform", "must be an array of at most 1024 numbers");
    }
    if (Object.keys(errors).length) throw validationError(errors);
    const out: MediaItem = { type: item.type as MediaType, url: item.url as string };
    const alt = checkAlt(item.alt, `${where}.alt`);
    if (alt !== undefined) out.alt = alt;
    if (item.name !== undefined) out.name = item.name as string;
    if (item.mime !== undefined) out.mime = item.mime as string;
    for (const k of ["sizeBytes", "width", "height", "durationMs"] as const)
      if (item[k] != null) out[k] = item[k] as number;
    if (item.waveform != null) out.waveform = item.waveform as number[];
    if (typeof item.thumb === "string") out.thumb = item.thumb;
    if (typeof item.posterUrl === "string") out.posterUrl = item.posterUrl;
    return out;
  });
}

/** Idempotency key of a send: 1 to 64 characters. */
export function checkClientMessageId(id: string, field = "clientMessageId"): string {
  if (id.length === 0 || id.length > MAX_CLIENT_MESSAGE_ID)
    throw fieldError(field, `must be 1 to ${MAX_CLIENT_MESSAGE_ID} characters`);
  return id;
}

/** Group title: 1 to 128 characters after trimming. */
export function checkTitle(title: string, field = "title"): string {
  const t = title.trim();
  if (t.length === 0 || t.length > MAX_GROUP_TITLE)
    throw fieldError(field, `must be 1 to ${MAX_GROUP_TITLE} characters`);
  return t;
}

export function checkStartLabel(label: string, field = "start"): string {
  if (!START_LABEL_RE.test(label)) throw fieldError(field, "must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -");
  return label;
}

/** JSON columns: objects are stored as text; null stays null. */
export const toJson = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));
export function fromJson<T>(text: string | null): T | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
