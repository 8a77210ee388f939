import type { Rendition } from "../lib/types";

/** What an image attachment of a post, comment or message carries for showing it. */
export interface ShownImage {
  url: string;
  width?: number | null;
  height?: number | null;
  thumbUrl?: string | null;
  renditions?: Rendition[];
  alt?: string;
}

/** The image slot of a post in the column: the whole screen width on a phone, the column's on wider screens. */
export const POST_IMAGE_SIZES = "(max-width: 640px) 100vw, 600px";
/** A thumbnail-sized slot (comments, chat bubbles). */
export const SMALL_IMAGE_SIZES = "(max-width: 640px) 50vw, 320px";

/** Side of the square the server fits thumbnails in. */
const THUMB_BOX = 320;

/**
 * The `srcset` of an image: its thumbnail and display renditions by width, never the original
 * (that one is only opened on request); undefined when it has no renditions (media from before
 * them), so the thumbnail alone is shown.
 */
export function srcsetOf(image: ShownImage): string | undefined {
  if (!image.renditions?.length) return undefined;
  const candidates = image.renditions.map((r) => `${r.url} ${r.width}w`);
  if (image.thumbUrl && image.width && image.height) {
    const thumbWidth = Math.round(image.width * Math.min(1, THUMB_BOX / image.width, THUMB_BOX / image.height));
    if (thumbWidth < image.renditions[0]!.width) candidates.unshift(`${image.thumbUrl} ${thumbWidth}w`);
  }
  return candidates.join(", ");
}

/** The largest display copy of an image (for the viewer), or the original when it has none. */
export const largestOf = (image: ShownImage): string => image.renditions?.at(-1)?.url ?? image.url;

/**
 * An image of a post, comment or message: the browser picks the copy its slot (SIZES) needs
 * at the screen's density. ALT is the author's description; without one the caller's neutral
 * FALLBACK is used.
 */
export function ResponsiveImage({
  image,
  sizes,
  fallbackAlt,
  loading,
  class: className,
}: {
  image: ShownImage;
  sizes: string;
  fallbackAlt: string;
  loading?: "lazy" | "eager";
  class?: string;
}) {
  const srcset = srcsetOf(image);
  return (
    <img
      class={className}
      loading={loading}
      src={image.renditions?.[0]?.url ?? image.thumbUrl ?? image.url}
      srcset={srcset}
      sizes={srcset ? sizes : undefined}
      alt={image.alt ?? fallbackAlt}
      width={image.width ?? undefined}
      height={image.height ?? undefined}
    />
  );
}
