import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TestClient } from "../../testing/client";
import { makeUser } from "../../testing/fixtures";
import type { TestServer } from "../../testing/server";
import { adminWorld, auditEntries, expectError } from "../../testing/admin";
import { capturingLog, lastMail } from "../../testing/auth";
import { startTestServer } from "../../testing/server";
import { signedInClient } from "../../testing/fixtures";

let server: TestServer;
let admin: TestClient;
let person: TestClient;

beforeAll(async () => {
  ({ server, admin, person } = await adminWorld({ registration: "invite" }));
});
afterAll(() => server.stop());

let n = 0;
const fresh = () => {
  n++;
  return { email: `inv${n}_${Date.now()}@example.test`, username: `inv_user${n}`, password: "long enough pw" };
};
const register = (body: Record<string, unknown>) => new TestClient(server.url).post("/api/auth/register", body);
async function newInvite(body: Record<string, unknown> = {}) {
  const res = await admin.post("/api/admin/invites", body);
  expect(res.status).toBe(200);
  return res.body.data.invite as {
    code: string;
    url: string;
    maxUses: number;
    uses: number;
    expiresAt: string;
    createdAt: string;
  };
}
const accountMade = async (email: string) =>
  (await server.app.db.selectFrom("users").select("id").where("email", "=", email).execute()).length === 1;
const setMode = async (registration: string) =>
  expect((await admin.patch("/api/admin/settings", { registration })).status).toBe(200);

describe("making invites", () => {
  test("POST /api/admin/invites answers the invite with its link; defaults are one use and a week", async () => {
    const res = await admin.post("/api/admin/invites", {});
    expect(res.status).toBe(200);
    const invite = res.body.data.invite;
    expect(invite).toMatchObject({ maxUses: 1, uses: 0, state: "live", revokedAt: null });
    expect(invite.code).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(invite.url).toBe(`${server.app.config.baseUrl}/register?invite=${invite.code}`);
    expect(Date.parse(invite.expiresAt) - Date.parse(invite.createdAt)).toBe(7 * 24 * 3600_000);
    const custom = await newInvite({ maxUses: 5, expiresInHours: 2 });
    expect(custom.maxUses).toBe(5);
    expect(Date.parse(custom.expiresAt) - Date.parse(custom.createdAt)).toBe(2 * 3600_000);
  });

  test("bad numbers are 422 naming the field; people who are not admins are refused", async () => {
    for (const body of [{ maxUses: 0 }, { maxUses: 1.5 }, { expiresInHours: 0 }, { expiresInHours: 10_000_000 }]) {
      const res = await admin.post("/api/admin/invites", body);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.error.details.fieldErrors)).toEqual(Object.keys(body));
    }
    expectError(await person.post("/api/admin/invites", {}), 403, "FORBIDDEN");
    expectError(await person.get("/api/admin/invites"), 403, "FORBIDDEN");
    expectError(await new TestClient(server.url).post("/api/admin/invites", {}), 401, "UNAUTHORIZED");
  });

  test("creation and revocation are in the audit log, labelled by the start of the code", async () => {
    const invite = await newInvite({ maxUses: 3 });
    const [made] = await auditEntries(admin, 1);
    expect(made).toMatchObject({
      action: "invite.create",
      target: { type: "invite", id: invite.code, label: `invite ${invite.code.slice(0, 4)}…` },
      details: { maxUses: 3, expiresAt: invite.expiresAt },
    });
    const revoked = await admin.post(`/api/admin/invites/${invite.code}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.invite).toMatchObject({ code: invite.code, state: "revoked" });
    expect((await auditEntries(admin, 1))[0]).toMatchObject({ action: "invite.revoke", target: { id: invite.code } });
    expectError(await admin.post("/api/admin/invites/nosuchcode/revoke"), 404, "NOT_FOUND");
  });
});

describe("registration: invite", () => {
  test("needs a code; a wrong one is INVITE_INVALID; a live one admits and counts a use", async () => {
    expect((await new TestClient(server.url).get("/api/auth/csrf")).body.data.registration).toBe("invite");
    expectError(await register(fresh()), 400, "INVITE_REQUIRED");
    expectError(await register({ ...fresh(), inviteCode: "not-a-code" }), 400, "INVITE_INVALID");
    const invite = await newInvite();
    const input = fresh();
    const res = await register({ ...input, inviteCode: ` ${invite.code} ` });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sent: true });
    expect(await accountMade(input.email)).toBe(true);
    expect((await new TestClient(server.url).login(input.email, input.password)).status).toBe(200);
    const listed = (await admin.get("/api/admin/invites")).body.data.invites.find((i: any) => i.code === invite.code);
    expect(listed).toMatchObject({ uses: 1, maxUses: 1, state: "used_up" });
  });

  test("a used-up invite is INVITE_USED_UP and makes no account", async () => {
    const invite = await newInvite({ maxUses: 2 });
    for (let i = 0; i < 2; i++) expect((await register({ ...fresh(), inviteCode: invite.code })).status).toBe(200);
    const third = fresh();
    expectError(await register({ ...third, inviteCode: invite.code }), 400, "INVITE_USED_UP");
    expect(await accountMade(third.email)).toBe(false);
  });

  test("an invite expires on the app clock: INVITE_EXPIRED", async () => {
    const invite = await newInvite({ expiresInHours: 1 });
    server.clock.advance(3600_000 - 1000);
    const before = fresh();
    expect((await register({ ...before, inviteCode: invite.code })).status).toBe(200);
    const late = await newInvite({ expiresInHours: 1, maxUses: 2 });
    server.clock.advance(3600_000);
    expectError(await register({ ...fresh(), inviteCode: late.code }), 400, "INVITE_EXPIRED");
    const listed = (await admin.get("/api/admin/invites")).body.data.invites.find((i: any) => i.code === late.code);
    expect(listed.state).toBe("expired");
  });

  test("a revoked invite admits nobody", async () => {
    const invite = await newInvite({ maxUses: 10 });
    await admin.post(`/api/admin/invites/${invite.code}/revoke`);
    expectError(await register({ ...fresh(), inviteCode: invite.code }), 400, "INVITE_INVALID");
  });

  test("two sign-ups racing for a one-use invite: one account, the other INVITE_USED_UP", async () => {
    for (let round = 0; round < 3; round++) {
      const invite = await newInvite();
      const [a, b] = [fresh(), fresh()];
      const results = await Promise.all([
        register({ ...a, inviteCode: invite.code }),
        register({ ...b, inviteCode: invite.code }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)!.body.error.code).toBe("INVITE_USED_UP");
      expect([await accountMade(a.email), await accountMade(b.email)].filter(Boolean)).toHaveLength(1);
      const row = await server.app.db
        .selectFrom("auth_invites")
        .select("uses")
        .where("code", "=", invite.code)
        .executeTakeFirstOrThrow();
      expect(row.uses).toBe(1);
    }
  });

  test("a taken username gives the invite's use back", async () => {
    const invite = await newInvite();
    const taken = await makeUser(server.app);
    const res = await register({ ...fresh(), username: taken.username, inviteCode: invite.code });
    expect(res.body.error.details.fieldErrors.username).toEqual(["is taken"]);
    expect((await register({ ...fresh(), inviteCode: invite.code })).status).toBe(200);
  });

  test("an address with an account answers as a new one and uses the invite up alike", async () => {
    const known = await makeUser(server.app);
    const [forKnown, forNew] = [await newInvite(), await newInvite()];
    const a = await register({ ...fresh(), email: known.email, inviteCode: forKnown.code });
    const b = await register({ ...fresh(), inviteCode: forNew.code });
    expect([a.status, a.body]).toEqual([b.status, b.body]);
    const again = [
      await register({ ...fresh(), inviteCode: forKnown.code }),
      await register({ ...fresh(), inviteCode: forNew.code }),
    ];
    for (const res of again) expectError(res, 400, "INVITE_USED_UP");
  });
});

describe("invites in the other modes", () => {
  test("captcha: a live invite admits without the captcha; a bad one is refused, not sent to the captcha", async () => {
    await setMode("captcha");
    try {
      expectError(await register(fresh()), 400, "CAPTCHA_REQUIRED");
      const invite = await newInvite();
      const input = fresh();
      expect((await register({ ...input, inviteCode: invite.code })).status).toBe(200);
      expect(await accountMade(input.email)).toBe(true);
      expectError(await register({ ...fresh(), inviteCode: invite.code }), 400, "INVITE_USED_UP");
    } finally {
      await setMode("invite");
    }
  });

  test("open: a code is ignored and not used up; closed: an invite does not open the door", async () => {
    const invite = await newInvite();
    await setMode("open");
    try {
      expect((await register({ ...fresh(), inviteCode: "whatever" })).status).toBe(200);
      expect((await register({ ...fresh(), inviteCode: invite.code })).status).toBe(200);
      await setMode("closed");
      expectError(await register({ ...fresh(), inviteCode: invite.code }), 403, "FORBIDDEN");
    } finally {
      await setMode("invite");
    }
    const listed = (await admin.get("/api/admin/invites")).body.data.invites.find((i: any) => i.code === invite.code);
    expect(listed.uses).toBe(0);
  });
});

describe("the invite mail flow", () => {
  test("an invited person gets the confirmation mail", async () => {
    const capture = capturingLog();
    const other = await startTestServer({ registration: "invite" }, { log: capture.log });
    try {
      const { client } = await signedInClient(other, { isAdmin: true });
      const code = (await client.post("/api/admin/invites", {})).body.data.invite.code;
      const input = fresh();
      const res = await new TestClient(other.url).post("/api/auth/register", { ...input, inviteCode: code });
      expect(res.status).toBe(200);
      for (let i = 0; i < 100 && !capture.mails(input.email).length; i++) await Bun.sleep(20);
      expect(lastMail(capture, input.email, "email-verification").code).toMatch(/^\d{6}$/);
    } finally {
      await other.stop();
    }
  });
});
