import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { multipartBoundary, readMultipart, type MultipartEvent } from "./multipart";
import { parseRange, contentDisposition } from "./serve";
import { sniffType } from "./sniff";
import { cleanFileName } from "./uploads";

/** A body stream delivering BYTES cut at the given offsets. */
function streamOf(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    if (p > at) chunks.push(bytes.slice(at, p));
    at = Math.max(at, p);
  }
  return new ReadableStream({
    pull(c) {
      const next = chunks.shift();
      if (next) c.enqueue(next);
      else c.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>, boundary: string) {
  const parts: Array<{ name: string; filename: string | null; data: Buffer }> = [];
  let current: { name: string; filename: string | null; chunks: Uint8Array[] } | null = null;
  for await (const ev of readMultipart(body, boundary) as AsyncGenerator<MultipartEvent>) {
    if (ev.type === "part") current = { name: ev.name, filename: ev.filename, chunks: [] };
    else if (ev.type === "data") current!.chunks.push(ev.chunk.slice());
    else parts.push({ name: current!.name, filename: current!.filename, data: Buffer.concat(current!.chunks) });
  }
  return parts;
}

describe("readMultipart", () => {
  test("gives the same parts as the platform's FormData, however the body is cut", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 3000 }), fc.string({ maxLength: 40 }), fc.array(fc.nat(), { maxLength: 40 }), async (file, text, cuts) => {
        const form = new FormData();
        form.append("kind", text);
        form.append("file", new Blob([file as Uint8Array<ArrayBuffer>]), "f.bin");
        const req = new Request("http://x/", { method: "POST", body: form });
        const boundary = multipartBoundary(req.headers.get("content-type"))!;
        const bytes = new Uint8Array(await req.arrayBuffer());
        const parts = await collect(streamOf(bytes, cuts), boundary);
        expect(parts.map((p) => p.name)).toEqual(["kind", "file"]);
        expect(parts[0]!.data.toString("utf8")).toBe(text);
        expect(parts[1]!.filename).toBe("f.bin");
        expect(new Uint8Array(parts[1]!.data)).toEqual(file);
      }),
      { numRuns: 60 },
    );
  });

  test("large chunks (taken without copying) split anywhere, even inside a delimiter, give the same file", async () => {
    const boundary = "----Xq7boundary";
    const enc = new TextEncoder();
    // near-delimiters inside the data: the boundary line without its last byte
    const trap = enc.encode(`\r\n--${boundary.slice(0, -1)}`);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: 299_000 }), { maxLength: 4 }), fc.array(fc.nat({ max: 301_000 }), { maxLength: 6 }), async (traps, cuts) => {
        const file = new Uint8Array(300_000);
        for (let i = 0; i < file.length; i++) file[i] = (i * 7) % 256;
        for (const t of traps) file.set(trap, t);
        const bytes = new Uint8Array(
          Buffer.concat([
            enc.encode(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`),
            file,
            enc.encode(`\r\n--${boundary}\r\ncontent-disposition: form-data; name="kind"\r\n\r\nafter\r\n--${boundary}--\r\n`),
          ]),
        );
        const parts = await collect(streamOf(bytes, cuts), boundary);
        expect(parts.map((p) => p.name)).toEqual(["file", "kind"]);
        expect(parts[0]!.data.equals(Buffer.from(file))).toBe(true);
        expect(parts[1]!.data.toString()).toBe("after");
      }),
      { numRuns: 40 },
    );
    // and deterministically: a cut at every position of the delimiter that ends the file
    const file = new Uint8Array(200_000).fill(0x2d);
    const head = enc.encode(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="f"\r\n\r\n`);
    const bytes = new Uint8Array(Buffer.concat([head, file, enc.encode(`\r\n--${boundary}--\r\n`)]));
    for (let k = -2; k < boundary.length + 6; k++) {
      const parts = await collect(streamOf(bytes, [head.length + 10, head.length + file.length + k]), boundary);
      expect(parts[0]!.data.equals(Buffer.from(file))).toBe(true);
    }
  });

  test("data that contains boundary-like bytes stays intact", async () => {
    const boundary = "abc";
    const payload = "--ab\r\n--abX\r\n-abc";
    const body = `--abc\r\ncontent-disposition: form-data; name="file"; filename="x"\r\n\r\n${payload}\r\n--abc--\r\n`;
    const parts = await collect(streamOf(new TextEncoder().encode(body), [3, 7, 60, 61, 70]), boundary);
    expect(parts[0]!.data.toString()).toBe(payload);
  });

  test("malformed bodies are errors", async () => {
    const enc = new TextEncoder();
    await expect(collect(streamOf(enc.encode("no boundary here"), []), "abc")).rejects.toThrow("ended before the closing boundary");
    await expect(collect(streamOf(enc.encode("--abc\r\ncontent-type: text/plain\r\n\r\nx\r\n--abc--"), []), "abc")).rejects.toThrow("no Content-Disposition name");
    await expect(collect(streamOf(enc.encode(`--abc\r\n${"x: y\r\n".repeat(4000)}`), []), "abc")).rejects.toThrow("too large");
  });

  test("multipartBoundary reads quoted and plain boundaries and refuses other types", () => {
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe("a b");
    expect(multipartBoundary("Multipart/Form-Data;boundary=xyz; charset=utf-8")).toBe("xyz");
    expect(multipartBoundary("application/json")).toBeNull();
    expect(multipartBoundary("multipart/form-data")).toBeNull();
    expect(multipartBoundary(null)).toBeNull();
  });
});

describe("sniffType", () => {
  const b = (...parts: Array<string | number[]>) => new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p)))));
  test.each([
    [b([0xff, 0xd8, 0xff, 0xe1]), "image/jpeg"],
    [b([0x89], "PNG\r\n", [0x1a, 0x0a]), "image/png"],
    [b("GIF89a"), "image/gif"],
    [b("RIFF\0\0\0\0WEBPVP8 "), "image/webp"],
    [b([0, 0, 0, 0x1c], "ftypavif"), "image/avif"],
    [b([0, 0, 0, 0x1c], "ftypheic"), "image/heic"],
    [b([0, 0, 0, 0x1c], "ftypqt  "), "video/quicktime"],
    [b([0, 0, 0, 0x1c], "ftypmp42"), "video/mp4"],
    [b([0, 0, 0, 0x1c], "ftypM4A "), "audio/mp4"],
    [b([0x1a, 0x45, 0xdf, 0xa3], "....webm"), "video/webm"],
    [b([0x1a, 0x45, 0xdf, 0xa3], "....matroska"), "video/x-matroska"],
    [b("OggS\0\x02", "..................OpusHead"), "audio/ogg"],
    [b("ID3\x04"), "audio/mpeg"],
    [b([0xff, 0xfb, 0x90]), "audio/mpeg"],
    [b([0xff, 0xf1, 0x50]), "audio/aac"],
    [b("RIFF\0\0\0\0WAVEfmt "), "audio/wav"],
    [b("fLaC"), "audio/flac"],
    [b("%PDF-1.7"), "application/pdf"],
    [b("PK\x03\x04"), "application/zip"],
    [b("hello, мир 👋"), "text/plain; charset=utf-8"],
    [b("<svg xmlns='http://www.w3.org/2000/svg'/>"), "application/octet-stream"],
    [b("  <!DOCTYPE html>"), "application/octet-stream"],
    [b([0, 1, 2, 3]), "application/octet-stream"],
    [b(), "application/octet-stream"],
  ])("%# → %s", (head, mime) => {
    expect(sniffType(head).mime).toBe(mime);
  });

  test("SVG is never an image class", () => {
    expect(sniffType(new TextEncoder().encode('<?xml version="1.0"?><svg/>')).class).toBe("file");
  });
});

describe("serving helpers", () => {
  test("parseRange", () => {
    expect(parseRange(null, 10)).toBeNull();
    expect(parseRange("bytes=0-4", 10)).toEqual({ start: 0, end: 4 });
    expect(parseRange("bytes=5-", 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange("bytes=-3", 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange("bytes=-30", 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange("bytes=10-", 10)).toBe("unsatisfiable");
    expect(parseRange("bytes=0-0", 0)).toBe("unsatisfiable");
    expect(parseRange("bytes=0-1, 3-4", 10)).toBeNull();
    expect(parseRange("pages=1", 10)).toBeNull();
  });

  test("contentDisposition and cleanFileName", () => {
    expect(contentDisposition("attachment", 'a"b.txt')).toBe(`attachment; filename="a_b.txt"; filename*=UTF-8''a%22b.txt`);
    expect(contentDisposition("inline", null)).toBe("inline");
    expect(cleanFileName("../../etc/passwd")).toBe("passwd");
    expect(cleanFileName("C:\\x\\y.doc")).toBe("y.doc");
    expect(cleanFileName("a\r\nb\0.txt")).toBe("ab.txt");
    expect(cleanFileName("..")).toBeNull();
    expect(cleanFileName("x".repeat(300))).toHaveLength(255);
  });
});
