import { afterAll, beforeAll, expect, test } from "bun:test";
import { authenticate, createSession } from "./service";
import { sessionTtls } from "../../http/context";
import { startTestServer, type TestServer } from "../../testing/server";
import { countingDb } from "../../testing/statements";
import { makeUser } from "../../testing/fixtures";

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
