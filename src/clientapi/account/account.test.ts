import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { quickPerson, signedInClient } from "../../testing/fixtures";
import { canMessage, getSettings } from "../../domain/settings/service";
import { registerExportSection } from "../../domain/account/export";
import { uploadFor } from "../../testing/media";
import { botCall, createBotViaApi, waitForLongPoll } from "../../testing/botapi";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

/** A person with a session issued directly (no password hashing); `withPassword` signs in for real. */
const person = () => quickPerson(server);
const withPassword = () => signedInClient(server);

describe("PATCH /api/account/profile", () => {
  test("changes name and bio, shown on the public profile", async () => {
    const a = await person();
    const res = await a.client.patch("/api/account/profile", { displayName: "  Анна 🌸 ", bio: "Привет, мир" });
    expect(res.status).toBe(200);
    expect(res.body.data.profile).toMatchObject({
      displayName: "Анна 🌸",
      bio: "Привет, мир",
      username: a.user.username,
    });
    expect(res.body.data.account.email).toBe(a.user.email);
    const b = await person();
    const seen = await b.client.get(`/api/social/users/${a.user.username}`);
    expect(seen.body.data.profile).toMatchObject({ displayName: "Анна 🌸", bio: "Привет, мир" });
  });

  test("bio over 300 characters and empty display name are VALIDATION_ERROR and change nothing", async () => {
    const a = await person();
    let res = await a.client.patch("/api/account/profile", { bio: "x".repeat(301), displayName: "   " });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(res.body.error.details.fieldErrors).sort()).toEqual(["bio", "displayName"]);
    // 300 emoji are 300 characters
    res = await a.client.patch("/api/account/profile", { bio: "😀".repeat(300) });
    expect(res.status).toBe(200);
    res = await a.client.patch("/api/account/profile", { bio: 5 });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.bio).toBeDefined();
    const me = await a.client.get(`/api/social/users/${a.user.username}`);
    expect(me.body.data.profile.displayName).toBe(a.user.username);
  });

  test("pictures must be own uploads of the right kind; null clears", async () => {
    const a = await person();
    const b = await person();
    const avatar = await uploadFor(server.app, a.user.id, "avatar");
    const cover = await uploadFor(server.app, a.user.id, "cover");
    const postImage = await uploadFor(server.app, a.user.id, "post");
    const othersAvatar = await uploadFor(server.app, b.user.id, "avatar");

    let res = await a.client.patch("/api/account/profile", { avatarUrl: avatar, coverUrl: cover });
    expect(res.status).toBe(200);
    expect(res.body.data.profile).toMatchObject({ avatarUrl: avatar, coverUrl: cover, coverVideoUrl: null });

    res = await a.client.patch("/api/account/profile", { avatarUrl: othersAvatar });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.avatarUrl).toHaveLength(1);
    res = await a.client.patch("/api/account/profile", {
      coverUrl: postImage,
      coverVideoUrl: "https://evil.example/x.mp4",
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details.fieldErrors).sort()).toEqual(["coverUrl", "coverVideoUrl"]);
    res = await a.client.patch("/api/account/profile", { avatarUrl: cover });
    expect(res.body.error.details.fieldErrors.avatarUrl[0]).toContain("avatar");

    res = await a.client.patch("/api/account/profile", { avatarUrl: null });
    expect(res.body.data.profile).toMatchObject({ avatarUrl: null, coverUrl: cover });
    const row = await server.app.db
      .selectFrom("uploads")
      .select("attached_at")
      .where("url", "=", avatar)
      .executeTakeFirstOrThrow();
    expect(row.attached_at).not.toBeNull();
  });

  test("needs a session and CSRF", async () => {
    const a = await person();
    let res = await a.client.patch("/api/account/profile", { bio: "x" }, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
    res = await new TestClient(server.url).patch("/api/account/profile", { bio: "x" });
    expect(res.status).toBe(401);
  });
});

describe("settings", () => {
  test("defaults, update, and the messaging rule", async () => {
    const a = await person();
    const b = await person();
    let res = await a.client.get("/api/account/settings");
    expect(res.status).toBe(200);
    expect(res.body.data.settings).toEqual({ whoCanMessage: "everyone", botsMayWriteFirst: true, language: null });
    expect(await canMessage(server.app.db, b.user.id, a.user.id)).toBe(true);

    res = await a.client.patch("/api/account/settings", { whoCanMessage: "followed" });
    expect(res.body.data.settings).toEqual({ whoCanMessage: "followed", botsMayWriteFirst: true, language: null });
    expect((await getSettings(server.app.db, a.user.id)).whoCanMessage).toBe("followed");
    expect(await canMessage(server.app.db, b.user.id, a.user.id)).toBe(false);
    // "followed" = the recipient follows the sender
    await b.client.post(`/api/social/users/${a.user.username}/follow`);
    expect(await canMessage(server.app.db, b.user.id, a.user.id)).toBe(false);
    await a.client.post(`/api/social/users/${b.user.username}/follow`);
    expect(await canMessage(server.app.db, b.user.id, a.user.id)).toBe(true);

    res = await a.client.patch("/api/account/settings", { whoCanMessage: "nobody" });
    expect(await canMessage(server.app.db, b.user.id, a.user.id)).toBe(false);
    res = await a.client.patch("/api/account/settings", {});
    expect(res.body.data.settings).toEqual({ whoCanMessage: "nobody", botsMayWriteFirst: true, language: null });
    res = await a.client.get("/api/account/settings");
    expect(res.body.data.settings).toEqual({ whoCanMessage: "nobody", botsMayWriteFirst: true, language: null });
  });

  test("blocks forbid messaging either way regardless of the setting", async () => {
    const a = await person();
    const b = await person();
    await a.client.post(`/api/social/users/${b.user.username}/block`);
    expect(await canMessage(server.app.db, b.user.id, a.user.id)).toBe(false);
    expect(await canMessage(server.app.db, a.user.id, b.user.id)).toBe(false);
  });

  test("bad values are VALIDATION_ERROR", async () => {
    const a = await person();
    let res = await a.client.patch("/api/account/settings", { whoCanMessage: "friends" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.fieldErrors.whoCanMessage).toBeDefined();
    res = await a.client.patch("/api/account/settings", "not json", {
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect((await a.client.get("/api/account/settings")).body.data.settings.whoCanMessage).toBe("everyone");
  });
});

describe("GET /api/account/export", () => {
  test("holds the person's own data and no one else's private data", async () => {
    registerExportSection(server.app, "extras", async (_app, user) => ({ forUser: user.username }));
    const a = await person();
    const b = await person();
    const c = await person();
    await b.client.post(`/api/social/users/${a.user.username}/follow`);
    await a.client.post(`/api/social/users/${b.user.username}/follow`);
    await a.client.post(`/api/social/users/${c.user.username}/block`);
    await a.client.patch("/api/account/settings", { whoCanMessage: "followed" });

    const res = await a.client.get("/api/account/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const data = res.body.data.export;
    expect(data.account).toMatchObject({ username: a.user.username, email: a.user.email });
    expect(data.profile).toMatchObject({ username: a.user.username, followersCount: 1, followingCount: 1 });
    expect(data.settings).toEqual({ whoCanMessage: "followed", botsMayWriteFirst: true, language: null });
    expect(data.follows.following.map((f: any) => f.username)).toEqual([b.user.username]);
    expect(data.follows.followers.map((f: any) => f.username)).toEqual([b.user.username]);
    expect(data.blocks.map((f: any) => f.username)).toEqual([c.user.username]);
    expect(data.notifications).toHaveLength(1);
    expect(data.notifications[0]).toMatchObject({ type: "follow", actor: { username: b.user.username } });
    expect(data.sessions.length).toBeGreaterThanOrEqual(1);
    expect(data.extras).toEqual({ forUser: a.user.username });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(b.user.email!);
    expect(text).not.toContain(c.user.email!);
    expect(text).not.toContain("password");
  });

  test("needs a session", async () => {
    const res = await new TestClient(server.url).get("/api/account/export");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
  });
});

describe("DELETE /api/account", () => {
  test("wrong or missing password changes nothing", async () => {
    const a = await withPassword();
    let res = await a.client.delete("/api/account", { password: "wrong password" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.password).toEqual(["is incorrect"]);
    res = await a.client.delete("/api/account", {});
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.password).toBeDefined();
    res = await a.client.get("/api/auth/me");
    expect(res.status).toBe(200);
  });

  test("the deleted account's posts, comments, likes, bookmarks and votes go with it", async () => {
    const a = await withPassword();
    const b = await person();
    const mine = (await a.client.post("/api/social/posts", { content: "leaving soon #farewelltag" })).body.data.post;
    const theirs = (await b.client.post("/api/social/posts", { content: "stay", poll: { options: ["x", "y"] } })).body
      .data.post;
    await b.client.post(`/api/social/posts/${mine.id}/comments`, { content: "bye" });
    await a.client.post(`/api/social/posts/${theirs.id}/like`);
    await a.client.post(`/api/social/posts/${theirs.id}/bookmark`);
    await a.client.post(`/api/social/posts/${theirs.id}/comments`, { content: "a's comment" });
    await a.client.post(`/api/social/posts/${theirs.id}/poll/vote`, { options: [0] });
    expect((await b.client.get(`/api/social/posts/${theirs.id}`)).body.data.post).toMatchObject({
      likeCount: 1,
      commentCount: 1,
    });

    expect((await a.client.delete("/api/account", { password: a.user.password })).status).toBe(200);
    const after = (await b.client.get(`/api/social/posts/${theirs.id}`)).body.data.post;
    expect(after).toMatchObject({ likeCount: 0, commentCount: 0, poll: { totalVoters: 0 } });
    expect((await b.client.get(`/api/social/posts/${mine.id}`)).status).toBe(404);
    expect((await b.client.get("/api/social/search?q=farewelltag&type=hashtags")).body.data.hashtags).toEqual([]);
    const db = server.app.db;
    for (const table of ["posts", "comments"] as const) {
      expect(await db.selectFrom(table).select("id").where("author_id", "=", a.user.id).execute()).toEqual([]);
    }
    for (const table of ["post_likes", "post_bookmarks", "poll_votes", "comment_likes"] as const) {
      expect(await db.selectFrom(table).select("id").where("user_id", "=", a.user.id).execute()).toEqual([]);
    }
  });

  test("deletes: sessions end, profile vanishes, e-mail scrubbed, username freed, relations gone", async () => {
    const a = await withPassword();
    const b = await person();
    const secondDevice = new TestClient(server.url);
    await secondDevice.login(a.user.email!, a.user.password);
    await a.client.post(`/api/social/users/${b.user.username}/follow`);
    await b.client.post(`/api/social/users/${a.user.username}/follow`);
    const deleted: number[] = [];
    server.app.hooks.on("user:deleted", ({ userId }) => void deleted.push(userId));

    let res = await a.client.delete("/api/account", { password: a.user.password });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: true });
    expect(deleted).toContain(a.user.id);

    expect((await a.client.get("/api/auth/me")).status).toBe(401);
    expect((await secondDevice.get("/api/auth/me")).status).toBe(401);
    res = await b.client.get(`/api/social/users/${a.user.username}`);
    expect(res.status).toBe(404);
    res = await b.client.get(`/api/social/users/${b.user.username}`);
    expect(res.body.data.profile).toMatchObject({ followersCount: 0, followingCount: 0 });
    res = await b.client.get("/api/social/notifications");
    expect(res.body.data.notifications).toEqual([]);

    const row = await server.app.db
      .selectFrom("users")
      .selectAll()
      .where("id", "=", a.user.id)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    expect(row.email).toBeNull();
    expect(row.password_hash).toBeNull();
    expect(row.username).not.toBe(a.user.username);
    // logging in with the old credentials fails
    const relog = await new TestClient(server.url).login(a.user.email!, a.user.password);
    expect(relog.status).toBe(401);
    // the e-mail and username can be used again
    const again = await signedInClient(server, { username: a.user.username, email: a.user.email });
    expect(again.user.id).not.toBe(a.user.id);
  });
  test("the account's bots stop with it: every call and a waiting getUpdates are refused 401", async () => {
    const a = await withPassword();
    const other = await person();
    const tokens = [
      await createBotViaApi(a.client, "leaving_one_bot"),
      await createBotViaApi(a.client, "leaving_two_bot"),
    ];
    const othersToken = await createBotViaApi(other.client, "staying_bot");
    for (const token of tokens) expect((await botCall(server.url, token, "getMe")).status).toBe(200);
    // a long poll held while the account goes, and a resolution the server keeps in memory
    const waiting = botCall(server.url, tokens[0]!, "getUpdates", { timeout: 20 });
    await waitForLongPoll(server.app, tokens[0]!);

    expect((await a.client.delete("/api/account", { password: a.user.password })).status).toBe(200);
    const polled = await waiting;
    expect(polled.status).toBe(401);
    for (const token of tokens) {
      const res = await botCall(server.url, token, "getMe");
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
    }
    const rows = await server.app.db
      .selectFrom("bots")
      .select("disabled_at")
      .where("owner_id", "=", a.user.id)
      .execute();
    expect(rows.length).toBe(2);
    expect(rows.every((r) => r.disabled_at !== null)).toBe(true);
    // another owner's bot goes on
    expect((await botCall(server.url, othersToken, "getMe")).status).toBe(200);
  });
});
