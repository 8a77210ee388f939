import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { knownMigrationNames } from "../../db";
import { botCall, createBotViaApi, waitForLongPoll } from "../../testing/botapi";
import { botRuntime } from "../../domain/bots/updates";
import { liveConfigKeys } from "../../config";
import { TestClient } from "../../testing/client";
import { quickPerson } from "../../testing/fixtures";
import type { TestServer } from "../../testing/server";
import { adminWorld, auditEntries, expectError, storedLiveSettings } from "../../testing/admin";
import { openOtherConnection } from "../../testing/sql";

let server: TestServer;
let admin: TestClient;
let adminName: string;
let person: TestClient;

beforeAll(async () => {
  ({ server, admin, adminName, person } = await adminWorld());
});
afterAll(() => server.stop());

const fresh = (n: string) => ({ email: `${n}@example.test`, username: n, password: "long enough pw" });
const storedSettings = () => storedLiveSettings(server.app);
const setting = async (key: string) =>
  (await admin.get("/api/admin/settings")).body.data.settings.find((s: any) => s.key === key);

describe("live settings", () => {
  test("lists exactly the live keys with value, default and meaning", async () => {
    const res = await admin.get("/api/admin/settings");
    expect(res.body.data.settings.map((s: any) => s.key)).toEqual(liveConfigKeys);
    expect(liveConfigKeys).toContain("registration");
    expect(liveConfigKeys).toContain("moderation.blockedWords");
    expect(liveConfigKeys).toContain("instance.rules");
    expect(
      liveConfigKeys.every(
        (k) =>
          k === "registration" ||
          k === "moderation.blockedWords" ||
          k.startsWith("limits.") ||
          k.startsWith("instance."),
      ),
    ).toBe(true);
    expect(await setting("registration")).toMatchObject({ value: "open", default: "captcha" });
  });

  test("the registration mode applies to the next register request, is stored and logged", async () => {
    const closed = await admin.patch("/api/admin/settings", { registration: "closed" });
    expect(closed.status).toBe(200);
    expect(closed.body.data.changed).toEqual(["registration"]);
    expectError(await new TestClient(server.url).post("/api/auth/register", fresh("after_close")), 403, "FORBIDDEN");
    expect((await storedSettings()).registration).toBe("closed");
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      actor: { username: adminName },
      action: "setting.change",
      target: { type: "setting", id: "registration" },
      details: { from: "open", to: "closed" },
    });

    await admin.patch("/api/admin/settings", { registration: "captcha" });
    const anon = new TestClient(server.url);
    expect((await anon.get("/api/auth/csrf")).body.data.captchaRequired).toBe(true);
    expectError(await anon.post("/api/auth/register", fresh("needs_captcha")), 400, "CAPTCHA_REQUIRED");

    await admin.patch("/api/admin/settings", { registration: "open" });
    expect((await new TestClient(server.url).post("/api/auth/register", fresh("reopened"))).status).toBe(200);
  });

  test("the blocked-words list rejects the next post that uses one", async () => {
    const author = await quickPerson(server);
    expect((await author.client.post("/api/social/posts", { content: "buy cheapcoin now" })).status).toBe(200);
    expect(
      (await admin.patch("/api/admin/settings", { "moderation.blockedWords": "cheapcoin, scamlink" })).status,
    ).toBe(200);
    const refused = await author.client.post("/api/social/posts", { content: "buy CheapCoin now" });
    expectError(refused, 422, "CONTENT_REJECTED");
    expect((await storedSettings())["moderation.blockedWords"]).toBe("cheapcoin, scamlink");
    await admin.patch("/api/admin/settings", { "moderation.blockedWords": "" });
    expect((await author.client.post("/api/social/posts", { content: "buy cheapcoin again" })).status).toBe(200);
  });

  test("a limit applies at once (numbers or strings, validated like config set)", async () => {
    const author = await quickPerson(server);
    expect(
      (await admin.patch("/api/admin/settings", { "limits.postsPerHour": 1 })).body.data.settings.find(
        (s: any) => s.key === "limits.postsPerHour",
      ).value,
    ).toBe(1);
    expect((await author.client.post("/api/social/posts", { content: "one" })).status).toBe(200);
    expectError(await author.client.post("/api/social/posts", { content: "two" }), 429, "RATE_LIMITED");
    await admin.patch("/api/admin/settings", { "limits.postsPerHour": "60" });
    expect((await setting("limits.postsPerHour")).value).toBe(60);
  });

  test("bad values, keys that need a restart and unknown keys change nothing", async () => {
    const before = await storedSettings();
    const auditBefore = (await auditEntries(admin, 100)).length;
    const bad = await admin.patch("/api/admin/settings", {
      registration: "sometimes",
      "limits.postsPerHour": 0,
      port: 8080,
      "no.such": 1,
      "limits.clientRps": 5,
    });
    expectError(bad, 400, "VALIDATION_ERROR");
    expect(bad.body.error.details.fieldErrors).toEqual({
      registration: ["must be one of open, captcha, invite, closed"],
      "limits.postsPerHour": ["must be an integer from 1 to 1000000"],
      port: ["cannot be changed on a running server: use socialctl config set and restart"],
      "no.such": ["is not a config key"],
    });
    expect((await setting("limits.clientRps")).value).toBe(1_000_000);
    expectError(await admin.patch("/api/admin/settings", {}), 400, "VALIDATION_ERROR");
    expectError(await admin.patch("/api/admin/settings", { registration: { mode: "open" } }), 422, "VALIDATION_ERROR");
    expectError(
      await admin.patch("/api/admin/settings", "not json", { headers: { "content-type": "application/json" } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(await storedSettings()).toEqual(before);
    expect((await auditEntries(admin, 100)).length).toBe(auditBefore);
  });
});

describe("bots", () => {
  test("list, disable, block by moderation: the token is refused; each logged", async () => {
    const owner = await quickPerson(server);
    const token = await createBotViaApi(owner.client, "Moderated_bot");
    const list = await admin.get("/api/admin/bots");
    expect(list.body.data.bots).toContainEqual(
      expect.objectContaining({ username: "Moderated_bot", owner: owner.user.username, enabled: true, blocked: false }),
    );

    expect((await admin.post("/api/admin/bots/moderated_bot/disable")).body.data.bot).toMatchObject({ enabled: false });
    expect(await botCall(server.url, token, "getMe")).toMatchObject({
      status: 403,
      body: { description: "Forbidden: bot was disabled by its owner" },
    });
    await admin.post("/api/admin/bots/Moderated_bot/enable");
    expect((await botCall(server.url, token, "getMe")).status).toBe(200);

    // a getUpdates already waiting is ended by the block, not left parked until its timeout
    const parked = botCall(server.url, token, "getUpdates", { timeout: 25 });
    await waitForLongPoll(server.app, token);
    expect((await admin.post("/api/admin/bots/Moderated_bot/block")).body.data.bot).toMatchObject({ blocked: true });
    expect(botRuntime(server.app).waiters.size).toBe(0);
    expect(await parked).toMatchObject({
      status: 403,
      body: { description: "Forbidden: bot was blocked by moderation" },
    });
    expect(await botCall(server.url, token, "getMe")).toMatchObject({
      status: 403,
      body: { description: "Forbidden: bot was blocked by moderation" },
    });
    // the owner cannot lift a moderation block by enabling the bot
    await owner.client.patch("/api/bots/Moderated_bot", { enabled: true });
    expect((await botCall(server.url, token, "getMe")).status).toBe(403);
    expectError(await person.get("/api/social/bots/Moderated_bot"), 404, "NOT_FOUND");
    await admin.post("/api/admin/bots/Moderated_bot/unblock");
    expect((await botCall(server.url, token, "getMe")).status).toBe(200);

    expect((await auditEntries(admin, 4)).map((e) => [e.action, e.target.label])).toEqual([
      ["bot.unblock", "@Moderated_bot"],
      ["bot.block", "@Moderated_bot"],
      ["bot.enable", "@Moderated_bot"],
      ["bot.disable", "@Moderated_bot"],
    ]);
    expectError(await admin.post("/api/admin/bots/nosuch_bot/block"), 404, "NOT_FOUND");
  });
});

describe("status and the audit log", () => {
  test("status gives what socialctl status computes, from the running server", async () => {
    const s = (await admin.get("/api/admin/status")).body.data.status;
    expect(s).toMatchObject({
      initialised: true,
      dataDir: server.dataDir,
      server: { running: true, healthy: true, pid: process.pid, url: server.url },
    });
    expect(s.counts.accounts).toBeGreaterThanOrEqual(2);
    expect(s.database.sizeBytes).toBeGreaterThan(0);
    expect(s.schema).toEqual({
      version: knownMigrationNames().at(-1),
      applied: knownMigrationNames().length,
      pending: [],
      unknown: [],
      level: knownMigrationNames().at(-1),
      minimum: null,
      problem: null,
    });
  });

  test("the audit log pages newest first by cursor; a bad cursor is a VALIDATION_ERROR", async () => {
    const all = await auditEntries(admin, 100);
    expect(all.length).toBeGreaterThan(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const res: any = await admin.get(`/api/admin/audit?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...res.body.data.entries.map((e: any) => e.id));
      cursor = res.body.data.pageInfo.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(all.map((e) => e.id));
    const times = all.map((e) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expectError(await admin.get("/api/admin/audit?cursor=%%%"), 400, "VALIDATION_ERROR");
    expectError(await admin.get("/api/admin/audit?limit=101"), 400, "VALIDATION_ERROR");
  });

  test("each entry is committed to the database file when the action is answered", async () => {
    const answered = await auditEntries(admin, 100);
    // a second connection, as a restarted server would open it
    const other = openOtherConnection(server.dataDir);
    try {
      const rows = await other.db
        .selectFrom("admin_audit")
        .select(["cuid", "actor_username"])
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      expect(rows.map((r) => r.cuid)).toEqual(answered.map((e) => e.id));
      expect(rows.every((r) => r.actor_username === adminName)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
