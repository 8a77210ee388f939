import { useEffect, useRef, useState } from "preact/hooks";
import { Dialog } from "./dialog";
import { largestOf, ResponsiveImage, type ShownImage } from "./media-image";
import { t } from "../lib/i18n";

/** How far (px) a finger must travel sideways for a swipe to turn the image. */
const SWIPE_PX = 50;

/** The index after moving BY from AT through COUNT images, going round at the ends (a button never disables under focus). */
export const stepIndex = (at: number, by: number, count: number): number => (((at + by) % count) + count) % count;

/**
 * The image viewer (lightbox): IMAGES one at a time from START, large, with the author's
 * description; Previous/Next, ←/→ and swipes move through them, Escape closes, and focus goes
 * back to what opened it. The original opens only from its own link.
 */
export function MediaViewer({
  images,
  start,
  label,
  onClose,
}: {
  images: ShownImage[];
  start: number;
  /** whose images these are, for the title ("Images of the post") */
  label: string;
  onClose: () => void;
}) {
  const [at, setAt] = useState(start);
  // what had focus when the viewer opened (read while rendering, before the dialog takes focus):
  // the viewer leaves the page when closed, so it hands focus back itself
  const [opener] = useState(() => document.activeElement as HTMLElement | null);
  useEffect(() => () => opener?.focus(), [opener]);
  const swipeFrom = useRef<number | null>(null);
  const image = images[at]!;
  const go = (by: number) => setAt((i) => stepIndex(i, by, images.length));
  const several = images.length > 1;
  return (
    <Dialog
      open
      title={several ? t("common.media.position", { label, n: at + 1, total: images.length }) : label}
      onClose={onClose}
    >
      <div
        class="media-viewer"
        onKeyDown={(e) => {
          if (e.key === "ArrowLeft") (e.preventDefault(), go(-1));
          if (e.key === "ArrowRight") (e.preventDefault(), go(1));
        }}
        onPointerDown={(e) => (swipeFrom.current = e.clientX)}
        onPointerUp={(e) => {
          const from = swipeFrom.current;
          swipeFrom.current = null;
          if (from === null || Math.abs(e.clientX - from) < SWIPE_PX) return;
          go(e.clientX < from ? 1 : -1);
        }}
      >
        <figure>
          <img
            src={largestOf(image)}
            alt={image.alt ?? ""}
            aria-describedby={image.alt ? undefined : "media-viewer-no-alt"}
            width={image.width ?? undefined}
            height={image.height ?? undefined}
            draggable={false}
          />
          <figcaption>
            {image.alt ? (
              image.alt
            ) : (
              <span class="muted" id="media-viewer-no-alt">
                {t("common.media.noDescription")}
              </span>
            )}
          </figcaption>
        </figure>
        <div class="actions">
          {several && (
            <>
              <button type="button" onClick={() => go(-1)}>
                {t("common.media.previous")}
              </button>
              <button type="button" onClick={() => go(1)}>
                {t("common.media.next")}
              </button>
            </>
          )}
          <a class="button" href={image.url} target="_blank" rel="noopener">
            {t("common.media.original")}
          </a>
          <button type="button" onClick={onClose}>
            {t("common.close")}
          </button>
        </div>
      </div>
    </Dialog>
  );
}

/** The viewer of IMAGES: `open(n)` shows the nth, and `viewer` is the dialog to render (null while closed). */
export function useMediaViewer(images: ShownImage[], label: string) {
  const [viewing, setViewing] = useState<number | null>(null);
  return {
    open: (n: number) => setViewing(n),
    viewer:
      viewing === null ? null : (
        <MediaViewer images={images} start={viewing} label={label} onClose={() => setViewing(null)} />
      ),
  };
}

/** An image of a post or comment as shown in its list: the button that opens it in the viewer. */
export function ViewableImage({
  image,
  sizes,
  fallbackAlt,
  onOpen,
}: {
  image: ShownImage;
  sizes: string;
  fallbackAlt: string;
  onOpen: () => void;
}) {
  return (
    <button type="button" class="media-open" aria-haspopup="dialog" onClick={onOpen}>
      <ResponsiveImage image={image} sizes={sizes} fallbackAlt={fallbackAlt} loading="lazy" />
    </button>
  );
}
