import type { App } from "../app";
import { loadSharp } from "../media/sharp";
import { storeUpload, type UploadKind } from "../media/uploads";

/** Test files of every media class, real enough for the type sniffer and sharp. */

export async function pngOf(app: App, width: number, height: number): Promise<Uint8Array<ArrayBuffer>> {
  const sharp = await loadSharp(app);
  return Uint8Array.from(
    await sharp({ create: { width, height, channels: 3, background: "#3366ff" } })
      .png()
      .toBuffer(),
  );
}

/** A JPEG carrying EXIF (camera make, GPS position) and orientation 6 (rotate 90° to show). */
export async function jpegWithGps(app: App): Promise<Uint8Array<ArrayBuffer>> {
  const sharp = await loadSharp(app);
  const buf = await sharp({ create: { width: 60, height: 40, channels: 3, background: "#00aa00" } })
    .jpeg()
    .withExif({
      IFD0: { Make: "SpyCam", Model: "X1" },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "55/1 45/1 21/1", GPSLongitudeRef: "E", GPSLongitude: "37/1 37/1 3/1" },
    })
    .withMetadata({ orientation: 6 })
    .toBuffer();
  return Uint8Array.from(buf);
}

/** HEAD followed by zeros up to SIZE bytes (trailing data after a JPEG's end marker is ignored by decoders). */
export function padTo(head: Uint8Array, size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  out.set(head.subarray(0, Math.min(head.length, size)));
  return out;
}

/** The start of an MP4 file (ftyp box); without ffmpeg nothing decodes further. */
export const MP4_HEAD = new Uint8Array([
  0,
  0,
  0,
  0x18,
  ...Buffer.from("ftypisom"),
  0,
  0,
  2,
  0,
  ...Buffer.from("isommp41"),
]);
export const WEBM_HEAD = new Uint8Array([
  0x1a,
  0x45,
  0xdf,
  0xa3,
  0x9f,
  0x42,
  0x86,
  0x81,
  0x01,
  0x42,
  0x82,
  0x84,
  ...Buffer.from("webm"),
]);

/** A WAV header (8 kHz mono 8-bit) declaring SAMPLES bytes of data. */
export function wavHead(samples: number): Uint8Array {
  const buf = Buffer.alloc(44);
  buf.write("RIFF", 0, "ascii");
  buf.writeUInt32LE(36 + samples, 4);
  buf.write("WAVEfmt ", 8, "ascii");
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(8000, 24);
  buf.writeUInt32LE(8000, 28);
  buf.writeUInt16LE(1, 32);
  buf.writeUInt16LE(8, 34);
  buf.write("data", 36, "ascii");
  buf.writeUInt32LE(samples, 40);
  return new Uint8Array(buf);
}

export const PDF_HEAD = Uint8Array.from(
  Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\n%%EOF\n", "latin1"),
);

/** Stores a small real file for OWNER the way POST /api/account/upload does and returns its URL. */
export async function uploadFor(app: App, ownerId: number, kind: UploadKind): Promise<string> {
  const data = kind.endsWith("voice")
    ? new Uint8Array([...wavHead(800), ...new Uint8Array(800).fill(0x80)])
    : await pngOf(app, 8, 6);
  const row = await storeUpload(app, { ownerId, kind, data });
  return row.url;
}
