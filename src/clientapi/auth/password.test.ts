import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { capturingLog, lastMail, signedInDevices } from "../../testing/auth";
import { signedInClient } from "../../testing/fixtures";
import { runCli } from "../../testing/cli";

let server: TestServer;
const capture = capturingLog();
beforeAll(async () => {
  server = await startTestServer({}, { log: capture.log });
});
afterAll(() => server.stop());

const signedIn = (count = 1) => signedInDevices(server, count);

const tokenOf = (mail: Record<string, any>) => mail.token as string;

describe("password change", () => {
  test("needs the current password, keeps this session, signs out the others", async () => {
    const { user, clients } = await signedIn(2);
    const [a, b] = clients as [TestClient, TestClient];
    const wrong = await a.post("/api/auth/password/change", {
      currentPassword: "not it at all",
      newPassword: "a new password",
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fieldErrors).toEqual({ currentPassword: ["is incorrect"] });
    const short = await a.post("/api/auth/password/change", { currentPassword: user.password, newPassword: "short" });
    expect(short.body.error.details.fieldErrors).toEqual({ newPassword: ["must be at least 8 characters"] });
    const res = await a.post("/api/auth/password/change", {
      currentPassword: user.password,
      newPassword: "a new password",
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ passwordChanged: true, revokedSessions: 1 });
    expect((await a.get("/api/auth/me")).status).toBe(200);
    expect((await b.get("/api/auth/me")).status).toBe(401);
    const fresh = new TestClient(server.url);
    expect((await fresh.login(user.email!, user.password)).body.error.code).toBe("INVALID_CREDENTIALS");
    expect((await fresh.login(user.email!, "a new password")).status).toBe(200);
  });

  test("bad input and no session", async () => {
    const { clients } = await signedIn();
    const c = clients[0]!;
    expect((await c.post("/api/auth/password/change", { currentPassword: "x" })).status).toBe(422);
    expect((await c.post("/api/auth/password/change", { currentPassword: 5, newPassword: "abcdefghij" })).status).toBe(
      422,
    );
    const huge = await c.post("/api/auth/password/change", {
      currentPassword: "abcdefghij",
      newPassword: "x".repeat(129),
    });
    expect(huge.status).toBe(422);
    expect(huge.body.error.details.fieldErrors.newPassword).toBeDefined();
    const anon = new TestClient(server.url);
    expect(
      (await anon.post("/api/auth/password/change", { currentPassword: "abcdefghij", newPassword: "abcdefghij" }))
        .status,
    ).toBe(401);
  });
});

describe("forgot and reset", () => {
  test("forgot always answers success; mails only real accounts", async () => {
    const { user } = await signedIn();
    const anon = new TestClient(server.url);
    const before = capture.mails().length;
    const unknown = await anon.post("/api/auth/password/forgot", { email: "nobody@example.test" });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual({ sent: true });
    expect(capture.mails().length).toBe(before);
    const known = await anon.post("/api/auth/password/forgot", { email: user.email!.toUpperCase() });
    expect(known.body).toEqual(unknown.body);
    const mail = lastMail(capture, user.email!, "password-reset");
    expect(mail.link).toBe(`${server.app.config.baseUrl}/auth/reset-password?token=${mail.token}`);
  });

  test("reset sets the password, signs out everywhere, works once", async () => {
    const { user, clients } = await signedIn(2);
    const anon = new TestClient(server.url);
    await anon.post("/api/auth/password/forgot", { email: user.email });
    const token = tokenOf(lastMail(capture, user.email!, "password-reset"));
    // a weak password does not use the token up
    const weak = await anon.post("/api/auth/password/reset", { token, newPassword: "short" });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.fieldErrors.newPassword).toEqual(["must be at least 8 characters"]);
    const res = await anon.post("/api/auth/password/reset", { token, newPassword: "reset password 1" });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ passwordChanged: true });
    for (const c of clients) expect((await c.get("/api/auth/me")).status).toBe(401);
    const replay = await anon.post("/api/auth/password/reset", { token, newPassword: "reset password 2" });
    expect(replay.status).toBe(400);
    expect(replay.body.error.details.fieldErrors.token).toEqual(["is invalid, used or expired"]);
    expect((await anon.login(user.email!, "reset password 1")).status).toBe(200);
  });

  test("only the newest reset link works, and links expire after an hour", async () => {
    const { user } = await signedIn();
    const anon = new TestClient(server.url);
    await anon.post("/api/auth/password/forgot", { email: user.email });
    const first = tokenOf(lastMail(capture, user.email!, "password-reset"));
    await anon.post("/api/auth/password/forgot", { email: user.email });
    const second = tokenOf(lastMail(capture, user.email!, "password-reset"));
    expect(second).not.toBe(first);
    expect(
      (await anon.post("/api/auth/password/reset", { token: first, newPassword: "another password" })).status,
    ).toBe(400);
    server.clock.advance(3600_000 + 1000);
    const late = await anon.post("/api/auth/password/reset", { token: second, newPassword: "another password" });
    expect(late.status).toBe(400);
    expect(late.body.error.details.fieldErrors.token).toBeDefined();
  });

  describe("a reset link mailed before the password changed no longer resets it", () => {
    /** A reset link of USER's, mailed now, and a function that tries it. */
    async function mailedLink(email: string) {
      const anon = new TestClient(server.url);
      await anon.post("/api/auth/password/forgot", { email });
      const token = tokenOf(lastMail(capture, email, "password-reset"));
      return () => anon.post("/api/auth/password/reset", { token, newPassword: "taken over 12345" });
    }
    const expectDead = (res: { status: number; body: any }) => {
      expect(res.status).toBe(400);
      expect(res.body.error.details.fieldErrors.token).toEqual(["is invalid, used or expired"]);
    };

    test("changed by its owner", async () => {
      const { user, clients } = await signedIn();
      const tryLink = await mailedLink(user.email!);
      const changed = await clients[0]!.post("/api/auth/password/change", {
        currentPassword: user.password,
        newPassword: "owner's new one",
      });
      expect(changed.status).toBe(200);
      expectDead(await tryLink());
      expect((await new TestClient(server.url).login(user.email!, "owner's new one")).status).toBe(200);
    });

    test("set by an administrator", async () => {
      const { user } = await signedIn();
      const { client: admin } = await signedInClient(server, { isAdmin: true });
      const tryLink = await mailedLink(user.email!);
      const set = await admin.post(`/api/admin/accounts/${user.username}/password`, { password: "admin's choice 1" });
      expect(set.status).toBe(200);
      expectDead(await tryLink());
      expect((await new TestClient(server.url).login(user.email!, "admin's choice 1")).status).toBe(200);
    });

    test("set with socialctl user set-password", async () => {
      const { user } = await signedIn();
      const tryLink = await mailedLink(user.email!);
      const r = await runCli([
        "--data-dir",
        server.dataDir,
        "user",
        "set-password",
        user.username,
        "--password",
        "operator's pick 1",
      ]);
      expect(r.code).toBe(0);
      expectDead(await tryLink());
      expect((await new TestClient(server.url).login(user.email!, "operator's pick 1")).status).toBe(200);
    }, 60_000);

    test("a link mailed after the change still works", async () => {
      const { user, clients } = await signedIn();
      await clients[0]!.post("/api/auth/password/change", {
        currentPassword: user.password,
        newPassword: "changed first",
      });
      const tryLink = await mailedLink(user.email!);
      expect((await tryLink()).status).toBe(200);
    });
  });

  test("bad input", async () => {
    const anon = new TestClient(server.url);
    expect((await anon.post("/api/auth/password/forgot", {})).status).toBe(422);
    expect((await anon.post("/api/auth/password/forgot", { email: "x".repeat(255) })).status).toBe(422);
    expect((await anon.post("/api/auth/password/reset", { token: "abc" })).status).toBe(422);
    expect((await anon.post("/api/auth/password/reset", { token: 7, newPassword: "abcdefghij" })).status).toBe(422);
    const unknown = await anon.post("/api/auth/password/reset", { token: "abc", newPassword: "abcdefghij" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("VALIDATION_ERROR");
    const noCsrf = await anon.post("/api/auth/password/forgot", { email: "a@b.cd" }, { csrf: false });
    expect(noCsrf.body.error.code).toBe("CSRF_TOKEN_INVALID");
  });
});
