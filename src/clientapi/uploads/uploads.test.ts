import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { loadSharp } from "../../media/sharp";
import { UPLOAD_KINDS } from "../../media/kinds";
import { findUploadByUrl, markAttached, resolveOwnUpload, storeUpload } from "../../media/uploads";
import { ffmpegTools } from "../../media/video";
import { TestClient } from "../../testing/client";
import { signedInClient } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { waitFor } from "../../testing/wait";
import { MP4_HEAD, PDF_HEAD, WEBM_HEAD, jpegWithGps, padTo, pngOf, wavHead } from "../../testing/media";
import { authHeaders, postUpload } from "../../testing/uploads";

let s: TestServer;
let alice: Awaited<ReturnType<typeof signedInClient>>;
let bob: Awaited<ReturnType<typeof signedInClient>>;
let png: Uint8Array;

/** File URLs are absolute under baseUrl; tests fetch the same path on the test server's port. */
const local = (url: string) => s.url + new URL(url).pathname;

beforeAll(async () => {
  s = await startTestServer();
  alice = await signedInClient(s);
  bob = await signedInClient(s);
  png = await pngOf(s.app, 40, 30);
});
afterAll(() => s.stop());

describe("POST /api/account/upload", () => {
  test("an image upload answers url, thumb and dimensions, and both files are served", async () => {
    const res = await postUpload(alice.client, "avatar", png, { filename: "me.png", type: "image/png" });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/[A-Za-z0-9_-]{24}\.png$/);
    expect(d.thumb).toMatch(/\/files\/[A-Za-z0-9_-]{24}-t\.webp$/);
    expect(d).toMatchObject({
      posterUrl: null,
      kind: "avatar",
      mime: "image/png",
      width: 40,
      height: 30,
      name: "me.png",
      processing: null,
    });
    expect(d.sizeBytes).toBeGreaterThan(0);

    const file = await fetch(local(d.url));
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("content-disposition")).toBe("inline");
    expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(file.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{24}-[0-9a-z]+"$/);
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(bytes.length).toBe(d.sizeBytes);
    const sharp = await loadSharp(s.app);
    expect((await sharp(bytes).metadata()).format).toBe("png");

    const thumb = await fetch(local(d.thumb));
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/webp");
    const meta = await sharp(new Uint8Array(await thumb.arrayBuffer())).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.width).toBe(40);
  });

  test("a large image gets a thumbnail at most 320 px", async () => {
    const res = await postUpload(alice.client, "post", await pngOf(s.app, 1000, 500));
    expect(res.status).toBe(200);
    const meta = await (
      await loadSharp(s.app)
    )(new Uint8Array(await (await fetch(local(res.body.data.thumb))).arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([320, 160]);
  });

  test("EXIF and GPS are stripped and the orientation is applied", async () => {
    const jpeg = await jpegWithGps(s.app);
    expect(Buffer.from(jpeg).includes("SpyCam")).toBe(true);
    const res = await postUpload(alice.client, "post", jpeg, { filename: "IMG_0001.JPG", type: "image/jpeg" });
    expect(res.status).toBe(200);
    // 60×40 stored with orientation 6 shows as 40×60
    expect(res.body.data).toMatchObject({ mime: "image/jpeg", width: 40, height: 60 });
    const stored = Buffer.from(await (await fetch(local(res.body.data.url))).arrayBuffer());
    expect(stored.includes("SpyCam")).toBe(false);
    expect(stored.includes("Exif")).toBe(false);
    const meta = await (await loadSharp(s.app))(stored).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect([meta.width, meta.height]).toEqual([40, 60]);
  });

  test("signed-out callers are refused", async () => {
    const anon = new TestClient(s.url);
    const res = await postUpload(anon, "avatar", png);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
  });

  test("unknown, missing or conflicting kind is a VALIDATION_ERROR on kind", async () => {
    const unknown = await postUpload(alice.client, "selfie", png);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("VALIDATION_ERROR");
    expect(unknown.body.error.details.fieldErrors.kind[0]).toContain("chat-image");

    const missing = await postUpload(alice.client, null, png);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fieldErrors.kind).toEqual(["is required"]);

    const form = new FormData();
    form.append("kind", "post");
    form.append("file", new Blob([png as Uint8Array<ArrayBuffer>]), "a.png");
    const conflicting = await alice.client.post("/api/account/upload?kind=avatar", form);
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.error.details.fieldErrors.kind).toBeDefined();

    const badQuery = await alice.client.post("/api/account/upload?kind=../../etc", new FormData());
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.error.details.fieldErrors.kind).toBeDefined();
  });

  test("missing file, empty file, JSON body and malformed multipart are VALIDATION_ERRORs on file", async () => {
    const form = new FormData();
    form.append("kind", "avatar");
    const noFile = await alice.client.post("/api/account/upload", form);
    expect(noFile.status).toBe(400);
    expect(noFile.body.error.details.fieldErrors.file).toEqual(["is required"]);

    const empty = await postUpload(alice.client, "chat-file", new Uint8Array(0));
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.fieldErrors.file).toEqual(["is empty"]);

    const json = await alice.client.post("/api/account/upload", { kind: "avatar", file: "data:image/png;base64,AAAA" });
    expect(json.status).toBe(400);
    expect(json.body.error.code).toBe("VALIDATION_ERROR");
    expect(json.body.error.details.fieldErrors.file[0]).toContain("multipart/form-data");

    const truncated = await fetch(`${s.url}/api/account/upload`, {
      method: "POST",
      headers: { ...authHeaders(alice.client), "content-type": "multipart/form-data; boundary=XyZ" },
      body: '--XyZ\r\ncontent-disposition: form-data; name="kind"\r\n\r\navatar\r\n--XyZ\r\ncontent-disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc',
    });
    expect(truncated.status).toBe(400);
    const body = (await truncated.json()) as any;
    expect(body.error.details.fieldErrors.file[0]).toContain("malformed");
  });

  test("CSRF is required", async () => {
    const form = new FormData();
    form.append("kind", "avatar");
    form.append("file", new Blob([png as Uint8Array<ArrayBuffer>]), "a.png");
    const res = await fetch(`${s.url}/api/account/upload`, {
      method: "POST",
      headers: { cookie: authHeaders(alice.client).cookie },
      body: form,
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe("CSRF_TOKEN_INVALID");
  });

  test("the kind may come after the file", async () => {
    const ok = await postUpload(alice.client, "cover", png, { kindLast: true });
    expect(ok.status).toBe(200);
    expect(ok.body.data.kind).toBe("cover");
    const over = await postUpload(alice.client, "cover", padTo(png, UPLOAD_KINDS.cover.maxBytes + 1), {
      kindLast: true,
    });
    expect(over.status).toBe(413);
    expect(over.body.error.details.fieldErrors.file[0]).toContain("5 MB");
  });
});

describe("real types from the bytes", () => {
  test("the declared type and name do not matter: a PNG named .jpg is a PNG", async () => {
    const res = await postUpload(alice.client, "chat-image", png, { filename: "photo.jpg", type: "image/jpeg" });
    expect(res.status).toBe(200);
    expect(res.body.data.mime).toBe("image/png");
    expect(res.body.data.url).toEndWith(".png");
  });

  test("image kinds refuse non-images whatever they claim to be", async () => {
    const cases: Array<[Uint8Array, string]> = [
      [new Uint8Array(Buffer.from("just some text pretending to be a photo")), "photo.jpg"],
      [
        new Uint8Array(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')),
        "icon.svg",
      ],
      [padTo(MP4_HEAD, 2000), "clip.png"],
      [PDF_HEAD, "doc.png"],
      [new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5]), "broken.jpg"],
    ];
    for (const [data, filename] of cases) {
      const res = await postUpload(alice.client, "avatar", data, { filename, type: "image/png" });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fieldErrors.file).toHaveLength(1);
    }
  });

  test("AVIF becomes WebP; an animated GIF keeps its frames", async () => {
    const sharp = await loadSharp(s.app);
    const avif = Uint8Array.from(
      await sharp({ create: { width: 30, height: 20, channels: 3, background: "#ff00ff" } })
        .avif()
        .toBuffer(),
    );
    const a = await postUpload(alice.client, "story", avif, { filename: "x.avif" });
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ mime: "image/webp", width: 30, height: 20 });
    expect(a.body.data.url).toEndWith(".webp");

    const frames = await Promise.all(
      ["#f00", "#0f0", "#00f"].map((c) =>
        sharp({ create: { width: 12, height: 8, channels: 3, background: c } })
          .png()
          .toBuffer(),
      ),
    );
    const gif = Uint8Array.from(
      await sharp(frames, { join: { animated: true } })
        .gif({ delay: 100 })
        .toBuffer(),
    );
    const g = await postUpload(alice.client, "comment-image", gif, { filename: "x.gif" });
    expect(g.status).toBe(200);
    expect(g.body.data).toMatchObject({ mime: "image/gif", width: 12, height: 8 });
    const stored = new Uint8Array(await (await fetch(local(g.body.data.url))).arrayBuffer());
    expect((await sharp(stored, { animated: true }).metadata()).pages).toBe(3);
  });

  test("a decompression bomb (huge dimensions in a tiny file) is refused", async () => {
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(Bun.hash.crc32(body));
      return Buffer.concat([len, body, crc]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(30000, 0);
    ihdr.writeUInt32BE(30000, 4);
    ihdr.set([8, 2, 0, 0, 0], 8);
    const bomb = Uint8Array.from(
      Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        chunk("IHDR", ihdr),
        chunk("IDAT", Buffer.alloc(16)),
        chunk("IEND", Buffer.alloc(0)),
      ]),
    );
    const res = await postUpload(alice.client, "post", bomb, { filename: "bomb.png" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.file[0]).toStartWith("is not a readable image");
  });

  test("video and voice kinds refuse images, and image kinds refuse videos", async () => {
    for (const kind of ["chat-video", "story-voice", "cover-video"] as const) {
      const res = await postUpload(alice.client, kind, png, { type: "video/mp4", filename: "x.mp4" });
      expect(res.status).toBe(400);
      expect(res.body.error.details.fieldErrors.file[0]).toContain(`kind "${kind}"`);
    }
  });

  test("SVG and HTML in a file kind are stored as opaque downloads, never as images or pages", async () => {
    for (const [text, name] of [
      ['<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', "logo.svg"],
      ["<!doctype html><html><script>alert(document.cookie)</script></html>", "page.html"],
    ] as const) {
      const res = await postUpload(alice.client, "chat-file", new Uint8Array(Buffer.from(text)), {
        filename: name,
        type: "image/svg+xml",
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ mime: "application/octet-stream", thumb: null, width: null });
      expect(res.body.data.url).toEndWith(".bin");
      const file = await fetch(local(res.body.data.url));
      expect(file.headers.get("content-type")).toBe("application/octet-stream");
      expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${name}"; filename*=UTF-8''${name}`);
      expect(file.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
      expect(await file.text()).toBe(text);
    }
  });

  test("documents keep their bytes and download under their (Unicode) name", async () => {
    const res = await postUpload(alice.client, "post-file", PDF_HEAD, {
      filename: "C:\\Users\\me\\Отчёт 2026.pdf",
      type: "text/plain",
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      mime: "application/pdf",
      name: "Отчёт 2026.pdf",
      sizeBytes: PDF_HEAD.length,
    });
    const file = await fetch(local(res.body.data.url));
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(file.headers.get("content-disposition")).toBe(
      `attachment; filename="_____ 2026.pdf"; filename*=UTF-8''${encodeURIComponent("Отчёт 2026.pdf")}`,
    );
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(PDF_HEAD);
  });

  test("an image sent as a file keeps its bytes but gets dimensions and a thumbnail", async () => {
    const jpeg = await jpegWithGps(s.app);
    const res = await postUpload(alice.client, "chat-file", jpeg, { filename: "original.jpg" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ mime: "image/jpeg", width: 40, height: 60, sizeBytes: jpeg.length });
    expect(res.body.data.thumb).toMatch(/-t\.webp$/);
    expect(new Uint8Array(await (await fetch(local(res.body.data.url))).arrayBuffer())).toEqual(jpeg);
  });

  test("videos and voice are recognised; without ffmpeg the upload says why there is no poster", async () => {
    const video = await postUpload(alice.client, "chat-video", padTo(MP4_HEAD, 4096), {
      filename: "clip.mov",
      type: "video/quicktime",
    });
    expect(video.status).toBe(200);
    expect(video.body.data.mime).toBe("video/mp4");
    if (ffmpegTools() === null) {
      expect(video.body.data.posterUrl).toBeNull();
      expect(video.body.data.processing).toEqual({ poster: "ffmpeg not available" });
    } else {
      // bytes that are no real video: ffmpeg finds no frame and the result says so
      expect(video.body.data.processing.poster).toContain("ffmpeg");
    }
    const file = await fetch(local(video.body.data.url));
    expect(file.headers.get("content-type")).toBe("video/mp4");
    expect(file.headers.get("content-disposition")).toBe("inline");

    const webm = await postUpload(alice.client, "story-video", padTo(WEBM_HEAD, 1000));
    expect(webm.body.data.mime).toBe("video/webm");

    const voice = await postUpload(alice.client, "comment-voice", padTo(wavHead(4000), 4044), {
      filename: "v.ogg",
      type: "audio/ogg",
    });
    expect(voice.status).toBe(200);
    expect(voice.body.data).toMatchObject({ mime: "audio/wav", posterUrl: null, processing: null });
    expect((await fetch(local(voice.body.data.url))).headers.get("content-type")).toBe("audio/wav");
  });
});

describe("with ffmpeg on PATH", () => {
  const tools = ffmpegTools();

  /** Encodes a short test clip with ffmpeg's built-in sources. */
  async function encode(args: string[], ext: string): Promise<Uint8Array<ArrayBuffer>> {
    const out = join(s.dataDir, `clip-${Math.random().toString(36).slice(2)}.${ext}`);
    const proc = Bun.spawn([tools!.ffmpeg, "-v", "error", "-y", ...args, out], { stdout: "ignore", stderr: "pipe" });
    if ((await proc.exited) !== 0) throw new Error(await new Response(proc.stderr).text());
    return Uint8Array.from(await Bun.file(out).bytes());
  }

  test.skipIf(tools === null)("a real video gets a poster, its duration and frame size", async () => {
    const mp4 = await encode(
      ["-f", "lavfi", "-i", "testsrc=duration=1.5:size=160x120:rate=10", "-c:v", "mpeg4", "-f", "mp4"],
      "mp4",
    );
    const res = await postUpload(alice.client, "post-video", mp4, { filename: "clip.mp4" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      mime: "video/mp4",
      width: 160,
      height: 120,
      durationMs: 1500,
      processing: null,
    });
    expect(res.body.data.posterUrl).toMatch(/-p\.jpg$/);
    expect(res.body.data.thumb).toBe(res.body.data.posterUrl);
    const poster = await fetch(local(res.body.data.posterUrl));
    expect(poster.headers.get("content-type")).toBe("image/jpeg");
    const meta = await (await loadSharp(s.app))(new Uint8Array(await poster.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 160, 120]);
  });

  test.skipIf(tools === null)("a voice recording gets its duration", async () => {
    const ogg = await encode(
      ["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "libopus", "-f", "ogg"],
      "ogg",
    );
    const res = await postUpload(alice.client, "chat-voice", ogg, { filename: "voice.ogg" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ mime: "audio/ogg", posterUrl: null, processing: null });
    expect(Math.abs(res.body.data.durationMs - 2000)).toBeLessThan(50);
  });
});

describe("size limits", () => {
  test("a truthful Content-Length over the limit is refused before the body is sent", async () => {
    const headers = authHeaders(alice.client);
    const boundary = "----smoke";
    // with ?kind= the header alone decides
    const byQuery = await rawPost(`/api/account/upload?kind=avatar`, headers, boundary, 6 * 1024 * 1024, "");
    expect(byQuery.status).toBe(413);
    // with the kind field first, as soon as the file part starts
    const prefix = `--${boundary}\r\ncontent-disposition: form-data; name="kind"\r\n\r\navatar\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.jpg"\r\ncontent-type: image/jpeg\r\n\r\n\xff\xd8\xff`;
    const byField = await rawPost(`/api/account/upload`, headers, boundary, 90 * 1024 * 1024, prefix);
    expect(byField.status).toBe(413);
    expect(byField.body).toContain('"fieldErrors":{"file"');
    // over the largest limit of all, whatever the kind
    const huge = await rawPost(`/api/account/upload`, headers, boundary, 125 * 1024 * 1024, "");
    expect(huge.status).toBe(413);
  });

  test("a chunked body without Content-Length is cut off at the limit", async () => {
    const boundary = "----chunked";
    const enc = new TextEncoder();
    const head = enc.encode(
      `--${boundary}\r\ncontent-disposition: form-data; name="kind"\r\n\r\nstory\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n`,
    );
    const chunk = new Uint8Array(256 * 1024);
    const total = 60 * 1024 * 1024;
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled === 0) controller.enqueue(head);
        if (pulled >= total) return controller.close();
        pulled += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${s.url}/api/account/upload`, {
      method: "POST",
      headers: { ...authHeaders(alice.client), "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.details.fieldErrors.file[0]).toContain("story");
    // the server stopped reading near the 5 MB limit, far from the 60 MB offered
    expect(pulled).toBeLessThan(20 * 1024 * 1024);
  });

  test("bots get their own limits through maxBytes", async () => {
    const big = padTo(await jpegWithGps(s.app), 7 * 1024 * 1024);
    const row = await storeUpload(s.app, {
      ownerId: alice.user.id,
      kind: "chat-image",
      data: big,
      maxBytes: 10 * 1024 * 1024,
    });
    expect(row.mime).toBe("image/jpeg");
    await expect(storeUpload(s.app, { ownerId: alice.user.id, kind: "chat-image", data: big })).rejects.toMatchObject({
      status: 413,
      code: "VALIDATION_ERROR",
    });
  });

  test("a client that goes away mid-upload leaves no scratch file and no upload", async () => {
    const boundary = "----gone";
    const before = await s.app.db
      .selectFrom("uploads")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const head = new TextEncoder().encode(
      `--${boundary}\r\ncontent-disposition: form-data; name="kind"\r\n\r\nchat-file\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`,
    );
    const abort = new AbortController();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 0) controller.enqueue(head);
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
        if (sent >= 1024 * 1024) {
          await Bun.sleep(50);
          abort.abort();
        }
      },
    });
    const res = fetch(`${s.url}/api/account/upload`, {
      method: "POST",
      headers: { ...authHeaders(alice.client), "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: "half",
      signal: abort.signal,
    } as RequestInit);
    await expect(res).rejects.toThrow();
    // the server notices the closed connection on its next read
    await waitFor(() => readdirSync(join(s.dataDir, "files", ".tmp")).length === 0, 10_000, "the temp dir to empty");
    expect(readdirSync(join(s.dataDir, "files", ".tmp"))).toEqual([]);
    const after = await s.app.db
      .selectFrom("uploads")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  test("no scratch files are left behind", async () => {
    expect(readdirSync(join(s.dataDir, "files", ".tmp"))).toEqual([]);
  });
});

describe("GET /files/<name>", () => {
  let url: string;
  let bytes: Uint8Array<ArrayBuffer>;
  beforeAll(async () => {
    bytes = padTo(MP4_HEAD, 10_000);
    for (let i = 24; i < bytes.length; i++) bytes[i] = i % 251;
    const res = await postUpload(alice.client, "post-video", bytes);
    url = local(res.body.data.url);
  });

  test("ranges give 206 with Content-Range; consecutive ranges rebuild the file", async () => {
    const parts: Uint8Array[] = [];
    for (let start = 0; start < bytes.length; start += 4096) {
      const end = Math.min(start + 4095, bytes.length - 1);
      const res = await fetch(url, { headers: { range: `bytes=${start}-${end}` } });
      expect(res.status).toBe(206);
      expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/${bytes.length}`);
      expect(res.headers.get("content-length")).toBe(String(end - start + 1));
      expect(res.headers.get("content-type")).toBe("video/mp4");
      parts.push(new Uint8Array(await res.arrayBuffer()));
    }
    expect(Uint8Array.from(Buffer.concat(parts))).toEqual(bytes);

    const open = await fetch(url, { headers: { range: "bytes=9990-" } });
    expect(open.status).toBe(206);
    expect(new Uint8Array(await open.arrayBuffer())).toEqual(bytes.subarray(9990));
    const suffix = await fetch(url, { headers: { range: "bytes=-5" } });
    expect(suffix.headers.get("content-range")).toBe(`bytes 9995-9999/10000`);
    const clamped = await fetch(url, { headers: { range: "bytes=9998-20000" } });
    expect(clamped.headers.get("content-range")).toBe(`bytes 9998-9999/10000`);
  });

  test("unsatisfiable ranges give 416; other units and multi-ranges the whole file", async () => {
    for (const range of ["bytes=10000-", "bytes=500-100", "bytes=-0", "bytes=abc", "bytes="]) {
      const res = await fetch(url, { headers: { range } });
      expect({ range, status: res.status }).toEqual({ range, status: 416 });
      expect(res.headers.get("content-range")).toBe("bytes */10000");
    }
    for (const range of ["items=0-5", "bytes=0-1,5-6"]) {
      const res = await fetch(url, { headers: { range } });
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(10000);
    }
  });

  test("HEAD gives the headers only; If-None-Match gives 304; a stale If-Range the whole file", async () => {
    const head = await fetch(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("10000");
    expect(head.headers.get("accept-ranges")).toBe("bytes");
    expect(await head.text()).toBe("");
    const etag = head.headers.get("etag")!;
    const cached = await fetch(url, { headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
    const stale = await fetch(url, { headers: { range: "bytes=0-9", "if-range": '"other"' } });
    expect(stale.status).toBe(200);
    const fresh = await fetch(url, { headers: { range: "bytes=0-9", "if-range": etag } });
    expect(fresh.status).toBe(206);
  });

  test("unknown names and path traversal give 404 and never a file outside the store", async () => {
    const name = new URL(url).pathname.slice("/files/".length);
    const attempts = [
      "/files/AAAAAAAAAAAAAAAAAAAAAAAA.png",
      "/files/..%2f..%2fsocial.db",
      "/files/..%2F..%2Fconfig",
      "/files/%2e%2e%2f%2e%2e%2fsecret",
      "/files/..%252f..%252fsecret",
      "/files/..%5c..%5csecret",
      "/files/%2e%2e",
      `/files/${name.slice(0, 2)}%2f${name}`,
      `/files/.tmp`,
      `/files/${name}%00.png`,
      `/files/${name}/`,
    ];
    for (const path of attempts) {
      const res = await rawGet(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.body).not.toContain("SQLite");
    }
  });
});

describe("uploads in the domain (used by posts, messages, profiles, bots)", () => {
  test("findUploadByUrl knows absolute and path-only URLs of this instance only", async () => {
    const res = await postUpload(alice.client, "post", png);
    const url: string = res.body.data.url;
    expect((await findUploadByUrl(s.app, url))?.cuid).toBe(res.body.data.id);
    expect((await findUploadByUrl(s.app, new URL(url).pathname))?.cuid).toBe(res.body.data.id);
    expect(await findUploadByUrl(s.app, url.replace("127.0.0.1", "evil.example"))).toBeUndefined();
    expect(await findUploadByUrl(s.app, res.body.data.thumb)).toBeUndefined();
    expect(await findUploadByUrl(s.app, "/files/../../etc/passwd")).toBeUndefined();
  });

  test("resolveOwnUpload refuses another account's file, wrong kinds and foreign URLs, naming the field", async () => {
    const res = await postUpload(alice.client, "post", png);
    const url: string = res.body.data.url;
    const row = await resolveOwnUpload(s.app, url, alice.user.id, ["post", "post-video"]);
    expect(row.kind).toBe("post");
    await expect(resolveOwnUpload(s.app, url, bob.user.id, ["post"])).rejects.toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR",
      details: { fieldErrors: { url: ["must be the address of a file you uploaded"] } },
    });
    await expect(resolveOwnUpload(s.app, url, alice.user.id, ["avatar"], "avatarUrl")).rejects.toMatchObject({
      details: { fieldErrors: { avatarUrl: [expect.stringContaining("avatar")] } },
    });
    await expect(
      resolveOwnUpload(s.app, "https://elsewhere.example/x.png", alice.user.id, ["post"]),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });

  test("markAttached keeps the first attachment time", async () => {
    const row = await storeUpload(s.app, { ownerId: alice.user.id, kind: "comment-image", data: png });
    expect(row.attached_at).toBeNull();
    await markAttached(s.app.db, row.id, 1000);
    await markAttached(s.app.db, row.id, 2000);
    const again = await findUploadByUrl(s.app, row.url);
    expect(again?.attached_at).toBe(1000);
  });
});

/** Sends only the head of a POST whose Content-Length announces LENGTH bytes, and reads the answer. */
async function rawPost(
  path: string,
  headers: Record<string, string>,
  boundary: string,
  length: number,
  bodyStart: string,
): Promise<{ status: number; body: string }> {
  const lines = [
    `POST ${path} HTTP/1.1`,
    `host: 127.0.0.1`,
    `content-type: multipart/form-data; boundary=${boundary}`,
    `content-length: ${length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ];
  return rawExchange(Buffer.concat([Buffer.from(lines.join("\r\n")), Buffer.from(bodyStart, "latin1")]));
}

/** GET with the path sent exactly as written (fetch would normalise dot segments). */
function rawGet(path: string) {
  return rawExchange(Buffer.from(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`));
}

async function rawExchange(request: Buffer): Promise<{ status: number; body: string }> {
  const port = Number(new URL(s.url).port);
  let received = "";
  const { promise, resolve, reject } = Promise.withResolvers<{ status: number; body: string }>();
  const timer = setTimeout(() => reject(new Error(`no answer; got ${JSON.stringify(received.slice(0, 200))}`)), 5000);
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(sock, chunk) {
        received += chunk.toString("latin1");
        const end = received.indexOf("\r\n\r\n");
        if (end < 0) return;
        const lengthMatch = /content-length:\s*(\d+)/i.exec(received.slice(0, end));
        const want = lengthMatch ? Number(lengthMatch[1]) : 0;
        if (received.length - end - 4 >= want) {
          clearTimeout(timer);
          resolve({ status: Number(received.slice(9, 12)), body: received.slice(end + 4) });
          sock.end();
        }
      },
      error(_sock, err) {
        clearTimeout(timer);
        reject(err);
      },
    },
  });
  socket.write(request);
  return promise;
}
