import type { App } from "../app";
import { AppError, fieldError } from "../lib/errors";
import { loadSharp } from "./sharp";
import type { SniffedType } from "./sniff";
import { TYPES_BY_EXT } from "./sniff";

export interface ProcessedImage {
  data: Uint8Array;
  type: SniffedType;
  width: number;
  height: number;
  thumb: Uint8Array;
  renditions: RenditionImage[];
}

/** A display copy of an image: WebP fitted inside a BOX px square. */
export interface RenditionImage {
  box: number;
  data: Uint8Array;
  width: number;
  height: number;
}

/** Decoding refuses images above this many pixels (decompression bombs). */
const MAX_INPUT_PIXELS = 60_000_000;
export const THUMB_SIZE = 320;
/**
 * Boxes of the display renditions: a phone column at DPR 2-3 and a desktop column at DPR 2
 * take the larger, a 1x column the smaller, so the original is sent only when asked for.
 */
export const RENDITION_BOXES = [640, 1280] as const;

/**
 * Re-encodes an image: orientation applied, every metadata block (EXIF, GPS, XMP, ICC
 * comments) dropped because sharp writes none unless asked, dimensions recorded, and a
 * small webp thumbnail made. Animated GIF and WebP keep their frames.
 */
export async function processImage(app: App, input: Uint8Array, type: SniffedType): Promise<ProcessedImage> {
  const sharp = await loadSharpOrFail(app);
  const animated = type.ext === "gif" || type.ext === "webp";
  try {
    const base = sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, animated, failOn: "error" }).rotate();
    let outType = type;
    let pipeline;
    switch (type.ext) {
      case "jpg":
        pipeline = base.jpeg({ quality: 85 });
        break;
      case "png":
        pipeline = base.png();
        break;
      case "gif":
        pipeline = base.gif();
        break;
      default:
        // webp stays webp; avif becomes webp (cheaper to encode, displayed everywhere)
        outType = TYPES_BY_EXT.webp!;
        pipeline = base.webp({ quality: 85 });
    }
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    const thumb = await sharp(data, { limitInputPixels: MAX_INPUT_PIXELS })
      .resize(THUMB_SIZE, THUMB_SIZE, { fit: "inside", withoutEnlargement: true })
      .webp({ quality: 75 })
      .toBuffer();
    const width = info.width;
    const height = info.pageHeight ?? info.height;
    return {
      data: new Uint8Array(data),
      type: outType,
      width,
      height,
      thumb: new Uint8Array(thumb),
      renditions: await renderRenditions(app, data, animated),
    };
  } catch (err) {
    throw fieldError(
      "file",
      `is not a readable image (${err instanceof Error ? err.message.split("\n")[0] : "decode failed"})`,
    );
  }
}

/**
 * The display renditions of an image (already oriented): one per RENDITION_BOXES box, never
 * upscaled; once a box holds the whole image, that copy at full size is the last one. An
 * image the thumbnail holds whole (an avatar, a small picture) has none: its thumbnail is
 * already it at full size. Animated images stay animated.
 */
export async function renderRenditions(app: App, input: Uint8Array, animated: boolean): Promise<RenditionImage[]> {
  const sharp = await loadSharpOrFail(app);
  const meta = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  const longSide = Math.max(meta.width ?? 0, meta.pageHeight ?? meta.height ?? 0);
  const out: RenditionImage[] = [];
  if (longSide <= THUMB_SIZE) return out;
  for (const box of RENDITION_BOXES) {
    const { data, info } = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, animated })
      .resize(box, box, { fit: "inside", withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer({ resolveWithObject: true });
    out.push({ box, data: new Uint8Array(data), width: info.width, height: info.pageHeight ?? info.height });
    if (box >= longSide) break;
  }
  return out;
}

/** Width, height and a thumbnail of an image kept byte-for-byte (files sent as documents). */
export async function describeImage(
  app: App,
  input: Uint8Array,
): Promise<{ width: number; height: number; thumb: Uint8Array } | null> {
  try {
    const sharp = await loadSharp(app);
    const meta = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    const thumb = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(THUMB_SIZE, THUMB_SIZE, { fit: "inside", withoutEnlargement: true })
      .webp({ quality: 75 })
      .toBuffer();
    const swap = (meta.orientation ?? 1) >= 5;
    const width = meta.width ?? 0;
    const height = meta.pageHeight ?? meta.height ?? 0;
    return { width: swap ? height : width, height: swap ? width : height, thumb: new Uint8Array(thumb) };
  } catch {
    // a document that only looks like an image is still a valid document
    return null;
  }
}

async function loadSharpOrFail(app: App) {
  try {
    return await loadSharp(app);
  } catch (err) {
    app.log.error("sharp unavailable", { error: err instanceof Error ? err.message : String(err) });
    throw new AppError(
      500,
      "INTERNAL_ERROR",
      "Image processing is unavailable on this server (sharp failed to load)",
      [],
      { cause: err },
    );
  }
}
