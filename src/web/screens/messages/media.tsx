import { useContext, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { describeError } from "../../lib/api";
import { formatBytes } from "../../lib/format";
import { ChatActionsContext } from "./actions";
import { isSavedSticker, saveStickerFrom } from "./stickers";
import type { MessageMedia } from "../../lib/types";
import { largestOf, ResponsiveImage, SMALL_IMAGE_SIZES } from "../../components/media-image";

export function formatDuration(ms: number | null | undefined): string {
  const s = Math.round((ms ?? 0) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * A message's attachments: images open in the viewer, a round video (`circle`) is shown round.
 * PROTECTED_CONTENT (the sender forbids saving): no Save, Download or download link.
 */
export function MediaList({ media, protectedContent = false }: { media: MessageMedia[]; protectedContent?: boolean }) {
  if (!media.length) return null;
  return (
    <div class="msg-media">
      {media.map((m, i) => (
        <MediaItem key={i} item={m} protectedContent={protectedContent} />
      ))}
    </div>
  );
}

/** A sticker in a chat, which the person can keep to send themselves. */
function Sticker({ item, protectedContent }: { item: MessageMedia; protectedContent: boolean }) {
  const [state, setState] = useState<"idle" | "saving" | "saved" | string>(isSavedSticker(item.url) ? "saved" : "idle");
  const save = () => {
    setState("saving");
    saveStickerFrom(item.url).then(
      () => setState("saved"),
      (err) => setState(describeError(err)),
    );
  };
  return (
    <div class="sticker">
      <img
        class="media-sticker"
        src={item.url}
        alt={item.name ? t("messages.media.stickerNamed", { name: item.name }) : t("messages.media.sticker")}
        loading="lazy"
      />
      {state === "saved" || protectedContent ? null : state === "idle" || state === "saving" ? (
        <button type="button" class="small" onClick={save} disabled={state === "saving"}>
          {t("messages.media.saveSticker")}
        </button>
      ) : (
        <p class="form-error" role="alert">
          {state}
        </p>
      )}
    </div>
  );
}

function MediaItem({ item, protectedContent }: { item: MessageMedia; protectedContent: boolean }) {
  const actions = useContext(ChatActionsContext);
  const thumb = item.thumb ?? item.thumbUrl ?? item.url;
  switch (item.type) {
    case "image":
      return (
        <button
          type="button"
          class="media-image"
          onClick={() =>
            actions?.viewImage(
              item.url,
              item.alt ?? item.name ?? t("messages.dialogs.photo"),
              protectedContent,
              largestOf(item),
            )
          }
          aria-label={
            item.alt
              ? t("messages.media.openPhotoAlt", { alt: item.alt })
              : item.name
                ? t("messages.media.openPhotoNamed", { name: item.name })
                : t("messages.media.openPhoto")
          }
        >
          <ResponsiveImage
            image={{ ...item, thumbUrl: thumb }}
            sizes={SMALL_IMAGE_SIZES}
            fallbackAlt=""
            loading="lazy"
          />
        </button>
      );
    case "sticker":
      return <Sticker item={item} protectedContent={protectedContent} />;
    case "video":
      return item.name === "circle" ? (
        <video
          class="media-circle"
          src={item.url}
          poster={item.posterUrl ?? undefined}
          controls
          preload="metadata"
          aria-label={t("messages.media.round")}
        />
      ) : (
        <video
          class="media-video"
          src={item.url}
          poster={item.posterUrl ?? undefined}
          controls
          controlsList={protectedContent ? "nodownload" : undefined}
          preload="metadata"
          aria-label={item.name ? t("messages.media.videoNamed", { name: item.name }) : t("messages.media.video")}
        />
      );
    case "voice":
      return <VoicePlayer item={item} />;
    default: {
      const label = (
        <>
          <span class="file-icon" aria-hidden="true">
            📄
          </span>
          <span class="file-name">{item.name ?? t("messages.media.file")}</span>
          <span class="file-size">{item.sizeBytes ? formatBytes(item.sizeBytes) : ""}</span>
        </>
      );
      return protectedContent ? (
        <span class="media-file">{label}</span>
      ) : (
        <a class="media-file" href={item.url} download={item.name ?? true}>
          {label}
        </a>
      );
    }
  }
}

/** A voice message: its waveform drawn as bars beside the audio controls. */
function VoicePlayer({ item }: { item: MessageMedia }) {
  const wave = item.waveform?.length ? item.waveform : null;
  return (
    <div class="media-voice">
      {wave && (
        <span class="waveform" aria-hidden="true">
          {wave.slice(0, 48).map((v, i) => (
            <span key={i} class="bar" style={{ height: `${Math.max(8, Math.min(100, v))}%` }} />
          ))}
        </span>
      )}
      <audio
        src={item.url}
        controls
        preload="metadata"
        aria-label={t("messages.media.voice", { duration: formatDuration(item.durationMs) })}
      />
      <span class="voice-duration">{formatDuration(item.durationMs)}</span>
    </div>
  );
}
