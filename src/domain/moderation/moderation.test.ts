import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { runCli } from "../../testing/cli";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    "limits.postsPerHour": 3,
    "limits.commentsPerHour": 2,
    "moderation.blockedWords": "spamword, Запрет ,,",
  });
});
afterAll(() => server.stop());

/** Runs socialctl against the test server's data dir in a child process, as an operator would. */
const cli = (...args: string[]) => runCli(["--data-dir", server.dataDir, "--json", ...args]);

describe("per-account limits", () => {
  test("posts per hour: 429 RATE_LIMITED with Retry-After, per account, reset after the hour", async () => {
    const { client } = await quickPerson(server);
    const other = await quickPerson(server);
    for (let i = 0; i < 3; i++)
      expect((await client.post("/api/social/posts", { content: `post ${i}` })).status).toBe(200);
    const res = await client.post("/api/social/posts", { content: "one too many" });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("RATE_LIMITED");
    const retry = Number(res.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(3600);
    // an idempotent repeat of an existing post is not a new post
    const first = await other.client.post("/api/social/posts", { content: "keyed", clientPostId: "k" });
    for (let i = 0; i < 4; i++)
      expect(
        (await other.client.post("/api/social/posts", { content: "keyed", clientPostId: "k" })).body.data.post.id,
      ).toBe(first.body.data.post.id);
    expect((await other.client.post("/api/social/posts", { content: "second" })).status).toBe(200);
    server.clock.advance(3_601_000);
    expect((await client.post("/api/social/posts", { content: "next hour" })).status).toBe(200);
  });

  test("comments per hour", async () => {
    const { client } = await quickPerson(server);
    const post = (await client.post("/api/social/posts", { content: "thread" })).body.data.post.id;
    for (let i = 0; i < 2; i++)
      expect((await client.post(`/api/social/posts/${post}/comments`, { content: `c${i}` })).status).toBe(200);
    const res = await client.post(`/api/social/posts/${post}/comments`, { content: "c3" });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("RATE_LIMITED");
    expect(res.headers.get("retry-after")).not.toBeNull();
  });
});

describe("word list", () => {
  test("CONTENT_REJECTED for listed words in posts, polls, edits and comments; whole words only", async () => {
    const { client } = await quickPerson(server);
    let res = await client.post("/api/social/posts", { content: "buy SPAMWORD now" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("CONTENT_REJECTED");
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    res = await client.post("/api/social/posts", { content: "это запрет!" });
    expect(res.body.error.code).toBe("CONTENT_REJECTED");
    res = await client.post("/api/social/posts", { content: "poll", poll: { options: ["ok", "spamword"] } });
    expect(res.body.error.code).toBe("CONTENT_REJECTED");
    expect(res.body.error.details.fieldErrors["poll.options"]).toBeDefined();
    res = await client.post("/api/social/posts", { content: "spamwords and antispamword are other words" });
    expect(res.status).toBe(200);
    const id = res.body.data.post.id;
    res = await client.patch(`/api/social/posts/${id}`, { content: "now spamword" });
    expect(res.body.error.code).toBe("CONTENT_REJECTED");
    res = await client.post(`/api/social/posts/${id}/comments`, { content: "Spamword." });
    expect(res.body.error.code).toBe("CONTENT_REJECTED");
    expect((await client.get(`/api/social/posts/${id}`)).body.data.post.content).toBe(
      "spamwords and antispamword are other words",
    );
  });

  test("profile name and bio pass the word list too; nothing changes when rejected", async () => {
    const { client, user } = await quickPerson(server);
    let res = await client.patch("/api/account/profile", { displayName: "Spamword King" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("CONTENT_REJECTED");
    expect(res.body.error.details.fieldErrors.displayName).toBeDefined();
    res = await client.patch("/api/account/profile", { displayName: "Fine", bio: "а тут запрет" });
    expect(res.body.error.code).toBe("CONTENT_REJECTED");
    expect(res.body.error.details.fieldErrors.bio).toBeDefined();
    const row = await server.app.db
      .selectFrom("users")
      .select(["display_name", "bio"])
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ display_name: user.display_name, bio: "" });
    expect((await client.patch("/api/account/profile", { displayName: "Fine", bio: "clean" })).status).toBe(200);
  });
});

describe("posting block (CLI)", () => {
  test("block-posting stops posts, reposts and comments until it ends or is lifted", async () => {
    const target = await quickPerson(server);
    const other = await quickPerson(server);
    const theirs = (await other.client.post("/api/social/posts", { content: "other" })).body.data.post.id;
    // the CLI counts from the real time; this server's clock already runs an hour ahead
    const r = await cli("user", "block-posting", target.user.username, "--minutes", "180");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout.trim());
    expect(out.username).toBe(target.user.username);
    expect(Date.parse(out.postingBlockedUntil)).toBeGreaterThan(Date.now());
    let res = await target.client.post("/api/social/posts", { content: "hello" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("POSTING_TEMPORARILY_BLOCKED");
    res = await target.client.post(`/api/social/posts/${theirs}/comments`, { content: "hello" });
    expect(res.body.error.code).toBe("POSTING_TEMPORARILY_BLOCKED");
    res = await target.client.post(`/api/social/posts/${theirs}/repost`);
    expect(res.body.error.code).toBe("POSTING_TEMPORARILY_BLOCKED");
    // reading and liking still work
    expect((await target.client.post(`/api/social/posts/${theirs}/like`)).status).toBe(200);
    // the block ends by itself
    server.clock.advance(120 * 60_000);
    expect((await target.client.post("/api/social/posts", { content: "back" })).status).toBe(200);
    expect((await cli("user", "block-posting", target.user.username, "--minutes", "600")).code).toBe(0);
    expect((await target.client.post("/api/social/posts", { content: "again" })).status).toBe(403);
    const lifted = await cli("user", "unblock-posting", target.user.username);
    expect(lifted.code).toBe(0);
    expect(JSON.parse(lifted.stdout.trim())).toEqual({ username: target.user.username, postingBlockedUntil: null });
    expect((await target.client.post("/api/social/posts", { content: "free" })).status).toBe(200);
  }, 20_000);

  test("bad CLI input fails with one line", async () => {
    for (const args of [
      ["block-posting", "nobody_at_all", "--minutes", "5"],
      ["block-posting", "x", "--minutes", "abc"],
      ["unblock-posting", "nobody_at_all"],
    ]) {
      const r = await cli("user", ...args);
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect((await cli("user", "block-posting", "x")).code).not.toBe(0);
  }, 20_000);
});
