import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { S3Client } from "bun";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../config";
import { filesDir } from "../config/layout";
import { quickPerson } from "../testing/fixtures";
import { pngOf, PDF_HEAD, padTo } from "../testing/media";
import { startTestS3, type TestS3 } from "../testing/s3";
import { startTestServer, type TestServer } from "../testing/server";
import { postUpload } from "../testing/uploads";
import { ffmpegTools } from "./video";
import { fileStore } from "./store";
import { S3FileStore } from "./s3-store";
import pLimit from "p-limit";

/*
 * files.s3.*: uploads, thumbnails and posters in a real S3-compatible server (s3rver on
 * loopback), still served at the instance's own /files/ URLs with the same headers as local
 * files, or by presigned redirects.
 */

let s3: TestS3;
let server: TestServer;
let bucket: S3Client;

const keyOf = (url: string) => url.split("/").pop()!;
const local = (url: string) => `${server.url}/files/${keyOf(url)}`;

beforeAll(async () => {
  s3 = await startTestS3();
  server = await startTestServer(s3.settings);
  bucket = s3.client;
});

afterAll(async () => {
  await server?.stop();
  await s3?.stop();
});

/** Files the data dir holds outside its scratch folder: none, with a bucket. */
const localFiles = () =>
  existsSync(filesDir(server.dataDir))
    ? readdirSync(filesDir(server.dataDir), { recursive: true, withFileTypes: true }).filter(
        (d) => d.isFile() && !join(d.parentPath, d.name).includes("/.tmp"),
      )
    : [];

describe("uploads in an S3 bucket", () => {
  test("an image and its thumbnail go to the bucket and are served at the instance's URLs as local files are", async () => {
    expect(fileStore(server.app).engine).toBe("s3");
    const { client } = await quickPerson(server);
    const res = await postUpload(client, "post", await pngOf(server.app, 640, 480), { filename: "photo.png" });
    expect(res.status).toBe(200);
    const { url, thumb } = res.body.data;
    expect(url.startsWith(`${server.url}/files/`)).toBe(true);
    for (const u of [url, thumb]) expect(await bucket.file(keyOf(u)).exists()).toBe(true);
    expect(localFiles()).toEqual([]);

    const whole = await fetch(local(url));
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe(res.body.data.mime);
    expect(whole.headers.get("x-content-type-options")).toBe("nosniff");
    expect(whole.headers.get("content-disposition")).toBe("inline");
    const body = new Uint8Array(await whole.arrayBuffer());
    expect(body.byteLength).toBe(res.body.data.sizeBytes);
    const etag = whole.headers.get("etag")!;
    expect(etag).toBeTruthy();

    const part = await fetch(local(url), { headers: { range: "bytes=10-19" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 10-19/${body.byteLength}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(body.slice(10, 20));
    expect((await fetch(local(url), { headers: { range: `bytes=${body.byteLength}-` } })).status).toBe(416);
    expect((await fetch(local(url), { headers: { "if-none-match": etag } })).status).toBe(304);
    const head = await fetch(local(url), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(body.byteLength));

    const thumbRes = await fetch(local(thumb));
    expect(thumbRes.headers.get("content-type")).toBe("image/webp");
    expect((await fetch(`${server.url}/files/${"x".repeat(24)}.png`)).status).toBe(404);
  });

  test("a document downloads as an attachment under its name", async () => {
    const { client } = await quickPerson(server);
    const res = await postUpload(client, "chat-file", padTo(PDF_HEAD, 3000), { filename: "report.pdf" });
    expect(res.status).toBe(200);
    const got = await fetch(local(res.body.data.url));
    expect(got.headers.get("content-type")).toBe("application/pdf");
    expect(got.headers.get("content-disposition")).toContain('filename="report.pdf"');
    expect((await got.arrayBuffer()).byteLength).toBe(3000);
  });

  test.skipIf(ffmpegTools() === null)("a video streamed in is moved to the bucket with its poster", async () => {
    const { client } = await quickPerson(server);
    const out = join(server.dataDir, "clip.mp4");
    const proc = Bun.spawn(
      [
        ffmpegTools()!.ffmpeg,
        "-v",
        "error",
        "-y",
        "-f",
        "lavfi",
        "-i",
        "testsrc=duration=1:size=160x120:rate=10",
      ].concat(["-c:v", "mpeg4", "-f", "mp4", out]),
      { stdout: "ignore", stderr: "pipe" },
    );
    expect(await proc.exited).toBe(0);
    const res = await postUpload(client, "post-video", await Bun.file(out).bytes(), { filename: "clip.mp4" });
    expect(res.status).toBe(200);
    expect(res.body.data.posterUrl).toMatch(/-p\.jpg$/);
    for (const u of [res.body.data.url, res.body.data.posterUrl])
      expect(await bucket.file(keyOf(u)).exists()).toBe(true);
    const poster = await fetch(local(res.body.data.posterUrl));
    expect(poster.headers.get("content-type")).toBe("image/jpeg");
    // the streamed request body left no scratch file behind
    expect(readdirSync(join(filesDir(server.dataDir), ".tmp"))).toEqual([]);
  });

  test("/readyz checks the bucket", async () => {
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { engines: Record<string, string> }).engines.files).toBe("ok");
  });
});

describe("presigned redirects (files.s3.serve = redirect)", () => {
  test("the instance's file URL answers 302 to the bucket, which serves the same type and bytes", async () => {
    const redirecting = await startTestServer({ ...s3.settings, "files.s3.serve": "redirect" });
    try {
      const { client } = await quickPerson(redirecting);
      const png = await pngOf(redirecting.app, 64, 64);
      const res = await postUpload(client, "post", png, { filename: "p.png" });
      const url = `${redirecting.url}/files/${keyOf(res.body.data.url)}`;
      const hop = await fetch(url, { redirect: "manual" });
      expect(hop.status).toBe(302);
      expect(hop.headers.get("location")!.startsWith(`${s3.endpoint}/${s3.bucket}/`)).toBe(true);
      expect(hop.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
      const followed = await fetch(url);
      expect(followed.status).toBe(200);
      expect(followed.headers.get("content-type")).toBe(res.body.data.mime);
      expect((await followed.arrayBuffer()).byteLength).toBe(res.body.data.sizeBytes);
      expect((await fetch(`${redirecting.url}/files/${"y".repeat(24)}.png`, { redirect: "manual" })).status).toBe(404);
    } finally {
      await redirecting.stop();
    }
  });
});

describe("a bucket of more than 1,000 objects", () => {
  test("is listed whole, a page of up to 1,000 at a time, each object once", async () => {
    const many = await startTestS3("many");
    try {
      const keys = Array.from({ length: 1003 }, (_, i) => `k${String(i).padStart(4, "0")}.txt`);
      const limit = pLimit(16);
      await Promise.all(keys.map((key) => limit(() => many.client.write(key, key))));
      const store = new S3FileStore({ ...many.settings, "files.s3.serve": "proxy" } as never);
      const pages = [];
      for await (const page of store.listObjects()) pages.push(page);
      expect(pages.map((page) => page.length)).toEqual([1000, 3]);
      const listed = pages.flat();
      expect(listed.map((o) => o.key).sort()).toEqual(keys);
      expect(listed.every((o) => o.size === 9 && o.etag.length > 0)).toBe(true);
    } finally {
      await many.stop();
    }
  });
});

describe("an unusable bucket", () => {
  test("/readyz names it, and the node stays ready (only file routes need it)", async () => {
    const missing = await startTestServer({ ...s3.settings, "files.s3.bucket": "no-such-bucket" });
    try {
      const res = await fetch(`${missing.url}/readyz`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        status: string;
        checks: Record<string, string>;
        engines: Record<string, string>;
      };
      expect(body.status).toBe("degraded");
      expect(body.checks).toEqual({ database: "ok" });
      expect(body.engines.files).toStartWith("s3: ");
    } finally {
      await missing.stop();
    }
  });
});

test("the S3 secrets come from the environment when set there", () => {
  const saved = [process.env.SOCIAL_S3_ACCESS_KEY_ID, process.env.SOCIAL_S3_SECRET_ACCESS_KEY];
  process.env.SOCIAL_S3_ACCESS_KEY_ID = "from-env-id";
  process.env.SOCIAL_S3_SECRET_ACCESS_KEY = "from-env-secret";
  try {
    const config = loadConfig(server.dataDir);
    expect(config["files.s3.accessKeyId"]).toBe("from-env-id");
    expect(config["files.s3.secretAccessKey"]).toBe("from-env-secret");
  } finally {
    if (saved[0] === undefined) delete process.env.SOCIAL_S3_ACCESS_KEY_ID;
    else process.env.SOCIAL_S3_ACCESS_KEY_ID = saved[0];
    if (saved[1] === undefined) delete process.env.SOCIAL_S3_SECRET_ACCESS_KEY;
    else process.env.SOCIAL_S3_SECRET_ACCESS_KEY = saved[1];
  }
});
