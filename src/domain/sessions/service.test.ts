import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authenticate, createSession } from "./service";
import { sessionTtls } from "../../http/context";
import { startTestServer, type TestServer } from "../../testing/server";
import { countingDb, fewestStatements } from "../../testing/statements";
import { makeUser, quickPerson } from "../../testing/fixtures";
import { TestClient } from "../../testing/client";
import { testsOnPostgres } from "../../testing/postgres";
import { ACCESS_COOKIE, REFRESH_COOKIE } from "../../http/cookies";
import { dbPath } from "../../config/layout";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

// Every signed-in request resolves its session: session, account and device ban in one statement.
test("a live access token is resolved in one statement, account and device ban included", async () => {
  const { app } = server;
  const user = await makeUser(app);
  const now = app.clock.now();
  const { tokens } = await createSession(app.db, now, sessionTtls(app), {
    userId: user.id,
    userAgent: "t",
    ip: "127.0.0.1",
    deviceId: "d".repeat(24),
  });
  const { db, counter } = countingDb(app.db);
  const found = await authenticate(db, now, sessionTtls(app), { access: tokens.accessToken, ip: "127.0.0.1" });
  expect(counter.statements).toBe(1);
  expect(found?.user).toMatchObject({ id: user.id, username: user.username, email: user.email });
  expect(found?.session).not.toHaveProperty("banned_device_id");
  expect(found?.session.user_id).toBe(user.id);
  expect(found?.deviceBanned).toBe(false);

  await app.db
    .insertInto("banned_devices")
    .values({ device_id: "d".repeat(24), user_id: user.id, created_at: now })
    .execute();
  expect(
    (await authenticate(app.db, now, sessionTtls(app), { access: tokens.accessToken, ip: "127.0.0.1" }))?.deviceBanned,
  ).toBe(true);

  await app.db.updateTable("users").set({ deleted_at: now }).where("id", "=", user.id).execute();
  expect(await authenticate(app.db, now, sessionTtls(app), { access: tokens.accessToken, ip: "127.0.0.1" })).toBeNull();
});

describe("sessions read again only after a write to their tables (SQLite)", () => {
  const me = (client: TestClient) => client.get("/api/auth/me");
  const lastSeenOf = async (userId: number) =>
    (
      await server.app.db
        .selectFrom("sessions")
        .select("last_seen_at")
        .where("user_id", "=", userId)
        .executeTakeFirstOrThrow()
    ).last_seen_at;
  const sqliteOnly = test.skipIf(testsOnPostgres());
  const onDevice = async (deviceId: string) => {
    const user = await makeUser(server.app);
    const { tokens } = await createSession(server.app.db, server.app.clock.now(), sessionTtls(server.app), {
      userId: user.id,
      userAgent: "t",
      ip: "127.0.0.1",
      deviceId,
    });
    const client = new TestClient(server.url);
    client.cookies.set(ACCESS_COOKIE, tokens.accessToken);
    client.cookies.set(REFRESH_COOKIE, tokens.refreshToken);
    return { user, client };
  };

  test("a session unchanged since its last request is not read again; a write to accounts, sessions or bans reads it again", async () => {
    const { app } = server;
    const { user, client } = await quickPerson(server);
    const other = await quickPerson(server);
    expect((await me(client)).status).toBe(200);
    const repeated = await fewestStatements(app.storage, async () => expect((await me(client)).status).toBe(200));
    // PostgreSQL: other nodes write unseen, so every request reads its session
    const read = app.storage.engine === "sqlite" ? 0 : 1;
    expect(repeated).toBe(read);
    // writes to other tables (a chat message, by the session's own account) leave it kept
    const cid = (await client.post(`/api/social/users/${other.user.username}/message`)).body.data.conversationId;
    expect((await client.post(`/api/social/messages/${cid}`, { content: "hello" })).status).toBe(200);
    expect(await fewestStatements(app.storage, () => me(client))).toBe(read);
    // a write to an account that has nothing to do with the session still counts as a change
    const afterWrite = await fewestStatements(app.storage, () => me(client), {
      before: (attempt) =>
        app.db
          .updateTable("users")
          .set({ bio: `changed ${attempt}` })
          .where("id", "=", other.user.id)
          .execute(),
    });
    // PostgreSQL: the stamp and the session
    expect(afterWrite).toBe(app.storage.engine === "sqlite" ? 1 : 2);
    // a change of the account shows on the next request
    await app.db.updateTable("users").set({ display_name: "Renamed" }).where("id", "=", user.id).execute();
    expect((await me(client)).body.data.account.displayName).toBe("Renamed");
    const banned = await onDevice("f".repeat(24));
    expect((await me(banned.client)).status).toBe(200);
    await app.db
      .insertInto("banned_devices")
      .values({ device_id: "f".repeat(24), user_id: banned.user.id, created_at: app.clock.now() })
      .execute();
    expect((await me(banned.client)).body.error.code).toBe("DEVICE_BANNED");
    await app.db.updateTable("sessions").set({ revoked_at: app.clock.now() }).where("user_id", "=", user.id).execute();
    expect((await me(client)).status).toBe(401);
  });

  test("writes that only move an account's counters or a session's last-seen time leave sessions kept", async () => {
    const { app } = server;
    const { user, client } = await quickPerson(server);
    const fan = await quickPerson(server);
    const read = app.storage.engine === "sqlite" ? 0 : 1;
    expect((await me(client)).status).toBe(200);
    // posts_count and the follow counts are moved by triggers on every post and follow
    expect((await client.post("/api/social/posts", { content: "counted" })).status).toBe(200);
    expect((await fan.client.post(`/api/social/users/${user.username}/follow`)).status).toBe(200);
    expect(await fewestStatements(app.storage, () => me(client))).toBe(read);
    const { profile } = (await fan.client.get(`/api/social/users/${user.username}`)).body.data;
    expect(profile).toMatchObject({ postsCount: 1, followersCount: 1 });
    // the once-a-minute last-seen write is this request's own; the kept copy shows it, so the
    // next requests neither read the session nor write the time again
    const lastSeen = () => lastSeenOf(user.id);
    const lastSeenWritten = () =>
      fewestStatements(app.storage, () => me(client), { before: async () => server.clock.advance(61_000) });
    expect(await lastSeenWritten()).toBe(read + 1);
    const seen = await lastSeen();
    expect(await fewestStatements(app.storage, () => me(client))).toBe(read);
    expect(await lastSeenWritten()).toBe(read + 1);
    expect(await lastSeen()).toBeGreaterThanOrEqual(seen + 61_000);
  });

  test("a kept session answers only its own access token: another secret under its id is refused, and the token after a renewal", async () => {
    const { app } = server;
    const { client } = await quickPerson(server);
    const read = app.storage.engine === "sqlite" ? 0 : 1;
    expect((await me(client)).status).toBe(200);
    // answered from memory, its secret compared as it was last found to match
    expect(await fewestStatements(app.storage, async () => expect((await me(client)).status).toBe(200))).toBe(read);
    const access = client.cookies.get(ACCESS_COOKIE)!;
    const [sessionCuid, secret] = access.split(".") as [string, string];
    const forger = new TestClient(server.url);
    // the near miss must differ from the secret: a random one ends in "x" one time in 64
    const nearMiss = secret.slice(0, -1) + (secret.endsWith("x") ? "y" : "x");
    for (const forged of [`${sessionCuid}.${nearMiss}`, `${sessionCuid}.${secret}x`, `${sessionCuid}.x`]) {
      forger.cookies.set(ACCESS_COOKIE, forged);
      expect((await me(forger)).status).toBe(401);
    }
    // the remembered secret still answers, from memory
    expect(await fewestStatements(app.storage, async () => expect((await me(client)).status).toBe(200))).toBe(read);
    // a renewal writes the session: the old access token is no longer its token
    server.clock.advance(app.config["auth.accessTtlSeconds"] * 1000 + 1);
    expect((await me(client)).status).toBe(200);
    expect(client.cookies.get(ACCESS_COOKIE)).not.toBe(access);
    forger.cookies.set(ACCESS_COOKIE, access);
    expect((await me(forger)).status).toBe(401);
    expect((await me(client)).status).toBe(200);
  });

  test("an access token that expires while its session is kept in memory is renewed, then refused once both expired", async () => {
    const { app } = server;
    const { client } = await quickPerson(server);
    expect((await me(client)).status).toBe(200);
    expect((await me(client)).status).toBe(200);
    const access = client.cookies.get(ACCESS_COOKIE);
    server.clock.advance(app.config["auth.accessTtlSeconds"] * 1000 + 1);
    const renewed = await me(client);
    expect(renewed.status).toBe(200);
    expect(client.cookies.get(ACCESS_COOKIE)).not.toBe(access);
    server.clock.advance(app.config["auth.refreshTtlSeconds"] * 1000 + 1);
    expect((await me(client)).status).toBe(401);
  });

  test("a session kept in memory still has its last-seen time written once a minute, and a deleted account is refused", async () => {
    const { app } = server;
    const { user, client } = await quickPerson(server);
    const lastSeen = () => lastSeenOf(user.id);
    expect((await me(client)).status).toBe(200);
    expect((await me(client)).status).toBe(200);
    const before = await lastSeen();
    server.clock.advance(61_000);
    expect((await me(client)).status).toBe(200);
    // the clock also moves on its own (the request wrote its own now)
    expect(await lastSeen()).toBeGreaterThanOrEqual(before + 61_000);
    expect((await me(client)).status).toBe(200);
    await app.db.updateTable("users").set({ deleted_at: app.clock.now() }).where("id", "=", user.id).execute();
    expect((await me(client)).status).toBe(401);
  });

  // another connection to the same file is what the CLI beside a running server is
  sqliteOnly(
    "a revocation, a disabled account or a banned device committed by another process applies at once",
    async () => {
      const { app } = server;
      const other = new Database(dbPath(server.dataDir));
      try {
        const revoked = await quickPerson(server);
        const disabled = await quickPerson(server);
        const banned = await onDevice("e".repeat(24));
        for (const { client } of [revoked, disabled, banned]) {
          expect((await me(client)).status).toBe(200);
          expect((await me(client)).status).toBe(200);
        }
        const now = app.clock.now();
        other.run("UPDATE sessions SET revoked_at = ? WHERE user_id = ?", [now, revoked.user.id]);
        expect((await me(revoked.client)).status).toBe(401);
        other.run("UPDATE users SET disabled_at = ? WHERE id = ?", [now, disabled.user.id]);
        expect((await me(disabled.client)).body.error.code).toBe("ACCOUNT_DISABLED");
        other.run("INSERT INTO banned_devices (device_id, user_id, created_at) VALUES (?, ?, ?)", [
          "e".repeat(24),
          banned.user.id,
          now,
        ]);
        expect((await me(banned.client)).body.error.code).toBe("DEVICE_BANNED");
      } finally {
        other.close();
      }
    },
  );
});
