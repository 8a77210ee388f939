/**
 * A streaming multipart/form-data reader (RFC 7578) over a request body: parts arrive as
 * events while the body streams, so a file can be counted and cut off at its size limit
 * without the whole body ever being buffered.
 */
export type MultipartEvent =
  | { type: "part"; name: string; filename: string | null; contentType: string | null }
  | { type: "data"; chunk: Uint8Array }
  | { type: "partEnd" };

export class MultipartError extends Error {}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_PREAMBLE_BYTES = 64 * 1024;
// a body chunk at least this large is passed on without copying (Bun delivers 16–512 KB chunks)
const TAKE_WHOLE_BYTES = 8 * 1024;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

/** The boundary of a multipart/form-data Content-Type, or null for anything else. */
export function multipartBoundary(contentType: string | null): string | null {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const m = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2]!) : null;
}

function parsePartHeaders(raw: string): { name: string; filename: string | null; contentType: string | null } {
  let name: string | null = null;
  let filename: string | null = null;
  let contentType: string | null = null;
  for (const line of raw.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-type") contentType = value;
    if (key !== "content-disposition") continue;
    // browsers percent-encode quotes in names and send backslashes as they are (HTML spec),
    // so a quoted value runs to the next quote; Windows paths are cut by cleanFileName later
    for (const m of value.matchAll(/;\s*([a-z*]+)\s*=\s*(?:"([^"]*)"|([^;\s]*))/gi)) {
      const param = m[1]!.toLowerCase();
      const v = m[2] ?? m[3]!;
      if (param === "name") name = v;
      else if (param === "filename") filename ??= v;
      else if (param === "filename*") {
        const ext = /^utf-8''(.*)$/i.exec(v);
        if (ext) {
          try {
            filename = decodeURIComponent(ext[1]!);
          } catch {
            // keep the plain filename
          }
        }
      }
    }
  }
  if (name === null) throw new MultipartError("a part has no Content-Disposition name");
  return { name, filename, contentType };
}

/**
 * Reads BODY as multipart with BOUNDARY, yielding each part's headers, its data chunks as
 * they arrive, and its end. Stopping iteration early cancels the body.
 */
export async function* readMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
): AsyncGenerator<MultipartEvent> {
  // a leading CRLF lets the first boundary match the same delimiter as every later one
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const keep = delimiter.length + 4;
  let buf: Buffer = Buffer.from(CRLF);
  let state: "preamble" | "afterDelimiter" | "headers" | "body" | "end" = "preamble";
  let discarded = 0;
  const reader = body.getReader();
  let done = false;
  try {
    while (state !== "end") {
      let progressed = true;
      while (progressed && state !== "end") {
        progressed = false;
        if (state === "preamble") {
          const at = buf.indexOf(delimiter);
          if (at >= 0) {
            buf = buf.subarray(at + delimiter.length);
            state = "afterDelimiter";
            progressed = true;
          } else if (buf.length > keep) {
            discarded += buf.length - keep;
            if (discarded > MAX_PREAMBLE_BYTES) throw new MultipartError("no multipart boundary found");
            buf = buf.subarray(buf.length - keep);
          }
        } else if (state === "afterDelimiter") {
          if (buf.length < 2) break;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            state = "end";
          } else {
            // transport padding before the CRLF is allowed
            const eol = buf.indexOf(CRLF);
            if (eol < 0) {
              if (buf.length > 256) throw new MultipartError("malformed boundary line");
              break;
            }
            if (buf.subarray(0, eol).some((b) => b !== 0x20 && b !== 0x09))
              throw new MultipartError("malformed boundary line");
            buf = buf.subarray(eol + 2);
            state = "headers";
            progressed = true;
          }
        } else if (state === "headers") {
          const end = buf.indexOf(HEADER_END);
          if (end < 0) {
            if (buf.length > MAX_HEADER_BYTES) throw new MultipartError("part headers are too large");
            break;
          }
          const headers = parsePartHeaders(buf.subarray(0, end).toString("utf8"));
          buf = buf.subarray(end + 4);
          state = "body";
          progressed = true;
          yield { type: "part", ...headers };
        } else if (state === "body") {
          const at = buf.indexOf(delimiter);
          if (at >= 0) {
            if (at > 0) yield { type: "data", chunk: buf.subarray(0, at) };
            buf = buf.subarray(at + delimiter.length);
            state = "afterDelimiter";
            progressed = true;
            yield { type: "partEnd" };
          } else if (buf.length > keep) {
            // the tail may hold the start of a delimiter split across chunks
            yield { type: "data", chunk: buf.subarray(0, buf.length - keep) };
            buf = buf.subarray(buf.length - keep);
          }
        }
      }
      if ((state as string) === "end") break;
      const { value, done: finished } = await reader.read();
      if (finished) {
        done = true;
        throw new MultipartError("the body ended before the closing boundary");
      }
      if (!value || value.length === 0) continue;
      if (state === "body" && buf.length > 0 && value.length >= TAKE_WHOLE_BYTES) {
        // large chunk of a part: a delimiter starting in the kept tail would end within the
        // chunk's first bytes; when there is none, the tail is data and the chunk is taken
        // as it is, without copying it
        const seam = Buffer.concat([buf, value.subarray(0, delimiter.length)]);
        if (seam.indexOf(delimiter) < 0) {
          yield { type: "data", chunk: buf };
          buf = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
          continue;
        }
      }
      buf = buf.length ? Buffer.concat([buf, value]) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
