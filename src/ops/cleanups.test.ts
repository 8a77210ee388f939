import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { botCall, createBotViaApi, openChat, PNG_1x1 } from "../testing/botapi";
import { uploadFor } from "../testing/media";
import { configKeys } from "../config/keys";
import { newCuid } from "../lib/ids";
import { scratchDir } from "../media/store";
import type { TestClient } from "../testing/client";
import { signedInClient } from "../testing/fixtures";
import { startTestServer, type TestServer } from "../testing/server";
import { queryRow, queryRows } from "../testing/sql";
import type { UserRow } from "../domain/users/table";
import { CLEANUP_NAMES } from "./cleanups";
import { cleanupTasks, runCleanup } from "./housekeeping";

const HOUR = 3_600_000;
let server: TestServer;
let owner: { user: UserRow; client: TestClient };

beforeAll(async () => {
  server = await startTestServer();
  owner = await signedInClient(server);
});
afterAll(() => server.stop());

const db = () => server.app.db;
const keyOf = (url: string) => url.split("/").pop()!;
const fileOnDisk = (url: string) => existsSync(join(server.dataDir, "files", keyOf(url).slice(0, 2), keyOf(url)));
const uploadRow = (url: string) =>
  queryRow<{ id: number; attached_at: number | null; thumb_url: string | null }>(
    db(),
    "SELECT id, attached_at, thumb_url FROM uploads WHERE storage_key = ?",
    keyOf(url),
  );

async function cleanup(name: (typeof CLEANUP_NAMES)[number]): Promise<number | undefined> {
  const run = await runCleanup(server.app, name);
  expect(run.ok).toBe(true);
  return run.result;
}

test("the serving process registers every data cleanup on the housekeeping period", () => {
  const tasks = cleanupTasks(server.app);
  for (const name of CLEANUP_NAMES) expect(tasks.find((t) => t.name === name)?.everyMs).toBe(600_000);
});

test("retention keys parse hours and refuse bad values", () => {
  expect(configKeys["stories.mediaRetentionHours"].parse("48")).toBe(48);
  expect(configKeys["bot.pendingUpdateHours"].parse("0")).toBe(0);
  expect(() => configKeys["stories.mediaRetentionHours"].parse("-1")).toThrow("must be an integer from 0 to 87600");
  expect(() => configKeys["bot.updateRetentionHours"].parse("1.5")).toThrow("must be an integer from 0 to 87600");
  expect(() => configKeys["uploads.abandonAfterHours"].parse("0")).toThrow("must be an integer from 1 to 87600");
});

describe("abandoned uploads", () => {
  test("an old upload nothing points at goes (row, file, thumbnail); referenced, attached and fresh ones stay", async () => {
    const app = server.app;
    const uid = owner.user.id;
    const now = app.clock.now();
    const abandoned = await uploadFor(app, uid, "post");
    const attached = await uploadFor(app, uid, "post");
    await queryRows(db(), "UPDATE uploads SET attached_at = ? WHERE storage_key = ?", now, keyOf(attached));

    // references written without marking the upload, in every column that can hold a file URL
    const avatar = await uploadFor(app, uid, "avatar");
    const cover = await uploadFor(app, uid, "cover");
    const postImage = await uploadFor(app, uid, "post");
    const commentImage = await uploadFor(app, uid, "comment-image");
    const groupPhoto = await uploadFor(app, uid, "avatar");
    const storyImage = await uploadFor(app, uid, "story");
    const invoicePhoto = await uploadFor(app, uid, "chat-image");
    // path-only form, as some rows keep it
    await queryRows(
      db(),
      "UPDATE users SET avatar_url = ?, cover_url = ? WHERE id = ?",
      avatar,
      new URL(cover).pathname,
      uid,
    );
    const postId = (await queryRow(
      db(),
      "INSERT INTO posts (cuid, author_id, images, created_at) VALUES (?, ?, ?, ?) RETURNING id",
      newCuid(),
      uid,
      JSON.stringify([{ url: postImage }]),
      now,
    )) as { id: number };
    await queryRows(
      db(),
      "INSERT INTO comments (cuid, post_id, author_id, media, created_at) VALUES (?, ?, ?, ?, ?)",
      newCuid(),
      postId.id,
      uid,
      JSON.stringify([{ type: "image", url: commentImage }]),
      now,
    );
    await queryRows(
      db(),
      "INSERT INTO stories (cuid, author_id, media_url, media_kind, created_at) VALUES (?, ?, ?, 'story', ?)",
      newCuid(),
      uid,
      storyImage,
      now,
    );

    // a real path that never marks its upload: a file sent by a bot
    const token = await createBotViaApi(owner.client, "cleanup_bot");
    const cid = await openChat(owner.client, "cleanup_bot");
    expect((await owner.client.post(`/api/social/messages/${cid}`, { content: "hi" })).status).toBe(200);
    const update = (await botCall(server.url, token, "getUpdates")).body.result[0];
    const chatId = update.message.chat.id;
    await botCall(server.url, token, "getUpdates", { offset: update.update_id + 1 });
    const fd = new FormData();
    fd.set("chat_id", String(chatId));
    fd.set("photo", new File([PNG_1x1], "dot.png", { type: "image/png" }));
    const sent = await fetch(`${server.url}/bot${token}/sendPhoto`, { method: "POST", body: fd }).then(
      (r) => r.json() as Promise<any>,
    );
    expect(sent.ok).toBe(true);
    const botPhoto = sent.result.photo.at(-1).file_id as string;
    expect((await uploadRow(botPhoto))?.attached_at).toBeNull();
    await queryRows(db(), "UPDATE conversations SET photo_url = ? WHERE cuid = ?", groupPhoto, cid);
    await queryRows(
      db(),
      "UPDATE messages SET invoice = ? WHERE id = (SELECT MIN(m.id) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.cuid = ?)",
      JSON.stringify({ title: "t", photo_url: invoicePhoto }),
      cid,
    );

    const referenced = [avatar, cover, postImage, commentImage, groupPhoto, storyImage, invoicePhoto, botPhoto];
    const abandonedThumb = (await uploadRow(abandoned))!.thumb_url!;
    expect(fileOnDisk(abandonedThumb)).toBe(true);
    expect((await fetch(abandoned)).status).toBe(200);

    // within the grace period nothing goes
    server.clock.advance(23 * HOUR);
    expect(await cleanup("uploads:abandoned")).toBe(0);
    expect(await uploadRow(abandoned)).not.toBeNull();

    server.clock.advance(2 * HOUR);
    const fresh = await uploadFor(app, uid, "post");
    expect(await cleanup("uploads:abandoned")).toBe(1);

    expect(await uploadRow(abandoned)).toBeNull();
    expect(fileOnDisk(abandoned)).toBe(false);
    expect(fileOnDisk(abandonedThumb)).toBe(false);
    expect((await fetch(abandoned)).status).toBe(404);
    for (const url of [attached, fresh, ...referenced]) {
      expect(await uploadRow(url)).not.toBeNull();
      expect(fileOnDisk(url)).toBe(true);
    }
    expect((await fetch(botPhoto)).status).toBe(200);
    // found in use: marked, so later runs do not look for them again
    for (const url of referenced) expect((await uploadRow(url))!.attached_at).toBeGreaterThan(now + 24 * HOUR);
    expect((await uploadRow(fresh))!.attached_at).toBeNull();

    // a second run has nothing left to do
    expect(await cleanup("uploads:abandoned")).toBe(0);
    // the story row above was written by hand; it must not count in the stories test
    await queryRows(db(), "DELETE FROM stories WHERE media_url = ?", storyImage);
  });
});

describe("scratch files", () => {
  test("leftovers of a crash (over 6 h old) are removed; work in progress stays", async () => {
    const dir = scratchDir(server.app);
    const now = server.clock.now();
    const at = (name: string, agoMs: number) => {
      writeFileSync(join(dir, name), "partial body");
      utimesSync(join(dir, name), new Date(now - agoMs), new Date(now - agoMs));
      return join(dir, name);
    };
    const stale = at("crashed.upload", 7 * HOUR);
    const stalePart = at("half.part", 30 * HOUR);
    const busy = at("streaming.upload", 60_000);
    expect(await cleanup("uploads:scratch")).toBe(2);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(stalePart)).toBe(false);
    expect(existsSync(busy)).toBe(true);
  });
});

describe("expired stories' media", () => {
  async function postStory(client: TestClient, userId: number): Promise<{ id: string; url: string }> {
    const mediaUrl = await uploadFor(server.app, userId, "story");
    const res = await client.post("/api/social/stories", { mediaUrl });
    expect(res.status).toBe(200);
    return { id: res.body.data.story.id, url: mediaUrl };
  }
  const storyExists = async (cuid: string) =>
    (await queryRow(db(), "SELECT 1 FROM stories WHERE cuid = ?", cuid)) !== null;

  test("stories past 24 h plus the retention lose their rows and media; live, recently deleted and shared media stay", async () => {
    const app = server.app;
    const { user, client } = await signedInClient(server);
    const viewer = await signedInClient(server);
    const expired = await postStory(client, user.id);
    const shared = await postStory(client, user.id);
    const deletedLongAgo = await postStory(client, user.id);
    expect((await viewer.client.post(`/api/social/stories/${expired.id}/view`)).status).toBe(200);
    expect((await client.delete(`/api/social/stories/${deletedLongAgo.id}`)).status).toBe(200);
    // the same file also used as the cover: the story goes, the file stays
    await queryRows(db(), "UPDATE users SET cover_url = ? WHERE id = ?", shared.url, user.id);

    server.clock.advance(30 * HOUR);
    const deletedRecently = await postStory(client, user.id);
    expect((await client.delete(`/api/social/stories/${deletedRecently.id}`)).status).toBe(200);
    const live = await postStory(client, user.id);
    // deleted 30 h ago: gone; expired 6 h ago, within the 24 h retention: kept
    expect(await cleanup("stories:media")).toBe(1);
    expect(await storyExists(deletedLongAgo.id)).toBe(false);
    expect(await storyExists(expired.id)).toBe(true);
    expect(fileOnDisk(expired.url)).toBe(true);

    server.clock.advance(19 * HOUR);
    expect(await cleanup("stories:media")).toBe(1);
    for (const s of [expired, shared, deletedLongAgo]) expect(await storyExists(s.id)).toBe(false);
    for (const s of [expired, deletedLongAgo]) {
      expect(await uploadRow(s.url)).toBeNull();
      expect(fileOnDisk(s.url)).toBe(false);
    }
    expect(
      await queryRow(
        db(),
        "SELECT COUNT(*) AS n FROM story_views sv WHERE NOT EXISTS (SELECT 1 FROM stories s WHERE s.id = sv.story_id)",
      ),
    ).toEqual({ n: 0 });
    expect((await uploadRow(shared.url))!.attached_at).not.toBeNull();
    expect(fileOnDisk(shared.url)).toBe(true);
    for (const s of [deletedRecently, live]) {
      expect(await storyExists(s.id)).toBe(true);
      expect(fileOnDisk(s.url)).toBe(true);
    }
    const mine = await client.get(`/api/social/stories/${live.id}`);
    expect(mine.status).toBe(200);
    expect(await cleanup("stories:media")).toBe(0);
  });
});

describe("bot updates", () => {
  test("delivered updates past their retention and undelivered ones past 24 h are deleted; the rest stay", async () => {
    const app = server.app;
    const token = await createBotViaApi(owner.client, "retention_bot");
    const botId = (
      (await queryRow(
        db(),
        "SELECT b.id FROM bots b JOIN users u ON u.id = b.user_id WHERE u.username = 'retention_bot'",
      )) as { id: number }
    ).id;
    const now = app.clock.now();
    const insert = async (createdAgoH: number, deliveredAgoH: number | null) =>
      (
        (await queryRow(
          db(),
          "INSERT INTO bot_updates (bot_id, type, payload, created_at, delivered_at) VALUES (?, 'message', '{}', ?, ?) RETURNING id",
          botId,
          now - createdAgoH * HOUR,
          deliveredAgoH === null ? null : now - deliveredAgoH * HOUR,
        )) as {
          id: number;
        }
      ).id;
    const deliveredOld = await insert(30, 25);
    const deliveredRecent = await insert(30, 2);
    const pendingOld = await insert(25, null);
    const pendingRecent = await insert(23, null);
    expect(await cleanup("bots:updates")).toBe(2);
    const left = (
      (await queryRows(db(), "SELECT id FROM bot_updates WHERE bot_id = ? ORDER BY id", botId)) as Array<{ id: number }>
    ).map((r) => r.id);
    expect(left).toEqual([deliveredRecent, pendingRecent]);
    expect(left).not.toContain(deliveredOld);
    expect(left).not.toContain(pendingOld);
    // the bot still gets what is pending
    const got = await botCall(server.url, token, "getUpdates");
    expect(got.body.result.map((u: { update_id: number }) => u.update_id)).toEqual([pendingRecent]);
    expect(await cleanup("bots:updates")).toBe(0);
  });
});

test("jobs:done deletes jobs done more than a day ago, and nothing else", async () => {
  const now = Date.now();
  const insert = (state: "done" | "dead" | "queued", agoHours: number) =>
    db()
      .insertInto("jobs")
      .values({
        kind: "cleanup-test",
        key: null,
        payload: null,
        state,
        run_at: now,
        lease_token: null,
        lease_until: null,
        last_error: null,
        created_at: now - agoHours * HOUR,
        updated_at: now - agoHours * HOUR,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
  await insert("done", 25);
  const recent = await insert("done", 2);
  const dead = await insert("dead", 48);
  const queued = await insert("queued", 48);
  expect(await cleanup("jobs:done")).toBe(1);
  const left = await db().selectFrom("jobs").select("id").where("kind", "=", "cleanup-test").orderBy("id").execute();
  expect(left).toEqual([recent, dead, queued]);
});
