import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser, signedInClient } from "../../testing/fixtures";
import { banUserDevices, unbanUserDevices } from "../../domain/auth/devices";
import { setDisabled } from "../../domain/users/service";
import { revokeOtherSessions } from "../../domain/sessions/service";
import { ACCESS_COOKIE } from "../../http/cookies";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("device cookie", () => {
  test("login issues a long-lived httpOnly device_id once and stores it on the session", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    const res = await c.login(user.email!, user.password);
    const line = res.headers.getSetCookie().find((l) => l.startsWith("device_id="))!;
    expect(line).toContain("HttpOnly");
    expect(line).toContain(`Max-Age=${400 * 86400}`);
    const deviceId = c.cookies.get("device_id")!;
    const again = await c.login(user.email!, user.password);
    expect(again.headers.getSetCookie().some((l) => l.startsWith("device_id="))).toBe(false);
    const rows = await server.app.db
      .selectFrom("sessions")
      .select("device_id")
      .where("user_id", "=", user.id)
      .execute();
    expect(rows.map((r) => r.device_id)).toEqual([deviceId, deviceId]);
  });

  test("a forged device cookie is replaced", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    c.cookies.set("device_id", "not-ours");
    await c.login(user.email!, user.password);
    expect(c.cookies.get("device_id")).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });
});

describe("DEVICE_BANNED", () => {
  test("banned devices cannot use sessions, log in, register or claim a QR login", async () => {
    const { user, client } = await signedInClient(server);
    const bystander = await makeUser(server.app);
    const otherDevice = new TestClient(server.url);
    expect((await otherDevice.login(bystander.email!, bystander.password)).status).toBe(200);

    expect(await banUserDevices(server.app.db, server.clock.now(), user.id)).toBe(1);
    const me = await client.get("/api/auth/me");
    expect(me.status).toBe(403);
    expect(me.body.error.code).toBe("DEVICE_BANNED");
    // the device is banned, whoever tries from it, even with wrong credentials
    const login = await client.login(bystander.email!, bystander.password);
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe("DEVICE_BANNED");
    expect((await client.login("nobody@example.test", "whatever123")).body.error.code).toBe("DEVICE_BANNED");
    const reg = await client.post("/api/auth/register", {
      email: "evader@example.test",
      username: "evader",
      password: "long enough pw",
    });
    expect(reg.body.error.code).toBe("DEVICE_BANNED");
    const qr = (await otherDevice.post("/api/auth/qr/start")).body.data.token;
    await otherDevice.post("/api/auth/qr/approve", { token: qr });
    expect((await client.post("/api/auth/qr/claim", { token: qr })).body.error.code).toBe("DEVICE_BANNED");
    // other devices are untouched
    expect((await otherDevice.get("/api/auth/me")).status).toBe(200);
    // a new device (no cookie) can still sign in: bans are per device
    expect((await new TestClient(server.url).login(user.email!, user.password)).status).toBe(200);

    expect(await unbanUserDevices(server.app.db, user.id)).toBe(1);
    expect((await client.get("/api/auth/me")).status).toBe(200);
  });
});

describe("ACCOUNT_DISABLED", () => {
  test("refused at login and on every authenticated request", async () => {
    const { user, client } = await signedInClient(server);
    await setDisabled(server.app.db, server.clock.now(), user.id, true);
    const me = await client.get("/api/auth/me");
    expect(me.status).toBe(403);
    expect(me.body.error.code).toBe("ACCOUNT_DISABLED");
    const login = await new TestClient(server.url).login(user.email!, user.password);
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe("ACCOUNT_DISABLED");
    // wrong password on a disabled account reveals nothing more than INVALID_CREDENTIALS
    expect((await new TestClient(server.url).login(user.email!, "wrong password")).body.error.code).toBe(
      "INVALID_CREDENTIALS",
    );
    await setDisabled(server.app.db, server.clock.now(), user.id, false);
    expect((await client.get("/api/auth/me")).status).toBe(200);
  });

  test("a session signed out by `socialctl user disable` answers ACCOUNT_DISABLED, not UNAUTHORIZED", async () => {
    const { user, client } = await signedInClient(server);
    // what the CLI does: disable, then sign the account out everywhere
    await setDisabled(server.app.db, server.clock.now(), user.id, true);
    await revokeOtherSessions(server.app.db, server.clock.now(), user.id, null);
    const me = await client.get("/api/auth/me");
    expect({ status: me.status, code: me.body.error?.code }).toEqual({ status: 403, code: "ACCOUNT_DISABLED" });
    // only a token that was really issued learns it: made-up cookies stay UNAUTHORIZED
    const stranger = new TestClient(server.url);
    stranger.cookies.set(ACCESS_COOKIE, "nosuchsession.secret");
    expect((await stranger.get("/api/auth/me")).status).toBe(401);
    // enabled again, the signed-out session stays signed out
    await setDisabled(server.app.db, server.clock.now(), user.id, false);
    expect((await client.get("/api/auth/me")).status).toBe(401);
  });
});
