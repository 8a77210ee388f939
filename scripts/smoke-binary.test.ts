import { beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  binary as binaryPath,
  buildBinary,
  createUser,
  initInstance,
  runBinary,
  serveBinary,
  signIn,
  smokeBinary,
  SMOKE_USER,
  stoppedAfter,
  uploadPngWithThumbnail,
  withBinaryDir,
} from "./smoke-binary";

// The compiled binary, copied alone into empty folders: the one `npm test` built for the run
// (SOCIAL_TEST_BINARY), else built here; the two flows take a few seconds each, so this runs in
// every `npm test`, CI included.
beforeAll(async () => {
  if (!process.env.SOCIAL_TEST_BINARY) await buildBinary();
}, 120_000);

test("the compiled binary copied alone serves the web app, signs in and makes a thumbnail", async () => {
  await expect(smokeBinary({ build: false })).resolves.toBeUndefined();
}, 60_000);

test("a backup taken while serving restores into a fresh data dir with the binary, which serves the same account", async () => {
  await withBinaryDir(false, async (dir) => {
    const { port, base } = await initInstance(dir);
    // the next step init prints runs as printed: the binary beside it, with the data dir given
    const hinted = join(dir, "hinted");
    const said = await runBinary(dir, [
      "--data-dir",
      hinted,
      "init",
      "--yes",
      "--port",
      String(port),
      "--base-url",
      base,
    ]);
    const next = /Next: (.+) serve;/.exec(said)?.[1];
    expect(next).toBe(`./socialctl --data-dir ${hinted}`);
    const asPrinted = Bun.spawnSync(["sh", "-c", `${next} --json status`], {
      cwd: dir,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect({ code: asPrinted.exitCode, err: asPrinted.stderr.toString() }).toEqual({ code: 0, err: "" });
    expect(JSON.parse(asPrinted.stdout.toString()).dataDir).toBe(hinted);
    const first = await serveBinary(dir, port);
    const archive = join(dir, "hot.tar.gz");
    const avatar = await stoppedAfter(first, async () => {
      await createUser(dir, SMOKE_USER);
      const call = await signIn(base, SMOKE_USER.email, SMOKE_USER.password);
      const url = await uploadPngWithThumbnail(call);
      const profile = await call("/api/account/profile", {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ avatarUrl: url, bio: "kept by the backup" }),
      });
      expect(profile.status).toBe(200);
      // the server keeps running (and answering) while the backup is written
      const made = JSON.parse(await runBinary(dir, ["--json", "backup", "create", "--out", archive]));
      expect(made.path).toBe(archive);
      expect(made.manifest.fileCount).toBeGreaterThanOrEqual(3);
      expect((await call("/api/auth/me")).status).toBe(200);
      return url;
    });

    // a fresh data dir beside the first: restore through the binary, then serve it
    const restoredDir = join(dir, "restored");
    const restored = JSON.parse(
      await runBinary(dir, ["--data-dir", restoredDir, "--json", "backup", "restore", archive]),
    );
    expect(restored).toMatchObject({ dataDir: restoredDir, replaced: false, withoutDerived: false });
    expect(existsSync(join(restoredDir, "social.db"))).toBe(true);
    expect(readdirSync(restoredDir).some((n) => n.includes("restore-"))).toBe(false);

    // a second restore into the now occupied dir is refused without --force
    const refused = Bun.spawnSync([join(dir, "socialctl"), "--data-dir", restoredDir, "backup", "restore", archive], {
      cwd: dir,
      stdin: "ignore",
    });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr.toString()).toContain("already holds an instance");

    const second = await serveBinary(dir, port, ["--data-dir", restoredDir]);
    await stoppedAfter(second, async () => {
      const call = await signIn(base, SMOKE_USER.email, SMOKE_USER.password);
      const me = await call("/api/auth/me");
      expect(me.status).toBe(200);
      const account = ((await me.json()) as { data: { account: Record<string, unknown> } }).data.account;
      expect(account).toMatchObject({
        username: SMOKE_USER.username,
        email: SMOKE_USER.email,
        bio: "kept by the backup",
        avatarUrl: avatar,
        emailVerified: true,
      });
      const file = await fetch(avatar);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("image/png");
    });
  });
}, 90_000);

test("the binary embeds the Bot API guide it quotes, not the README", async () => {
  const binary = Buffer.from(await Bun.file(binaryPath).arrayBuffer());
  // an embedded text is kept as Latin-1 bytes, or as UTF-16 when it holds any other character
  const embeds = (text: string) =>
    binary.includes(Buffer.from(text, "latin1")) || binary.includes(Buffer.from(text, "utf16le"));
  const guide = await Bun.file(join(import.meta.dir, "..", "docs", "bot-api.md")).text();
  const readme = await Bun.file(join(import.meta.dir, "..", "README.md")).text();
  const firstLine = (text: string, after: string) => text.slice(text.indexOf(after) + after.length).split("\n")[0]!;
  expect(embeds(firstLine(guide, "## Differences from Telegram\n\n"))).toBe(true);
  expect(embeds(firstLine(readme, "# socialctl\n\n"))).toBe(false);
});
