import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readConfigFile, storeConfigValues } from "../config";
import { filesDir } from "../config/layout";
import { quickPerson } from "../testing/fixtures";
import { PDF_HEAD, padTo, pngOf } from "../testing/media";
import { startTestS3, type TestS3 } from "../testing/s3";
import { startTestServer } from "../testing/server";
import { postUpload } from "../testing/uploads";
import { cliHarness } from "../testing/cli";
import { fileStore } from "../media/store";
import { claimServerLock } from "./server-lock";
import { instanceFiles } from "./layout";

/*
 * `socialctl media to-s3 BUCKET`: an instance that kept its files under the data dir moves
 * them into a real S3-compatible server (s3rver), each verified, and only then serves from it.
 */

let s3: TestS3;
const cli = cliHarness();
const dataDir = cli.dataDir;
/** what the Client API answered for each upload */
const uploads: Array<{ url: string; thumb: string | null; mime: string }> = [];

const keyOf = (url: string) => url.split("/").pop()!;
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
/** the sha256 of KEY as the data dir holds it (images are stored re-encoded, not as sent) */
const localSha256 = (key: string, dir = filesDir(dataDir)) => sha256(readFileSync(join(dir, key.slice(0, 2), key)));

beforeAll(async () => {
  s3 = await startTestS3();
  const server = await startTestServer({}, { dataDir });
  try {
    const { client } = await quickPerson(server);
    for (const [name, bytes] of [
      ["one.png", await pngOf(server.app, 640, 480)],
      ["two.png", await pngOf(server.app, 300, 200)],
      ["report.pdf", padTo(PDF_HEAD, 5000)],
    ] as const) {
      const res = await postUpload(client, name.endsWith(".pdf") ? "chat-file" : "post", bytes, { filename: name });
      expect(res.status).toBe(200);
      uploads.push({ url: res.body.data.url, thumb: res.body.data.thumb ?? null, mime: res.body.data.mime });
    }
    expect(uploads.filter((u) => u.thumb).length).toBe(2);

    // the bucket's settings except the bucket itself: harmless while files.s3.bucket is empty
    const { "files.s3.bucket": _bucket, ...settings } = s3.settings;
    storeConfigValues(dataDir, settings);
    // while the instance runs, nothing moves
    claimServerLock(server);
    await cli.expectOneLineFailure(
      cli.run("media", "to-s3", s3.bucket),
      /a server \(pid \d+.*\) is running on .*moving its files/,
    );
  } finally {
    await server.stop();
  }
});

afterAll(async () => {
  await s3?.stop();
  cli.cleanup();
});

describe("media to-s3", () => {
  test("refuses a bad bucket name and an unusable bucket with one line, and changes nothing", async () => {
    await cli.expectOneLineFailure(cli.run("media", "to-s3", "Not_A_Bucket"), /"Not_A_Bucket" is not a bucket name/);
    await cli.expectOneLineFailure(cli.run("media", "to-s3", "no-such-bucket"), /bucket no-such-bucket cannot be used/);
    expect(readConfigFile(dataDir)["files.s3.bucket"]).toBeUndefined();
  });

  test("copies every upload, thumbnail, poster and display rendition, each read back and matched, then switches the instance", async () => {
    const run = await cli.runJson("media", "to-s3", s3.bucket);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      // 3 uploads, 2 thumbnails, and one.png's display rendition (two.png's thumbnail holds it whole)
      files: 6,
      uploaded: 6,
      alreadyThere: 0,
      missing: [],
      unreferenced: 0,
      switched: true,
    });
    expect(readConfigFile(dataDir)["files.s3.bucket"]).toBe(s3.bucket);
    // the bucket holds the same bytes as the data dir, key for key
    const local = instanceFiles(dataDir);
    expect(local).toHaveLength(6);
    for (const f of local) {
      const key = f.rel.split("/").at(-1)!;
      expect(sha256(new Uint8Array(await s3.client.file(key).arrayBuffer()))).toBe(localSha256(key));
    }
    // with the type the instance serves it with, as a presigned redirect would need
    expect((await s3.client.file(keyOf(uploads[0]!.url)).stat()).type).toBe("image/png");
  });

  test("run again, it copies nothing and says the instance already uses the bucket", async () => {
    const again = await cli.runJson("media", "to-s3", s3.bucket);
    expect(again.json).toMatchObject({ files: 6, uploaded: 0, alreadyThere: 6, switched: false });
    const human = await cli.run("media", "to-s3", s3.bucket);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`0 copied (0 B) and 6 already in bucket ${s3.bucket}`);
    expect(human.stdout).toContain("nothing switched");
    await cli.expectOneLineFailure(
      cli.run("media", "to-s3", "another-bucket"),
      new RegExp(`already keeps its files in bucket ${s3.bucket}`),
    );
  });

  test("a node on the bucket serves every file, with the local files gone", async () => {
    const aside = join(dataDir, "files-before-s3");
    renameSync(filesDir(dataDir), aside);
    const node = await startTestServer({}, { dataDir });
    try {
      expect(fileStore(node.app).engine).toBe("s3");
      for (const u of uploads) {
        const got = await fetch(`${node.url}/files/${keyOf(u.url)}`);
        expect(got.status).toBe(200);
        expect(got.headers.get("content-type")).toBe(u.mime);
        expect(sha256(new Uint8Array(await got.arrayBuffer()))).toBe(localSha256(keyOf(u.url), aside));
        if (u.thumb) {
          const thumb = await fetch(`${node.url}/files/${keyOf(u.thumb)}`);
          expect(thumb.status).toBe(200);
          expect(thumb.headers.get("content-type")).toBe("image/webp");
        }
      }
      // and new uploads go to the bucket
      const { client } = await quickPerson(node);
      const res = await postUpload(client, "post", await pngOf(node.app, 64, 64), { filename: "new.png" });
      expect(await s3.client.file(keyOf(res.body.data.url)).exists()).toBe(true);
    } finally {
      await node.stop();
      // the node made only its scratch folder there
      rmSync(filesDir(dataDir), { recursive: true, force: true });
      renameSync(aside, filesDir(dataDir));
    }
  });
});

test("an object changed in the bucket is copied again; a file lost everywhere is named", async () => {
  const key = keyOf(uploads[1]!.url);
  await s3.client.write(key, "not the photo");
  const thumb = keyOf(uploads[1]!.thumb!);
  await s3.client.delete(thumb);
  rmSync(join(filesDir(dataDir), thumb.slice(0, 2), thumb));
  const run = await cli.runJson("media", "to-s3", s3.bucket);
  // the node's upload (and its thumbnail) since the switch are in the bucket only
  expect(run.json).toMatchObject({ files: 8, uploaded: 1, alreadyThere: 6, missing: [thumb] });
  expect(sha256(new Uint8Array(await s3.client.file(key).arrayBuffer()))).toBe(localSha256(key));
});
