import type { MediaClass } from "./kinds";

/** What the bytes of a file really are, decided from magic numbers, never from names. */
export interface SniffedType {
  mime: string;
  /** extension of stored files of this type (no dot); also decides how the file is served */
  ext: string;
  class: MediaClass;
}

const type = (mime: string, ext: string, cls: MediaClass): SniffedType => ({ mime, ext, class: cls });

export const OCTET_STREAM = type("application/octet-stream", "bin", "file");

/**
 * Served Content-Type per stored extension. Only types listed here with an image, video
 * or audio class are ever served inline; SVG and HTML are never listed as images.
 */
export const TYPES_BY_EXT: Record<string, SniffedType> = Object.fromEntries(
  [
    type("image/jpeg", "jpg", "image"),
    type("image/png", "png", "image"),
    type("image/gif", "gif", "image"),
    type("image/webp", "webp", "image"),
    type("image/avif", "avif", "image"),
    type("image/heic", "heic", "file"),
    type("video/mp4", "mp4", "video"),
    type("video/quicktime", "mov", "video"),
    type("video/webm", "webm", "video"),
    type("video/x-matroska", "mkv", "video"),
    type("video/3gpp", "3gp", "video"),
    type("video/ogg", "ogv", "video"),
    type("video/x-msvideo", "avi", "file"),
    type("audio/ogg", "ogg", "audio"),
    type("audio/mpeg", "mp3", "audio"),
    type("audio/aac", "aac", "audio"),
    type("audio/wav", "wav", "audio"),
    type("audio/mp4", "m4a", "audio"),
    type("audio/flac", "flac", "audio"),
    type("audio/webm", "weba", "audio"),
    type("application/pdf", "pdf", "file"),
    type("application/zip", "zip", "file"),
    type("application/gzip", "gz", "file"),
    type("application/x-7z-compressed", "7z", "file"),
    type("application/vnd.rar", "rar", "file"),
    type("text/plain; charset=utf-8", "txt", "file"),
    OCTET_STREAM,
  ].map((t) => [t.ext, t]),
);

const ascii = (bytes: Uint8Array, at: number, text: string): boolean => {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

const startsWith = (bytes: Uint8Array, sig: number[]): boolean => bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b);

const byExt = (ext: string): SniffedType => TYPES_BY_EXT[ext]!;

/** Detects the type from the first bytes of a file (4 KB are plenty). */
export function sniffType(head: Uint8Array): SniffedType {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return byExt("jpg");
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return byExt("png");
  if (ascii(head, 0, "GIF87a") || ascii(head, 0, "GIF89a")) return byExt("gif");
  if (ascii(head, 0, "RIFF")) {
    if (ascii(head, 8, "WEBP")) return byExt("webp");
    if (ascii(head, 8, "WAVE")) return byExt("wav");
    if (ascii(head, 8, "AVI ")) return byExt("avi");
  }
  if (ascii(head, 4, "ftyp")) return sniffFtyp(head);
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return sniffEbml(head);
  if (ascii(head, 0, "OggS")) return sniffOgg(head);
  if (ascii(head, 0, "ID3")) return byExt("mp3");
  if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0) {
    // MPEG audio frame sync; layer bits 00 with MPEG-4/2 ID mean an AAC ADTS stream
    return (head[1]! & 0x06) === 0 ? byExt("aac") : byExt("mp3");
  }
  if (ascii(head, 0, "fLaC")) return byExt("flac");
  if (ascii(head, 0, "%PDF-")) return byExt("pdf");
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return byExt("zip");
  if (startsWith(head, [0x1f, 0x8b])) return byExt("gz");
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return byExt("7z");
  if (ascii(head, 0, "Rar!\x1a\x07")) return byExt("rar");
  return sniffText(head);
}

function sniffFtyp(head: Uint8Array): SniffedType {
  const brand = new TextDecoder("latin1").decode(head.subarray(8, 12));
  if (brand === "avif" || brand === "avis") return byExt("avif");
  if (["heic", "heix", "hevc", "hevx", "mif1", "msf1"].includes(brand)) return byExt("heic");
  if (brand === "qt  ") return byExt("mov");
  if (brand === "M4A " || brand === "M4B " || brand === "F4A ") return byExt("m4a");
  if (brand.startsWith("3g")) return byExt("3gp");
  return byExt("mp4");
}

function sniffEbml(head: Uint8Array): SniffedType {
  const text = new TextDecoder("latin1").decode(head.subarray(0, 64));
  return text.includes("webm") ? byExt("webm") : byExt("mkv");
}

function sniffOgg(head: Uint8Array): SniffedType {
  const text = new TextDecoder("latin1").decode(head.subarray(0, 128));
  return text.includes("theora") ? byExt("ogv") : byExt("ogg");
}

/**
 * UTF-8 text without control bytes is plain text, except markup a browser would
 * render or run (SVG, HTML, XML): that is only ever an opaque download.
 */
function sniffText(head: Uint8Array): SniffedType {
  if (head.length === 0) return OCTET_STREAM;
  // a multi-byte character may be cut at the end of the head: drop up to 3 trailing bytes
  let text: string | null = null;
  for (let cut = 0; cut <= 3 && text === null; cut++) {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, head.length - cut));
    } catch {
      // try a shorter head
    }
  }
  if (text === null || /[\x00-\x08\x0e-\x1f\x7f]/.test(text)) return OCTET_STREAM;
  if (/<\s*(svg|html|script|\?xml|!doctype|body|iframe)/i.test(text.slice(0, 1024))) return OCTET_STREAM;
  return byExt("txt");
}
