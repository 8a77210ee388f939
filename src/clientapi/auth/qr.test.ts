import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { signedInClient } from "../../testing/fixtures";
import { QR_TTL_MS } from "../../domain/auth/qr";
import { setDisabled } from "../../domain/users/service";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

async function start(program: TestClient) {
  const res = await program.post("/api/auth/qr/start");
  expect(res.status).toBe(200);
  return res.body.data as { token: string; expiresAt: string; pollIntervalMs: number; link: string };
}

const status = async (c: TestClient, token: string) =>
  (await c.get(`/api/auth/qr/status?token=${encodeURIComponent(token)}`)).body.data?.status;

describe("QR login", () => {
  test("start → PENDING → approve → APPROVED → claim sets cookies once → CLAIMED", async () => {
    const { user, client: phone } = await signedInClient(server);
    const program = new TestClient(server.url);
    const qr = await start(program);
    expect(qr.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(qr.pollIntervalMs).toBe(2000);
    expect(Date.parse(qr.expiresAt) - server.clock.now()).toBeGreaterThan(QR_TTL_MS - 5000);
    expect(new Date(qr.expiresAt).toISOString()).toBe(qr.expiresAt);
    expect(qr.link).toBe(`${server.app.config.baseUrl}/auth/link?t=${qr.token}`);
    expect(await status(program, qr.token)).toBe("PENDING");

    const early = await program.post("/api/auth/qr/claim", { token: qr.token });
    expect(early.status).toBe(400);
    expect(early.body.error.details.fieldErrors.token).toEqual(["is not approved yet"]);

    const approve = await phone.post("/api/auth/qr/approve", { token: qr.token });
    expect(approve.status).toBe(200);
    expect(approve.body.data).toEqual({ status: "APPROVED" });
    expect(await status(program, qr.token)).toBe("APPROVED");

    const claim = await program.post("/api/auth/qr/claim", { token: qr.token });
    expect(claim.status).toBe(200);
    expect(claim.body.data.account.username).toBe(user.username);
    expect(program.cookies.get("auth_access_token")).toBeTruthy();
    expect((await program.get("/api/auth/me")).body.data.account.username).toBe(user.username);
    expect(await status(program, qr.token)).toBe("CLAIMED");

    const thief = new TestClient(server.url);
    const replay = await thief.post("/api/auth/qr/claim", { token: qr.token });
    expect(replay.status).toBe(400);
    expect(replay.body.error.details.fieldErrors.token).toEqual(["was already used"]);
    expect(thief.cookies.has("auth_access_token")).toBe(false);
    const reapprove = await phone.post("/api/auth/qr/approve", { token: qr.token });
    expect(reapprove.body.error.details.fieldErrors.token).toEqual(["was already used"]);
  });

  test("the request shows the asking device; a refused one can be neither approved nor claimed", async () => {
    const { client: phone } = await signedInClient(server);
    const program = new TestClient(server.url);
    program.userAgent = "Mozilla/5.0 (X11; Linux x86_64) Chrome/150.0 Safari/537.36";
    const qr = await start(program);
    const seen = await phone.get(`/api/auth/qr/status?token=${qr.token}`);
    expect(seen.body.data).toMatchObject({
      status: "PENDING",
      device: { userAgent: program.userAgent, ip: "127.0.0.1" },
    });
    expect(Math.abs(Date.parse(seen.body.data.device.requestedAt) - server.clock.now())).toBeLessThan(60_000);
    expect((await program.post("/api/auth/qr/refuse", { token: qr.token })).status).toBe(401);
    const refused = await phone.post("/api/auth/qr/refuse", { token: qr.token });
    expect(refused.status).toBe(200);
    expect(refused.body.data).toEqual({ status: "REFUSED" });
    expect(await status(program, qr.token)).toBe("REFUSED");
    const approve = await phone.post("/api/auth/qr/approve", { token: qr.token });
    expect(approve.body.error.details.fieldErrors.token).toEqual(["was refused"]);
    const claim = await program.post("/api/auth/qr/claim", { token: qr.token });
    expect(claim.status).toBe(400);
    expect(claim.body.error.details.fieldErrors.token).toEqual(["was refused"]);
    expect(claim.headers.getSetCookie().some((c) => c.startsWith("auth_access_token="))).toBe(false);
    // approved first: refusing comes too late
    const other = await start(program);
    await phone.post("/api/auth/qr/approve", { token: other.token });
    expect(
      (await phone.post("/api/auth/qr/refuse", { token: other.token })).body.error.details.fieldErrors.token,
    ).toEqual(["was already used"]);
  });

  test("an expired request cannot be approved or claimed", async () => {
    const { client: phone } = await signedInClient(server);
    const program = new TestClient(server.url);
    const a = await start(program);
    const b = await start(program);
    await phone.post("/api/auth/qr/approve", { token: b.token });
    server.clock.advance(QR_TTL_MS + 1000);
    expect(await status(program, a.token)).toBe("EXPIRED");
    expect(await status(program, b.token)).toBe("EXPIRED");
    const approve = await phone.post("/api/auth/qr/approve", { token: a.token });
    expect(approve.status).toBe(400);
    expect(approve.body.error.details.fieldErrors.token).toEqual(["has expired"]);
    const claim = await program.post("/api/auth/qr/claim", { token: b.token });
    expect(claim.body.error.details.fieldErrors.token).toEqual(["has expired"]);
  });

  test("a disabled approver's login is refused at claim", async () => {
    const { user, client: phone } = await signedInClient(server);
    const program = new TestClient(server.url);
    const qr = await start(program);
    await phone.post("/api/auth/qr/approve", { token: qr.token });
    await setDisabled(server.app.db, server.clock.now(), user.id, true);
    const claim = await program.post("/api/auth/qr/claim", { token: qr.token });
    expect(claim.status).toBe(403);
    expect(claim.body.error.code).toBe("ACCOUNT_DISABLED");
  });

  test("bad input: unknown token, missing token, oversize, no session, no CSRF", async () => {
    const program = new TestClient(server.url);
    const unknown = await program.get("/api/auth/qr/status?token=nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("NOT_FOUND");
    const missing = await program.get("/api/auth/qr/status");
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.fieldErrors.token).toBeDefined();
    expect((await program.get(`/api/auth/qr/status?token=${"a".repeat(201)}`)).status).toBe(422);
    expect((await program.post("/api/auth/qr/claim", {})).status).toBe(422);
    expect((await program.post("/api/auth/qr/claim", { token: 12 })).status).toBe(422);
    expect((await program.post("/api/auth/qr/claim", { token: "nope" })).status).toBe(404);
    const qr = await start(program);
    const anonApprove = await program.post("/api/auth/qr/approve", { token: qr.token });
    expect(anonApprove.status).toBe(401);
    expect(anonApprove.body.error.code).toBe("UNAUTHORIZED");
    const { client: phone } = await signedInClient(server);
    expect((await phone.post("/api/auth/qr/approve", { token: "nope" })).status).toBe(404);
    const noCsrf = await phone.post("/api/auth/qr/approve", { token: qr.token }, { csrf: false });
    expect(noCsrf.body.error.code).toBe("CSRF_TOKEN_INVALID");
    expect(await status(program, qr.token)).toBe("PENDING");
    expect((await new TestClient(server.url).post("/api/auth/qr/start", {}, { csrf: false })).status).toBe(403);
  });
});
