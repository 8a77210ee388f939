import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { S3Client } from "bun";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setConfigValue, storeConfigValues } from "../config";
import { filesDir } from "../config/layout";
import { silentLogger } from "../lib/log";
import { startServer } from "../main";
import { storeUpload } from "../media/uploads";
import { quickPerson } from "../testing/fixtures";
import { pngOf } from "../testing/media";
import { freshPostgresDatabase, testsOnPostgres } from "../testing/postgres";
import { startTestS3, type TestS3 } from "../testing/s3";
import { startTestServer, type TestServer } from "../testing/server";
import { postUpload } from "../testing/uploads";
import { runCli } from "../testing/cli";
import { openApp } from "../wiring";
import { makeUser } from "../testing/fixtures";
import { createBackup } from "./backup";
import { readManifest } from "./manifest";
import { runDoctor } from "./doctor";

/*
 * An instance whose files are in a bucket (files.s3.*): backups list the bucket's objects the
 * database references (key, size, ETag) instead of holding them, say so, and `backup verify`
 * checks the bucket still holds them. Against a real S3-compatible server (s3rver).
 */

let s3: TestS3;
let server: TestServer;
let bucket: S3Client;
let scratch: string;
let archive: string;
let original: string;
let thumb: string;
let bytes: Uint8Array;

const keyOf = (url: string) => url.split("/").pop()!;

beforeAll(async () => {
  s3 = await startTestS3();
  scratch = mkdtempSync(join(tmpdir(), "socialctl-backup-bucket-"));
  server = await startTestServer(s3.settings, { dataDir: join(scratch, "live") });
  // the bucket settings belong to the instance's config, as `config set` would leave them
  storeConfigValues(server.dataDir, s3.settings);
  bucket = s3.client;
  const { client } = await quickPerson(server);
  bytes = await pngOf(server.app, 320, 240);
  const res = await postUpload(client, "post", bytes, { filename: "photo.png" });
  expect(res.status).toBe(200);
  original = keyOf(res.body.data.url);
  thumb = keyOf(res.body.data.thumb);
  // a leftover of the instance's local days: not served with a bucket, so not archived
  mkdirSync(join(filesDir(server.dataDir), "zz"), { recursive: true });
  writeFileSync(join(filesDir(server.dataDir), "zz", "zzzzzzzzzzzzzzzzzzzzzzzz.png"), "stale");
});

afterAll(async () => {
  await server?.stop();
  await s3?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("backup create with a bucket", () => {
  test("lists the objects the database references with their size and ETag, and says what the bucket must keep", async () => {
    const run = await runCli(["--data-dir", server.dataDir, "--json", "backup", "create"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    archive = run.json.path;
    const manifest = await readManifest(archive);
    expect(manifest.files.map((f) => f.path).filter((p) => p.startsWith("files/"))).toEqual([]);
    expect(manifest.database!.covers).toContain("the files are in the bucket: listed, not copied");
    const listed = manifest.bucket!;
    expect(listed).toMatchObject({ endpoint: s3.endpoint, bucket: s3.bucket, region: "us-east-1", missing: [] });
    expect(listed.covers).toContain("NOT their bytes");
    expect(listed.covers).toContain("versioning");
    const stats = await Promise.all([original, thumb].map((k) => bucket.file(k).stat()));
    expect(listed.objects).toEqual([
      { key: original, size: stats[0]!.size, etag: stats[0]!.etag },
      { key: thumb, size: stats[1]!.size, etag: stats[1]!.etag, derived: true },
    ]);
    expect(listed.objects[0]!.size).toBe(bytes.byteLength);
    expect(listed.objectCount).toBe(2);
    expect(listed.totalBytes).toBe(stats[0]!.size + stats[1]!.size);
    // the summary printed with --json carries counts, not the object list
    expect(run.json.manifest.bucket).toMatchObject({ bucket: s3.bucket, objectCount: 2, missing: 0 });
    expect(run.json.manifest.bucket.objects).toBeUndefined();

    const list = await runCli(["--data-dir", server.dataDir, "--json", "backup", "list"]);
    expect(list.json.backups[0]).toMatchObject({ path: archive, bucketObjects: 2 });
  });

  test("the human output says what the archive covers and how to check the bucket later", async () => {
    const run = await runCli(["--data-dir", server.dataDir, "backup", "create"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`lists the names, sizes and ETags of the 2 objects of bucket ${s3.bucket}`);
    expect(run.stdout).toContain("backup verify ");
  });

  test("an upload whose object is gone is named as missing", async () => {
    const lost = await storeUpload(server.app, {
      ownerId: (await makeUser(server.app)).id,
      kind: "post",
      data: await pngOf(server.app, 16, 16),
    });
    await bucket.delete(lost.storage_key);
    const result = await createBackup({ dataDir: server.dataDir, out: join(scratch, "lost.tar.gz") });
    expect(result.manifest.bucket!.missing).toEqual([lost.storage_key]);
    expect(result.manifest.bucket!.objects.map((o) => o.key)).not.toContain(lost.storage_key);
    const human = await runCli(["--data-dir", server.dataDir, "backup", "create"]);
    expect(human.stdout).toContain("WARNING: 1 files the database references are not in the bucket");
    expect(human.stdout).toContain(`media to-s3 ${s3.bucket}`);
  });
});

test("a bucket that cannot be listed: the database is backed up all the same, with a warning, and verify fails", async () => {
  const dataDir = join(scratch, "unlisted");
  storeConfigValues(dataDir, { ...s3.settings, "files.s3.bucket": "no-such-bucket" });
  const app = await openApp({ dataDir, log: silentLogger });
  await makeUser(app, { username: "still_backed_up" });
  await app.close();
  const out = join(scratch, "unlisted.tar.gz");
  const run = await runCli(["--data-dir", dataDir, "backup", "create", "--out", out]);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("WARNING: the archive holds no record of the 0 objects of bucket no-such-bucket");
  expect(run.stdout).toContain("The database is backed up all the same");
  const manifest = await readManifest(out);
  expect(manifest.files.map((f) => f.path)).toContain("social.db");
  const why = manifest.bucket!.listingError!;
  expect(why).toMatch(/bucket/i);
  expect(manifest.bucket!.objects).toEqual([]);
  const verify = await runCli(["--data-dir", dataDir, "--json", "backup", "verify", out]);
  expect(verify.code).toBe(1);
  expect(verify.json.ok).toBe(false);
  expect(verify.json.bucket.listingError).toBe(why);
});

describe("restore and verify with a bucket", () => {
  test("a restored instance serves the listed files from the bucket", async () => {
    const restoredDir = join(scratch, "restored");
    // on PostgreSQL a restore goes into an empty database (it refuses the live one)
    const into = async () =>
      testsOnPostgres() ? ["--database-url", await freshPostgresDatabase({ empty: true })] : [];
    const run = await runCli(["--data-dir", restoredDir, "--json", "backup", "restore", archive, ...(await into())]);
    expect(run.stderr).toBe("");
    expect(run.json.bucket).toEqual({ bucket: s3.bucket, objectCount: 2 });
    const human = await runCli([
      "--data-dir",
      join(scratch, "restored-2"),
      "backup",
      "restore",
      archive,
      ...(await into()),
    ]);
    expect(human.stdout).toContain(`the 2 objects of bucket ${s3.bucket}`);
    const restored = await startServer({
      dataDir: restoredDir,
      log: silentLogger,
      overrides: { port: 0, host: "127.0.0.1" },
    });
    try {
      const got = await fetch(`${restored.url}/files/${original}`);
      expect(got.status).toBe(200);
      expect(new Uint8Array(await got.arrayBuffer())).toEqual(new Uint8Array(bytes));
    } finally {
      await restored.stop();
    }
  });

  test("verify checks the archive and that the bucket still holds every listed object", async () => {
    const ok = await runCli(["--data-dir", server.dataDir, "--json", "backup", "verify", archive]);
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.json).toMatchObject({
      ok: true,
      archiveFiles: expect.any(Number),
      bucket: { bucket: s3.bucket, listed: 2, present: 2, missing: [], changed: [], derivedMissing: [] },
    });

    // a thumbnail gone: rebuildable, so reported but not a failure
    await bucket.delete(thumb);
    const derived = await runCli(["--data-dir", server.dataDir, "backup", "verify", archive]);
    expect(derived.code).toBe(0);
    expect(derived.stdout).toContain("1 of 2 listed objects present");
    expect(derived.stdout).toContain("media rebuild-derived");

    // an original rewritten, then gone: the backup no longer restores it
    await bucket.write(original, "not the photo");
    const changed = await runCli(["--data-dir", server.dataDir, "--json", "backup", "verify", archive]);
    expect(changed.code).toBe(1);
    expect(changed.json.bucket.changed).toEqual([original]);
    await bucket.delete(original);
    const missing = await runCli(["--data-dir", server.dataDir, "backup", "verify", archive]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`MISSING 1: ${original}`);
  });

  test("verify refuses a damaged archive and a missing one with one line", async () => {
    const damaged = join(scratch, "damaged.tar.gz");
    const data = new Uint8Array(await Bun.file(archive).arrayBuffer());
    data[Math.floor(data.length / 2)]! ^= 0xff;
    await Bun.write(damaged, data);
    for (const file of [damaged, join(scratch, "none.tar.gz")]) {
      const run = await runCli(["--data-dir", server.dataDir, "backup", "verify", file]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});

test("an instance on PostgreSQL with a bucket: the pg_dump, the bucket's objects listed; doctor asks the bucket", async () => {
  const dataDir = join(scratch, "pg");
  setConfigValue(dataDir, "database.url", await freshPostgresDatabase({ empty: true }));
  storeConfigValues(dataDir, s3.settings);
  const app = await openApp({ dataDir, log: silentLogger });
  let key: string;
  try {
    const row = await storeUpload(app, {
      ownerId: (await makeUser(app)).id,
      kind: "post",
      data: await pngOf(app, 200, 150),
    });
    key = row.storage_key;
  } finally {
    await app.close();
  }
  const result = await createBackup({ dataDir, out: join(scratch, "pg.tar.gz") });
  expect(result.manifest.database!.covers).toContain("pg_dump custom format");
  expect(result.manifest.database!.covers).toContain("listed, not copied");
  expect(result.manifest.bucket!.objects.map((o) => [o.key, Boolean(o.derived)])).toEqual([
    [key, false],
    [key.replace(/\.png$/, "-t.webp"), true],
  ]);
  const checks = await runDoctor({ dataDir, timeoutMs: 2_000 });
  expect(checks.find((c) => c.name === "file store")).toMatchObject({
    status: "ok",
    detail: `s3 bucket ${s3.bucket} answers`,
  });
}, 60_000);
