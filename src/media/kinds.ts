/**
 * Upload kinds and their size limits (service-api.md "Limits"; MB = 1024 * 1024).
 * `accepts` says which real types (decided from the bytes) a kind takes.
 */
export type MediaClass = "image" | "video" | "audio" | "file";

const MB = 1024 * 1024;

interface KindSpec {
  maxBytes: number;
  accepts: readonly MediaClass[];
}

const image = ["image"] as const;
const video = ["video"] as const;
const audio = ["audio"] as const;
const anything = ["image", "video", "audio", "file"] as const;

export const UPLOAD_KINDS = {
  "chat-image": { maxBytes: 5 * MB, accepts: image },
  "chat-video": { maxBytes: 25 * MB, accepts: video },
  "chat-voice": { maxBytes: 12 * MB, accepts: audio },
  "chat-file": { maxBytes: 50 * MB, accepts: anything },
  post: { maxBytes: 5 * MB, accepts: image },
  "post-video": { maxBytes: 120 * MB, accepts: video },
  "post-file": { maxBytes: 50 * MB, accepts: anything },
  story: { maxBytes: 5 * MB, accepts: image },
  "story-video": { maxBytes: 120 * MB, accepts: video },
  "story-voice": { maxBytes: 12 * MB, accepts: audio },
  "comment-image": { maxBytes: 5 * MB, accepts: image },
  "comment-video": { maxBytes: 25 * MB, accepts: video },
  "comment-voice": { maxBytes: 12 * MB, accepts: audio },
  avatar: { maxBytes: 5 * MB, accepts: image },
  cover: { maxBytes: 5 * MB, accepts: image },
  "cover-video": { maxBytes: 25 * MB, accepts: video },
} as const satisfies Record<string, KindSpec>;

export type UploadKind = keyof typeof UPLOAD_KINDS;

export const isUploadKind = (value: string): value is UploadKind => Object.hasOwn(UPLOAD_KINDS, value);

/** The largest limit of any kind: the cap while a file streams in before its kind is known. */
export const MAX_UPLOAD_BYTES = Math.max(...Object.values(UPLOAD_KINDS).map((k) => k.maxBytes));

/**
 * Bot API file limits (images 10 MB, voice 12 MB, video and documents 50 MB), passed as
 * `maxBytes` to storeUpload with the matching chat-* kind.
 */
export const BOT_FILE_LIMITS = {
  "chat-image": 10 * MB,
  "chat-voice": 12 * MB,
  "chat-video": 50 * MB,
  "chat-file": 50 * MB,
} as const satisfies Partial<Record<UploadKind, number>>;
