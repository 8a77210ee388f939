import type { App } from "../../app";
import { markAttached, resolveOwnUpload } from "../../media/uploads";
import { renditionsOf } from "../../media/table";
import { checkMediaShape, type MediaItem, type MediaType } from "./validate";

/** Upload kinds each attachment type may point at. */
const KINDS_FOR: Record<MediaType, string[]> = {
  image: ["chat-image"],
  video: ["chat-video"],
  voice: ["chat-voice"],
  file: ["chat-file", "chat-image", "chat-video", "chat-voice"],
  sticker: ["chat-image"],
};

/**
 * Checks a person's attachments: each `url` must be an upload of this instance owned by
 * OWNER, of a chat kind matching its type. Size, type and dimensions the server measured
 * win over what the client claimed; name, duration and waveform are kept from the client.
 * Nothing is written: once the message is stored, pass `uploadIds` to markMediaAttached.
 */
export async function checkMessageMedia(
  app: App,
  raw: unknown,
  ownerId: number,
): Promise<{ media: MediaItem[]; uploadIds: number[] }> {
  const items = checkMediaShape(raw);
  const media: MediaItem[] = [];
  const uploadIds: number[] = [];
  for (const [i, item] of items.entries()) {
    const upload = await resolveOwnUpload(app, item.url, ownerId, KINDS_FOR[item.type], `media.${i}.url`);
    uploadIds.push(upload.id);
    const renditions = renditionsOf(upload);
    media.push({
      ...item,
      url: upload.url,
      mime: upload.mime,
      sizeBytes: upload.size_bytes,
      ...(upload.width !== null ? { width: upload.width } : {}),
      ...(upload.height !== null ? { height: upload.height } : {}),
      ...(item.durationMs === undefined && upload.duration_ms !== null ? { durationMs: upload.duration_ms } : {}),
      ...(item.name === undefined && upload.original_name ? { name: upload.original_name } : {}),
      thumb: upload.thumb_url,
      posterUrl: upload.poster_url,
      ...(renditions.length ? { renditions } : {}),
    });
  }
  return { media, uploadIds };
}

/** Marks uploads as in use by a stored message, so the cleanup of abandoned uploads keeps them. */
export async function markMediaAttached(app: App, uploadIds: readonly number[]): Promise<void> {
  const now = app.clock.now();
  for (const id of uploadIds) await markAttached(app.db, id, now);
}

/** checkMessageMedia and markMediaAttached at once, for callers that store the message regardless. */
export async function resolveMessageMedia(app: App, raw: unknown, ownerId: number): Promise<MediaItem[]> {
  const { media, uploadIds } = await checkMessageMedia(app, raw, ownerId);
  await markMediaAttached(app, uploadIds);
  return media;
}
