import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { startServer } from "../main";
import { startTestServer, type TestServer } from "../testing/server";
import { signedInClient } from "../testing/fixtures";
import { pngOf } from "../testing/media";
import { TestClient } from "../testing/client";
import { silentLogger } from "../lib/log";
import { storeUpload } from "../media/uploads";
import { createBot } from "../domain/bots/service";
import { grantStars } from "../domain/stars/service";
import { createBackup, listBackups } from "./backup";
import { readManifest } from "./manifest";
import { restoreBackup } from "./restore";
import { claimServerLock } from "./server-lock";
import { integrityCheck, openReadOnly } from "./sqlite";
import { readEntries, writeEntries } from "../testing/tar";
import { runCli } from "../testing/cli";
import { sha256File } from "./layout";

let server: TestServer;
let scratch: string;
let account: Awaited<ReturnType<typeof signedInClient>>;
let upload: Awaited<ReturnType<typeof storeUpload>>;
let archive: string;
let committedBefore = 0;
let writesDuringBackup = 0;
let restoredDir: string;
let bot: Awaited<ReturnType<typeof createBot>>;
let postId: string;

beforeAll(async () => {
  server = await startTestServer();
  scratch = mkdtempSync(join(tmpdir(), "socialctl-backup-test-"));
  account = await signedInClient(server);
  upload = await storeUpload(server.app, {
    ownerId: account.user.id,
    kind: "post",
    data: await pngOf(server.app, 400, 300),
    filename: "blue.png",
  });
  bot = await createBot(server.app, {
    ownerId: account.user.id,
    username: `ops${Date.now() % 100000}_bot`,
    name: "Ops bot",
  });
  await grantStars(server.app, account.user.id, 250, "backup test");
  const posted = await account.client.post("/api/social/posts", { content: "before the backup #ops" });
  if (posted.status !== 200) throw new Error(`post failed: ${JSON.stringify(posted.body)}`);
  postId = posted.body.data.post.id;
  server.app.storage.sqlite!.exec("CREATE TABLE ops_writes (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const insert = server.app.storage.sqlite!.prepare("INSERT INTO ops_writes (v) VALUES (?)");
  for (let i = 0; i < 500; i++) insert.run(`before-${i}`);
});

afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("backup create against a live instance", () => {
  test("writes continue during the backup and the archive holds every row committed before it", async () => {
    const insert = server.app.storage.sqlite!.prepare("INSERT INTO ops_writes (v) VALUES (?)");
    committedBefore = (server.app.storage.sqlite!.query("SELECT max(id) AS m FROM ops_writes").get() as { m: number })
      .m;
    let running = true;
    const writer = (async () => {
      for (let i = 0; running && i < 100_000; i++) {
        insert.run(`during-${i}`); // autocommit: each row is its own transaction
        writesDuringBackup++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const run = await runCli(["--data-dir", server.dataDir, "--json", "backup", "create"]);
    running = false;
    await writer;
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(writesDuringBackup).toBeGreaterThan(0);
    archive = run.json.path;
    expect(archive).toStartWith(join(server.dataDir, "backups", "backup-"));
    expect(archive).toEndWith(".tar.gz");
    expect(existsSync(archive)).toBe(true);
    expect(run.json.sizeBytes).toBe(readFileSync(archive).byteLength);
    expect(run.json.manifest.schemaVersion).toBe(run.json.manifest.migrations.at(-1));
    expect(run.json.manifest.migrations).toContain("20261122000100_users_sessions");
    // no staging leftovers beside the archive
    expect(readdirSync(join(server.dataDir, "backups")).filter((n) => n.startsWith("."))).toEqual([]);

    const manifest = await readManifest(archive);
    const paths = manifest.files.map((f) => f.path);
    expect(paths).toContain("social.db");
    expect(paths).toContain("secret");
    const stored = paths.filter((p) => p.startsWith("files/"));
    expect(stored.some((p) => p.endsWith(upload.storage_key))).toBe(true);
    expect(stored.some((p) => p.endsWith("-t.webp"))).toBe(true);
    expect(manifest.fileCount).toBe(manifest.files.length);
    for (const f of manifest.files) expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test("the restored copy passes the integrity check and has every row committed before the backup", async () => {
    restoredDir = join(scratch, "restored");
    const run = await runCli(["--data-dir", restoredDir, "--json", "backup", "restore", archive]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ dataDir: restoredDir, replaced: false, fileCount: expect.any(Number) });
    const db = openReadOnly(join(restoredDir, "social.db"));
    try {
      expect(integrityCheck(db)).toBe("ok");
      const before = db.query("SELECT count(*) AS n FROM ops_writes WHERE id <= ?").get(committedBefore) as {
        n: number;
      };
      expect(before.n).toBe(committedBefore);
      const rows = db.query("SELECT v FROM ops_writes WHERE id <= 3 ORDER BY id").all() as Array<{ v: string }>;
      expect(rows.map((r) => r.v)).toEqual(["before-0", "before-1", "before-2"]);
    } finally {
      db.close();
    }
    expect(readFileSync(join(restoredDir, "secret"), "utf8")).toBe(
      readFileSync(join(server.dataDir, "secret"), "utf8"),
    );
    // nothing but the data dir itself appears beside it
    expect(readdirSync(scratch)).toEqual(["restored"]);
  });

  test("the restored instance serves the same account, session and files over HTTP", async () => {
    const restored = await startServer({
      dataDir: restoredDir,
      log: silentLogger,
      overrides: {
        port: 0,
        host: "127.0.0.1",
        baseUrl: server.app.config.baseUrl,
        "limits.clientRps": 1_000_000,
        "limits.loginPer10Min": 1_000_000,
      },
    });
    try {
      const fresh = new TestClient(restored.url);
      const login = await fresh.login(account.user.email!, account.user.password);
      expect(login.status).toBe(200);
      expect(login.body.data.account.username).toBe(account.user.username);
      // the session cookies issued by the original instance keep working: same sessions, same secret
      const sameSession = new TestClient(restored.url);
      for (const [k, v] of account.client.cookies) sameSession.cookies.set(k, v);
      const me = await sameSession.get("/api/auth/me");
      expect(me.status).toBe(200);
      expect(me.body.data.account.email).toBe(account.user.email);
      // the bot's token, the post and the star balance came along
      const getMe = await fetch(`${restored.url}/bot${bot.token}/getMe`);
      expect(getMe.status).toBe(200);
      expect(((await getMe.json()) as { result: { username: string } }).result.username).toBe(bot.user.username);
      const post = await sameSession.get(`/api/social/posts/${postId}`);
      expect(post.status).toBe(200);
      expect(post.body.data.post.content).toBe("before the backup #ops");
      const balance = await sameSession.get("/api/stars/balance");
      expect(balance.body.data.balance).toBe(250);
      const file = await fetch(`${restored.url}/files/${upload.storage_key}`);
      expect(file.status).toBe(200);
      expect(
        Buffer.from(await file.arrayBuffer()).equals(
          readFileSync(join(server.dataDir, "files", upload.storage_key.slice(0, 2), upload.storage_key)),
        ),
      ).toBe(true);
    } finally {
      await restored.stop();
    }
  });

  test("--without-derived leaves out thumbnails and display renditions and says so in the manifest", async () => {
    const out = join(scratch, "lean", "backup-lean.tar.gz");
    const run = await runCli([
      "--data-dir",
      server.dataDir,
      "--json",
      "backup",
      "create",
      "--out",
      out,
      "--without-derived",
    ]);
    expect(run.code).toBe(0);
    expect(run.json.path).toBe(out);
    expect(run.json.manifest.withoutDerived).toBe(true);
    // the thumbnail and the one display rendition of a 400x300 image
    expect(run.json.manifest.derivedOmitted).toBe(2);
    const manifest = await readManifest(out);
    const stored = manifest.files.map((f) => f.path).filter((p) => p.startsWith("files/"));
    expect(stored.some((p) => p.endsWith(upload.storage_key))).toBe(true);
    expect(stored.some((p) => p.endsWith("-t.webp"))).toBe(false);
    expect(stored.some((p) => /-d\d+\.webp$/.test(p))).toBe(false);

    // restored, the instance makes the thumbnails again from the originals
    const leanDir = join(scratch, "lean-restored");
    await restoreBackup({ dataDir: leanDir, file: out });
    const thumbKey = upload.thumb_url!.split("/").at(-1)!;
    const thumbPath = join(leanDir, "files", thumbKey.slice(0, 2), thumbKey);
    expect(existsSync(thumbPath)).toBe(false);
    const rebuilt = await runCli(["--data-dir", leanDir, "--json", "media", "rebuild-derived"]);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.json).toEqual({ rebuilt: 2, present: 0, failed: [] });
    const meta = await sharp(readFileSync(thumbPath)).metadata();
    expect(meta.format).toBe("webp");
    expect([meta.width, meta.height]).toEqual([320, 240]);
    const again = await runCli(["--data-dir", leanDir, "media", "rebuild-derived"]);
    expect(again.stdout.trim()).toBe("rebuilt 0, already present 2, failed 0");
    rmSync(leanDir, { recursive: true, force: true });
  });

  test("--keep prunes older archives; list shows time, size, schema and file count", async () => {
    const dir = join(scratch, "kept");
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await createBackup({ dataDir: server.dataDir, out: join(dir, `backup-2026010${i}.tar.gz`), keep: 2 });
      made.push(r.path);
    }
    expect(readdirSync(dir).sort()).toEqual(["backup-20260101.tar.gz", "backup-20260102.tar.gz"]);

    const list = await runCli(["--data-dir", server.dataDir, "--json", "backup", "list"]);
    expect(list.code).toBe(0);
    const entry = list.json.backups.find((b: { path: string }) => b.path === archive);
    expect(entry.kind).toBe("archive");
    expect(entry.schemaVersion).toMatch(/^\d{14}_/);
    expect(entry.fileCount).toBeGreaterThanOrEqual(3);
    expect(entry.sizeBytes).toBe(readFileSync(archive).byteLength);
    expect(Date.parse(entry.createdAt)).toBeGreaterThan(0);

    const human = await runCli(["--data-dir", server.dataDir, "backup", "list"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(archive);
  });

  test("bad --keep and an uninitialised data dir exit non-zero with one line", async () => {
    const keep = await runCli(["--data-dir", server.dataDir, "backup", "create", "--keep", "0"]);
    expect(keep.code).toBe(1);
    expect(keep.stderr.trim()).toBe("socialctl: --keep must be a positive integer");
    const empty = await runCli(["--data-dir", join(scratch, "nothing-here"), "--json", "backup", "create"]);
    expect(empty.code).toBe(1);
    expect(empty.json.error.message).toContain("nothing to back up");
    expect(existsSync(join(scratch, "nothing-here"))).toBe(false);
  });
});

describe("backup restore refuses", () => {
  const target = () => join(scratch, `target-${Math.random().toString(36).slice(2, 8)}`);

  test("a flipped byte in the compressed archive", async () => {
    const bad = join(scratch, "flipped.tar.gz");
    const bytes = readFileSync(archive);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(bad, bytes);
    const dir = target();
    const run = await runCli(["--data-dir", dir, "backup", "restore", bad]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/socialctl: .*(corrupt|checksum|truncated)/);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(scratch).filter((n) => n.includes(".restore-"))).toEqual([]);
  });

  test("a changed file whose checksum no longer matches the manifest", async () => {
    const entries = await readEntries(archive);
    const db = entries.find((e) => e.path === "social.db")!;
    db.data[db.data.length - 10]! ^= 0x01;
    const bad = join(scratch, "tampered.tar.gz");
    await writeEntries(bad, entries);
    const dir = target();
    const run = await runCli(["--data-dir", dir, "--json", "backup", "restore", bad]);
    expect(run.code).toBe(1);
    expect(run.json.error.message).toBe("checksum mismatch for social.db: the archive is corrupt");
    expect(existsSync(dir)).toBe(false);
  });

  test("an archive made by a newer schema", async () => {
    const entries = await readEntries(archive);
    const manifest = JSON.parse(entries[0]!.data.toString());
    manifest.migrations.push("29991231235959_from_the_future");
    manifest.schemaVersion = "29991231235959_from_the_future";
    entries[0]!.data = Buffer.from(JSON.stringify(manifest));
    const bad = join(scratch, "newer.tar.gz");
    await writeEntries(bad, entries);
    const dir = target();
    const run = await runCli(["--data-dir", dir, "backup", "restore", bad]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "is newer than this socialctl knows (unknown migrations: 29991231235959_from_the_future)",
    );
    expect(existsSync(dir)).toBe(false);
  });

  test("unsafe paths, unlisted files and non-backups", async () => {
    const entries = await readEntries(archive);
    const manifest = JSON.parse(entries[0]!.data.toString());
    manifest.files.push({ path: "../escape", size: 1, sha256: "0".repeat(64) });
    manifest.fileCount++;
    await writeEntries(join(scratch, "unsafe.tar.gz"), [
      { path: "manifest.json", data: Buffer.from(JSON.stringify(manifest)) },
      ...entries.slice(1),
    ]);
    const restore = (file: string) => restoreBackup({ dataDir: target(), file: join(scratch, file) });
    await expect(restore("unsafe.tar.gz")).rejects.toThrow("backup manifest names an unsafe path: ../escape");

    await writeEntries(join(scratch, "extra.tar.gz"), [
      ...entries,
      { path: "files/zz/extra.bin", data: Buffer.from("x") },
    ]);
    await expect(restore("extra.tar.gz")).rejects.toThrow(
      "archive holds a file its manifest does not list: files/zz/extra.bin",
    );

    await writeEntries(
      join(scratch, "missing.tar.gz"),
      entries.filter((e) => e.path !== "secret"),
    );
    await expect(restore("missing.tar.gz")).rejects.toThrow("archive is missing secret");

    await writeEntries(join(scratch, "no-manifest.tar.gz"), entries.slice(1));
    await expect(restore("no-manifest.tar.gz")).rejects.toThrow("not a socialctl backup (no manifest first)");

    writeFileSync(join(scratch, "plain.txt"), "not an archive");
    await expect(restore("plain.txt")).rejects.toThrow("archive is corrupt");

    const run = await runCli(["--data-dir", target(), "backup", "restore", join(scratch, "does-not-exist.tar.gz")]);
    expect(run.code).toBe(1);
    expect(run.stderr).toStartWith("socialctl: no backup archive at");
    expect(readdirSync(scratch).filter((n) => n.startsWith("target-") || n.includes(".restore-"))).toEqual([]);
  });

  test("an occupied data dir without --force, and any data dir a server is running on", async () => {
    const before = await sha256File(join(restoredDir, "social.db"));
    let run = await runCli(["--data-dir", restoredDir, "backup", "restore", archive]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("already holds an instance: stop it and pass --force");

    claimServerLock(server);
    run = await runCli(["--data-dir", server.dataDir, "backup", "restore", "--force", archive]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`a server (pid ${process.pid}`);
    expect(existsSync(join(server.dataDir, "social.db"))).toBe(true);

    // a corrupt archive with --force leaves the stopped instance exactly as it was
    await expect(
      restoreBackup({ dataDir: restoredDir, file: join(scratch, "tampered.tar.gz"), force: true }),
    ).rejects.toThrow("checksum mismatch");
    expect(await sha256File(join(restoredDir, "social.db"))).toBe(before);

    // --force replaces a stopped instance and keeps its backups folder
    mkdirSync(join(restoredDir, "backups"), { recursive: true });
    writeFileSync(join(restoredDir, "backups", "keep-me.txt"), "kept");
    copyFileSync(archive, join(scratch, "again.tar.gz"));
    const result = await restoreBackup({ dataDir: restoredDir, file: join(scratch, "again.tar.gz"), force: true });
    expect(result.replaced).toBe(true);
    expect(readFileSync(join(restoredDir, "backups", "keep-me.txt"), "utf8")).toBe("kept");
    expect(readdirSync(scratch).filter((n) => n.startsWith("restored.") || n.startsWith(".restored"))).toEqual([]);
  });

  test("list marks an unreadable archive instead of hiding it", async () => {
    writeFileSync(join(server.dataDir, "backups", "backup-99999999T000000.000Z.tar.gz"), "not gzip at all");
    const list = await listBackups(server.dataDir);
    const broken = list.find((b) => b.name === "backup-99999999T000000.000Z.tar.gz")!;
    expect(broken.error).toBeString();
    expect(broken.schemaVersion).toBeNull();
    rmSync(broken.path);
  });
});
