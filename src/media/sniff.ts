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
    type("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx", "file"),
    type("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx", "file"),
    type("application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx", "file"),
    type("application/vnd.oasis.opendocument.text", "odt", "file"),
    type("application/epub+zip", "epub", "file"),
    type("text/plain; charset=utf-8", "txt", "file"),
    OCTET_STREAM,
  ].map((t) => [t.ext, t]),
);

const byExt = (ext: string): SniffedType => TYPES_BY_EXT[ext]!;

/** file-type's names for formats this table files under another extension (an Ogg of no known codec stays audio, as before). */
const EXT_ALIASES: Record<string, string> = {
  opus: "ogg",
  oga: "ogg",
  spx: "ogg",
  ogx: "ogg",
  m4b: "m4a",
  f4a: "m4a",
  f4v: "mp4",
  m4v: "mp4",
  heif: "heic",
  qt: "mov",
};

/**
 * Detects the type from the first bytes of a file (4 KB are plenty). file-type recognises
 * the format; this table decides what it becomes here: a format it does not list is an
 * opaque download, so a type file-type learns later never starts being served inline.
 */
export async function sniffType(head: Uint8Array): Promise<SniffedType> {
  // file-type and its tokenizers load with the first upload, not at start
  const { fileTypeFromBuffer } = await import("file-type");
  const found = await fileTypeFromBuffer(head);
  if (found) return TYPES_BY_EXT[EXT_ALIASES[found.ext] ?? found.ext] ?? OCTET_STREAM;
  return sniffText(head);
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
