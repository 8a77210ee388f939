import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBotViaApi } from "../../testing/botapi";
import type { TestClient } from "../../testing/client";
import { quickPerson } from "../../testing/fixtures";
import type { TestServer } from "../../testing/server";
import { adminWorld, auditEntries, expectError } from "../../testing/admin";

let server: TestServer;
let admin: TestClient;
let adminName: string;
let person: TestClient;

beforeAll(async () => {
  ({ server, admin, adminName, person } = await adminWorld());
});
afterAll(() => server.stop());

describe("granting and revoking admin over /api/admin/accounts", () => {
  test("only administrators may", async () => {
    const target = await quickPerson(server);
    expectError(await person.post(`/api/admin/accounts/${target.user.username}/grant-admin`), 403, "FORBIDDEN");
    expectError(await person.post(`/api/admin/accounts/${adminName}/revoke-admin`), 403, "FORBIDDEN");
  });

  test("a granted person opens the admin API at once; revoked, they are refused at once; both logged", async () => {
    const target = await quickPerson(server);
    const name = target.user.username;
    expectError(await target.client.get("/api/admin/accounts"), 403, "FORBIDDEN");

    const granted = await admin.post(`/api/admin/accounts/${name}/grant-admin`);
    expect(granted.status).toBe(200);
    expect(granted.body.data).toMatchObject({ account: { username: name, isAdmin: true }, changed: true });
    expect((await target.client.get("/api/admin/accounts")).status).toBe(200);
    expect((await target.client.get("/api/auth/me")).body.data.account.isAdmin).toBe(true);
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      actor: { username: adminName },
      action: "account.grant-admin",
      target: { type: "account", id: target.user.cuid, label: `@${name}` },
      details: { changed: true },
    });
    // granting again changes nothing, and says so
    expect((await admin.post(`/api/admin/accounts/${name}/grant-admin`)).body.data.changed).toBe(false);

    // the new administrator can act on the first one
    const back = await target.client.get(`/api/admin/accounts/${adminName}`);
    expect(back.body.data.account.isAdmin).toBe(true);

    const revoked = await admin.post(`/api/admin/accounts/${name}/revoke-admin`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ account: { username: name, isAdmin: false }, changed: true });
    expectError(await target.client.get("/api/admin/accounts"), 403, "FORBIDDEN");
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "account.revoke-admin",
      target: { id: target.user.cuid },
    });
  });

  test("an administrator cannot revoke themselves, nor make a bot or an unknown account an administrator", async () => {
    const self = await admin.post(`/api/admin/accounts/${adminName}/revoke-admin`);
    expectError(self, 400, "VALIDATION_ERROR");
    expect(self.body.error.details.fieldErrors.username[0]).toContain("your own account");
    expect((await admin.get(`/api/admin/accounts/${adminName}`)).body.data.account.isAdmin).toBe(true);

    const owner = await quickPerson(server);
    await createBotViaApi(owner.client, "helper_admin_bot");
    const bot = await admin.post("/api/admin/accounts/helper_admin_bot/grant-admin");
    expectError(bot, 400, "VALIDATION_ERROR");
    expect(bot.body.error.details.fieldErrors.username[0]).toContain("only people can be administrators");
    expectError(await admin.post("/api/admin/accounts/nobody_here/grant-admin"), 404, "NOT_FOUND");
    // refusals leave no entry behind
    expect((await auditEntries(admin, 5)).some((e: any) => e.target.label === "@helper_admin_bot")).toBe(false);
  });
});
