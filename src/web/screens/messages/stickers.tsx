import { signal } from "@preact/signals";
import { t } from "../../lib/i18n";
import { useRef, useState } from "preact/hooks";
import { StickerIcon } from "../../components/icon";
import { describeError, uploadFile } from "../../lib/api";
import { account } from "../../lib/session";
import { CHAT_LIMITS, tooLarge, type OutgoingMedia } from "./attachments";

/**
 * A person's stickers: images they sent as stickers or saved from a chat, newest first. The
 * instance has no sticker sets, so the collection is the person's own uploads, kept in this
 * browser (a saved sticker is uploaded again as the person's own, since a message may only
 * carry its sender's uploads).
 */
interface SavedSticker {
  url: string;
  /** the chat sticker it was saved from, so that one shows as saved */
  from?: string;
  width?: number;
  height?: number;
}

const MAX_SAVED = 60;
const STICKER_TYPES = "image/png,image/webp,image/gif";
const storageKey = () => `social.stickers.${account.value?.id ?? "anonymous"}`;

function readSaved(): SavedSticker[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey()) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((s): s is SavedSticker => typeof s?.url === "string") : [];
  } catch {
    return [];
  }
}

/** The signed-in person's stickers (read again when the account changes). */
const saved = signal<{ owner: string | undefined; items: SavedSticker[] }>({ owner: undefined, items: [] });
function savedStickers(): SavedSticker[] {
  const owner = account.value?.id;
  if (saved.value.owner !== owner) saved.value = { owner, items: readSaved() };
  return saved.value.items;
}

function remember(sticker: SavedSticker): void {
  const items = [sticker, ...savedStickers().filter((s) => s.url !== sticker.url)].slice(0, MAX_SAVED);
  saved.value = { owner: account.value?.id, items };
  try {
    localStorage.setItem(storageKey(), JSON.stringify(items));
  } catch {
    // storage full or off: the collection lasts for this page only
  }
}

const asMedia = (s: SavedSticker): OutgoingMedia => ({
  type: "sticker",
  url: s.url,
  ...(s.width ? { width: s.width } : {}),
  ...(s.height ? { height: s.height } : {}),
});

/** Uploads BLOB as the person's own sticker image and keeps it in their collection. */
async function uploadSticker(blob: Blob, onProgress?: (f: number) => void, from?: string): Promise<SavedSticker> {
  const up = await uploadFile(blob, "chat-image", onProgress, "sticker.webp");
  const sticker: SavedSticker = { url: up.url, ...(from ? { from } : {}) };
  remember(sticker);
  return sticker;
}

/** Whether URL (a sticker in a chat) is already in the person's collection. */
export const isSavedSticker = (url: string) => savedStickers().some((s) => s.url === url || s.from === url);

/** Saves a sticker seen in a chat to the person's collection (as their own upload). */
export async function saveStickerFrom(url: string): Promise<void> {
  const res = await fetch(url, { credentials: "same-origin" });
  if (!res.ok) throw new Error(t("messages.stickers.notLoaded"));
  await uploadSticker(await res.blob(), undefined, url);
}

/** The composer's sticker button; the panel it opens is StickerPanel, shown above the input. */
export function StickerButton({
  open,
  onToggle,
  disabled,
}: {
  open: boolean;
  onToggle: () => void;
  disabled: boolean;
}) {
  return (
    <button
      type="button"
      class="icon-button"
      aria-label={t("messages.stickers.button")}
      aria-expanded={open}
      aria-controls="sticker-panel"
      onClick={onToggle}
      disabled={disabled}
    >
      <StickerIcon />
    </button>
  );
}

/** The person's stickers to send, and adding one from an image. */
export function StickerPanel({ onSend }: { onSend: (media: OutgoingMedia) => void }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const items = savedStickers();

  async function addFrom(file: File) {
    setError(null);
    const problem = tooLarge(file, "chat-image");
    if (problem) return setError(problem);
    setProgress(0);
    try {
      onSend(asMedia(await uploadSticker(file, setProgress)));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setProgress(null);
    }
  }

  return (
    <section id="sticker-panel" class="sticker-panel" aria-label={t("messages.stickers.panel")}>
      {items.length === 0 ? (
        <p class="muted">No stickers yet: add one from an image, or save one you get in a chat.</p>
      ) : (
        <ul class="sticker-grid">
          {items.map((s, i) => (
            <li key={s.url}>
              <button
                type="button"
                aria-label={t("messages.stickers.send", { n: i + 1 })}
                onClick={() => {
                  remember(s);
                  onSend(asMedia(s));
                }}
              >
                <img src={s.url} alt="" loading="lazy" />
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        ref={fileInput}
        type="file"
        class="visually-hidden"
        accept={STICKER_TYPES}
        aria-label={t("messages.stickers.choose")}
        tabIndex={-1}
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          e.currentTarget.value = "";
          if (f) void addFrom(f);
        }}
      />
      <p class="sticker-add">
        <button type="button" onClick={() => fileInput.current?.click()} disabled={progress !== null}>
          {t("messages.stickers.add")}
        </button>{" "}
        <span class="muted">{t("messages.stickers.limits", { mb: CHAT_LIMITS["chat-image"].mb })}</span>
        {progress !== null && <progress max={1} value={progress} aria-label={t("messages.stickers.upload")} />}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
