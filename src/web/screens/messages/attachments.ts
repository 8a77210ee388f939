import { uploadFile } from "../../lib/api";
import type { Upload } from "../../lib/types";
import { formatTenths } from "../../lib/format";
import { t } from "../../lib/i18n";

/** Chat upload kinds and their limits (docs/client-api.md, "Uploads and media"), checked before sending a byte. */
export const CHAT_LIMITS = {
  "chat-image": { mb: 5, kind: "image" },
  "chat-video": { mb: 25, kind: "video" },
  "chat-voice": { mb: 12, kind: "voice" },
  "chat-file": { mb: 50, kind: "file" },
} as const;

export type ChatUploadKind = keyof typeof CHAT_LIMITS;

/** The message media item a sent attachment becomes. */
export interface OutgoingMedia {
  type: "image" | "video" | "voice" | "file" | "sticker";
  url: string;
  name?: string;
  durationMs?: number;
  waveform?: number[];
  width?: number;
  height?: number;
}

/** "Photos up to 5 MB, …": the limits, in the shown language. */
export const limitsHint = () =>
  t("messages.attachments.limits", {
    image: CHAT_LIMITS["chat-image"].mb,
    video: CHAT_LIMITS["chat-video"].mb,
    voice: CHAT_LIMITS["chat-voice"].mb,
    file: CHAT_LIMITS["chat-file"].mb,
  });

export function kindFor(file: Blob): { kind: ChatUploadKind; type: OutgoingMedia["type"] } {
  const t = file.type;
  if (/^image\/(jpeg|png|gif|webp|avif)$/.test(t)) return { kind: "chat-image", type: "image" };
  if (t.startsWith("video/")) return { kind: "chat-video", type: "video" };
  if (t.startsWith("audio/")) return { kind: "chat-voice", type: "voice" };
  return { kind: "chat-file", type: "file" };
}

/** Null when FILE fits its kind's limit, else the sentence to show. */
export function tooLarge(file: Blob, kind: ChatUploadKind): string | null {
  const limit = CHAT_LIMITS[kind];
  if (file.size <= limit.mb * 1024 * 1024) return null;
  return t(`messages.attachments.tooLarge.${limit.kind}`, {
    name: (file as File).name ?? t("messages.attachments.thisFile"),
    size: formatTenths(file.size / 1024 / 1024),
    mb: limit.mb,
  });
}

/** Duration and a 32-bar waveform (0..100) of an audio blob, decoded in the browser. */
export async function measureAudio(blob: Blob): Promise<{ durationMs: number; waveform: number[] }> {
  const Ctx = (globalThis as { OfflineAudioContext?: typeof OfflineAudioContext }).OfflineAudioContext;
  if (!Ctx) return { durationMs: 0, waveform: [] };
  try {
    const ctx = new Ctx(1, 1, 44_100);
    const buffer = await ctx.decodeAudioData(await blob.arrayBuffer());
    const data = buffer.getChannelData(0);
    const bars = 32;
    const step = Math.max(1, Math.floor(data.length / bars));
    const peaks: number[] = [];
    for (let b = 0; b < bars; b++) {
      let peak = 0;
      for (let i = b * step; i < Math.min(data.length, (b + 1) * step); i += 16)
        peak = Math.max(peak, Math.abs(data[i]!));
      peaks.push(peak);
    }
    const max = Math.max(...peaks, 0.0001);
    return { durationMs: Math.round(buffer.duration * 1000), waveform: peaks.map((p) => Math.round((p / max) * 100)) };
  } catch {
    return { durationMs: 0, waveform: [] };
  }
}

/** Uploads FILE for a chat and describes it as a media item; voice gets duration and waveform. */
export async function uploadAttachment(
  file: Blob,
  onProgress: (f: number) => void,
  forceType?: OutgoingMedia["type"],
): Promise<OutgoingMedia> {
  const { kind, type: guessed } = kindFor(file);
  const type = forceType ?? guessed;
  const measured = type === "voice" ? await measureAudio(file) : null;
  const up: Upload = await uploadFile(file, kind, onProgress);
  const item: OutgoingMedia = { type, url: up.url };
  const name = (file as File).name;
  if (type === "file" && name) item.name = name;
  if (measured) {
    if (measured.durationMs) item.durationMs = measured.durationMs;
    if (measured.waveform.length) item.waveform = measured.waveform;
  }
  return item;
}
