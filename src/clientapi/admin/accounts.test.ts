import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TestClient } from "../../testing/client";
import { SseClient } from "../../testing/realtime";
import { makeUser, signedInClient } from "../../testing/fixtures";
import type { TestServer } from "../../testing/server";
import { totpAt } from "../../testing/auth";
import { adminWorld, auditEntries, expectError } from "../../testing/admin";

let server: TestServer;
let admin: TestClient;
let adminName: string;
let person: TestClient;

beforeAll(async () => {
  // heartbeats (which also close revoked streams) far apart: a stream ending shows the action ended it
  ({ server, admin, adminName, person } = await adminWorld({ "realtime.heartbeatSeconds": 300 }));
});
afterAll(() => server.stop());

describe("who may use /api/admin", () => {
  const routes: Array<[string, string, unknown?]> = [
    ["GET", "/api/admin/accounts"],
    [
      "POST",
      "/api/admin/accounts",
      { email: "x@example.test", username: "sneaky", password: "long enough pw", admin: true },
    ],
    ["POST", "/api/admin/accounts/someone/password", { password: "long enough pw" }],
    ["POST", "/api/admin/accounts/someone/stars", { amount: 100 }],
    ["GET", "/api/admin/accounts/someone"],
    ["POST", "/api/admin/accounts/someone/disable"],
    ["POST", "/api/admin/accounts/someone/enable"],
    ["POST", "/api/admin/accounts/someone/ban-devices"],
    ["POST", "/api/admin/accounts/someone/unban-devices"],
    ["POST", "/api/admin/accounts/someone/block-posting", { minutes: 5 }],
    ["POST", "/api/admin/accounts/someone/unblock-posting"],
    ["POST", "/api/admin/accounts/someone/reset-two-factor"],
    ["GET", "/api/admin/content/posts/x"],
    ["DELETE", "/api/admin/content/posts/x"],
    ["GET", "/api/admin/content/comments/x"],
    ["DELETE", "/api/admin/content/comments/x"],
    ["GET", "/api/admin/content/stories/x"],
    ["DELETE", "/api/admin/content/stories/x"],
    ["GET", "/api/admin/bots"],
    ["POST", "/api/admin/bots/x_bot/disable"],
    ["POST", "/api/admin/bots/x_bot/enable"],
    ["POST", "/api/admin/bots/x_bot/block"],
    ["POST", "/api/admin/bots/x_bot/unblock"],
    ["GET", "/api/admin/settings"],
    ["PATCH", "/api/admin/settings", { registration: "closed" }],
    ["GET", "/api/admin/status"],
    ["GET", "/api/admin/audit"],
  ];

  test("signed out is 401 UNAUTHORIZED, a person without the admin flag 403 FORBIDDEN, on every route", async () => {
    const anonymous = new TestClient(server.url);
    for (const [method, path, body] of routes) {
      expectError(await anonymous.request(method, path, body), 401, "UNAUTHORIZED");
      const res = await person.request(method, path, body);
      expectError(res, 403, "FORBIDDEN");
    }
    // nothing a refused caller asked for happened
    expect(
      (await admin.get("/api/admin/settings")).body.data.settings.find((s: any) => s.key === "registration").value,
    ).toBe("open");
  });

  test("a mutating admin request without the CSRF header is refused", async () => {
    const target = await makeUser(server.app);
    expectError(
      await admin.post(`/api/admin/accounts/${target.username}/disable`, {}, { csrf: false }),
      403,
      "CSRF_TOKEN_INVALID",
    );
    expect((await admin.get(`/api/admin/accounts/${target.username}`)).body.data.account.disabled).toBe(false);
  });
});

describe("accounts", () => {
  test("list newest first with cursor paging; search by name and by e-mail", async () => {
    const a = await makeUser(server.app, { username: "adminsearch_zelda", displayName: "Zelda Quest" });
    const b = await makeUser(server.app, { username: "adminsearch_zorro" });
    const first = await admin.get("/api/admin/accounts?limit=1");
    expect(first.status).toBe(200);
    expect(first.body.data.accounts.map((u: any) => u.username)).toEqual([b.username]);
    expect(first.body.data.accounts[0]).toMatchObject({
      email: b.email,
      isAdmin: false,
      disabled: false,
      postingBlockedUntil: null,
      twoFactorMethod: "none",
    });
    const second = await admin.get(`/api/admin/accounts?limit=1&cursor=${first.body.data.pageInfo.nextCursor}`);
    expect(second.body.data.accounts.map((u: any) => u.username)).toEqual([a.username]);

    const byName = await admin.get("/api/admin/accounts?q=adminsearch");
    expect(byName.body.data.accounts.map((u: any) => u.username)).toEqual(["adminsearch_zelda", "adminsearch_zorro"]);
    expect(
      (await admin.get("/api/admin/accounts?q=zelda%20quest")).body.data.accounts.map((u: any) => u.username),
    ).toEqual(["adminsearch_zelda"]);
    expect(
      (await admin.get(`/api/admin/accounts?q=${encodeURIComponent(b.email!.toUpperCase())}`)).body.data.accounts.map(
        (u: any) => u.username,
      ),
    ).toEqual([b.username]);
    expect((await admin.get("/api/admin/accounts?q=nobody@nowhere.test")).body.data.accounts).toEqual([]);
    // the instance's own system account is nobody's target
    expect(
      (await admin.get("/api/admin/accounts?limit=100")).body.data.accounts.some((u: any) => u.username === "system"),
    ).toBe(false);
  });

  test("bad input is a VALIDATION_ERROR naming the field", async () => {
    const limit = await admin.get("/api/admin/accounts?limit=0");
    expectError(limit, 400, "VALIDATION_ERROR");
    expect(limit.body.error.details.fieldErrors.limit).toEqual(["must be an integer from 1 to 100"]);
    expect((await admin.get("/api/admin/accounts?cursor=nonsense")).body.error.details.fieldErrors.cursor).toEqual([
      "is not a valid cursor",
    ]);
    const target = await makeUser(server.app);
    for (const minutes of [0, 1.5, 525_600 * 10 + 1]) {
      const res = await admin.post(`/api/admin/accounts/${target.username}/block-posting`, { minutes });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.error.details.fieldErrors).toEqual({ minutes: ["must be an integer from 1 to 5256000"] });
    }
    expectError(
      await admin.post(`/api/admin/accounts/${target.username}/block-posting`, { minutes: "ten" }),
      422,
      "VALIDATION_ERROR",
    );
    expectError(await admin.post(`/api/admin/accounts/${target.username}/block-posting`, {}), 422, "VALIDATION_ERROR");
    expectError(await admin.post("/api/admin/accounts/nobody_here/disable"), 404, "NOT_FOUND");
    expectError(await admin.post("/api/admin/accounts/system/disable"), 404, "NOT_FOUND");
    const self = await admin.post(`/api/admin/accounts/${adminName}/disable`);
    expectError(self, 400, "VALIDATION_ERROR");
    expect(self.body.error.details.fieldErrors.username).toEqual(["is your own account: you cannot disable it"]);
    expectError(await admin.post(`/api/admin/accounts/${adminName}/ban-devices`), 400, "VALIDATION_ERROR");
    expect((await admin.get("/api/auth/me")).status).toBe(200);
  });

  test("disable signs the account out and refuses its sign-in; enable lets it back; both logged", async () => {
    const { user, client } = await signedInClient(server);
    expect((await client.get("/api/auth/me")).status).toBe(200);
    const res = await admin.post(`/api/admin/accounts/${user.username}/disable`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ account: { username: user.username, disabled: true }, sessionsRevoked: 1 });
    // its sessions are signed out; a device still holding one learns why
    expectError(await client.get("/api/auth/me"), 403, "ACCOUNT_DISABLED");
    expectError(await new TestClient(server.url).login(user.email!, user.password), 403, "ACCOUNT_DISABLED");
    const [entry] = await auditEntries(admin, 1);
    expect(entry).toMatchObject({
      actor: { username: adminName },
      action: "account.disable",
      target: { type: "account", id: user.cuid, label: `@${user.username}` },
      details: { sessionsRevoked: 1 },
    });
    expect(Date.parse(entry.createdAt)).toBeGreaterThan(0);

    expect((await admin.post(`/api/admin/accounts/${user.username}/enable`)).body.data.account.disabled).toBe(false);
    expect((await new TestClient(server.url).login(user.email!, user.password)).status).toBe(200);
    expect((await auditEntries(admin, 1))[0]).toMatchObject({ action: "account.enable", target: { id: user.cuid } });
  });

  test("ban-devices refuses the person's devices, whoever uses them; unban lifts it", async () => {
    const { user, client } = await signedInClient(server);
    const stream = await SseClient.open(server.url, client);
    expect(stream.status).toBe(200);
    const res = await admin.post(`/api/admin/accounts/${user.username}/ban-devices`);
    expect(res.body.data).toMatchObject({ bannedDevices: 1 });
    // its open stream ends now, not at the next heartbeat
    await stream.waitEnded(10_000);
    expectError(await client.get("/api/auth/me"), 403, "DEVICE_BANNED");
    const someoneElse = await makeUser(server.app);
    expectError(await client.login(someoneElse.email!, someoneElse.password), 403, "DEVICE_BANNED");
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "account.ban-devices",
      details: { bannedDevices: 1 },
    });

    expect((await admin.post(`/api/admin/accounts/${user.username}/unban-devices`)).body.data).toMatchObject({
      unbannedDevices: 1,
    });
    expect((await client.get("/api/auth/me")).status).toBe(200);
    expect((await auditEntries(admin, 1))[0].action).toBe("account.unban-devices");
  });

  test("block-posting stops posts and comments until it ends or is lifted", async () => {
    const { user, client } = await signedInClient(server);
    const res = await admin.post(`/api/admin/accounts/${user.username}/block-posting`, { minutes: 30 });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.data.account.postingBlockedUntil) - server.clock.now()).toBeGreaterThan(29 * 60_000);
    const refused = await client.post("/api/social/posts", { content: "hello" });
    expectError(refused, 403, "POSTING_TEMPORARILY_BLOCKED");
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "account.block-posting",
      details: { minutes: 30 },
    });

    server.clock.advance(31 * 60_000);
    expect((await client.post("/api/social/posts", { content: "after the block" })).status).toBe(200);

    await admin.post(`/api/admin/accounts/${user.username}/block-posting`, { minutes: 5 });
    expectError(await client.post("/api/social/posts", { content: "again" }), 403, "POSTING_TEMPORARILY_BLOCKED");
    const lifted = await admin.post(`/api/admin/accounts/${user.username}/unblock-posting`);
    expect(lifted.body.data.account.postingBlockedUntil).toBeNull();
    expect((await client.post("/api/social/posts", { content: "lifted" })).status).toBe(200);
    expect((await auditEntries(admin, 1))[0].action).toBe("account.unblock-posting");
  });

  test("reset-two-factor lets a locked-out person sign in with the password alone", async () => {
    const { user, client } = await signedInClient(server);
    const { secret } = (await client.post("/api/auth/2fa/totp/setup")).body.data;
    expect((await client.post("/api/auth/2fa/totp/enable", { code: await totpAt(secret, server.clock) })).status).toBe(
      200,
    );
    expectError(await new TestClient(server.url).login(user.email!, user.password), 401, "TWO_FACTOR_REQUIRED");

    const res = await admin.post(`/api/admin/accounts/${user.username}/reset-two-factor`);
    expect(res.body.data.account.twoFactorMethod).toBe("none");
    expect((await new TestClient(server.url).login(user.email!, user.password)).status).toBe(200);
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "account.reset-two-factor",
      details: { previousMethod: "totp" },
    });
  });

  test("create an account (optionally an admin), as user create does", async () => {
    const res = await admin.post("/api/admin/accounts", {
      email: "Made@Example.test",
      username: "made_by_admin",
      password: "long enough pw",
      displayName: "Made",
      admin: true,
      verified: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.account).toMatchObject({
      username: "made_by_admin",
      displayName: "Made",
      isAdmin: true,
      emailVerified: true,
    });
    const made = new TestClient(server.url);
    expect((await made.login("made@example.test", "long enough pw")).status).toBe(200);
    expect((await made.get("/api/admin/status")).status).toBe(200);
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "account.create",
      target: { label: "@made_by_admin" },
      details: { admin: true, verified: true },
    });

    const taken = await admin.post("/api/admin/accounts", {
      email: "other@example.test",
      username: "Made_By_Admin",
      password: "long enough pw",
    });
    expectError(taken, 400, "VALIDATION_ERROR");
    expect(taken.body.error.details.fieldErrors.username).toEqual(["is taken"]);
    expect(
      (await admin.post("/api/admin/accounts", { email: "short@example.test", username: "shorty", password: "short" }))
        .body.error.details.fieldErrors.password,
    ).toEqual(["must be at least 8 characters"]);
    expectError(
      await admin.post("/api/admin/accounts", { username: "nomail", password: "long enough pw" }),
      422,
      "VALIDATION_ERROR",
    );
    expect((await admin.get("/api/admin/accounts?q=shorty")).body.data.accounts).toEqual([]);
  });

  test("set a password: the old one stops working and the account is signed out", async () => {
    const { user, client } = await signedInClient(server);
    const res = await admin.post(`/api/admin/accounts/${user.username}/password`, { password: "a brand new secret" });
    expect(res.body.data).toMatchObject({ sessionsRevoked: 1 });
    expect((await client.get("/api/auth/me")).status).toBe(401);
    expectError(await new TestClient(server.url).login(user.email!, user.password), 401, "INVALID_CREDENTIALS");
    expect((await new TestClient(server.url).login(user.email!, "a brand new secret")).status).toBe(200);
    const entry = (await auditEntries(admin, 1))[0];
    expect(entry).toMatchObject({ action: "account.set-password", target: { id: user.cuid } });
    expect(JSON.stringify(entry)).not.toContain("a brand new secret");
    const logged = (await auditEntries(admin, 100)).length;
    expect(
      (await admin.post(`/api/admin/accounts/${user.username}/password`, { password: "short" })).body.error.details
        .fieldErrors,
    ).toEqual({ password: ["must be at least 8 characters"] });
    // a change the domain refused changed nothing, and leaves no entry
    expect((await auditEntries(admin, 100)).length).toBe(logged);
    expectError(
      await admin.post(`/api/admin/accounts/${adminName}/password`, { password: "long enough pw" }),
      400,
      "VALIDATION_ERROR",
    );
  });

  test("grant stars, as stars grant does", async () => {
    const { user, client } = await signedInClient(server);
    const res = await admin.post(`/api/admin/accounts/${user.username}/stars`, { amount: 250, reason: "welcome" });
    expect(res.body.data).toMatchObject({ amount: 250, balance: 250 });
    expect((await client.get("/api/stars/balance")).body.data.balance).toBe(250);
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "stars.grant",
      details: { amount: 250, reason: "welcome", balance: 250 },
    });
    expect(
      (await admin.post(`/api/admin/accounts/${user.username}/stars`, { amount: 0 })).body.error.details.fieldErrors,
    ).toEqual({ amount: ["must be an integer from 1 to 1000000000"] });
    expectError(
      await admin.post(`/api/admin/accounts/${user.username}/stars`, { amount: "lots" }),
      422,
      "VALIDATION_ERROR",
    );
  });
});
