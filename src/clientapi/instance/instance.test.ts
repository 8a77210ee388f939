import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TestClient } from "../../testing/client";
import type { TestServer } from "../../testing/server";
import { adminWorld, auditEntries, expectError, storedLiveSettings } from "../../testing/admin";

let server: TestServer;
let admin: TestClient;
let person: TestClient;

beforeAll(async () => {
  ({ server, admin, person } = await adminWorld());
});
afterAll(() => server.stop());

const anonymous = () => new TestClient(server.url);
const fresh = (n: string) => ({ email: `${n}@example.test`, username: n, password: "long enough pw" });

describe("GET /api/instance", () => {
  test("answers without a session: the defaults, and the sign-up mode", async () => {
    const res = await anonymous().get("/api/instance");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      instance: { name: "socialctl", description: "", rules: [], contact: "", registration: "open" },
    });
  });

  test("is in the OpenAPI document as a public route", async () => {
    const spec = (await anonymous().get("/api/openapi.json")).body;
    const op = spec.paths["/api/instance"].get;
    expect(op.security ?? []).toEqual([]);
    expect(JSON.stringify(op.responses["200"])).toContain("rules");
  });
});

describe("identity settings, changed live by administrators", () => {
  test("name, description, rules (a list) and contact apply to the next request, are stored and logged", async () => {
    const rules = ["Be kind to each other", "No spam or advertising"];
    const res = await admin.patch("/api/admin/settings", {
      "instance.name": "Harbour Town",
      "instance.description": "A small network for the people of the harbour.",
      "instance.rules": rules,
      "instance.contact": "mods@harbour.example",
    });
    expect(res.status).toBe(200);
    expect(res.body.data.changed.sort()).toEqual([
      "instance.contact",
      "instance.description",
      "instance.name",
      "instance.rules",
    ]);
    expect((await anonymous().get("/api/instance")).body.data.instance).toEqual({
      name: "Harbour Town",
      description: "A small network for the people of the harbour.",
      rules,
      contact: "mods@harbour.example",
      registration: "open",
    });
    expect(await storedLiveSettings(server.app)).toMatchObject({
      "instance.name": "Harbour Town",
      "instance.rules": rules,
    });
    const entry = (await auditEntries(admin, 4)).find((e: any) => e.target.id === "instance.rules");
    expect(entry).toMatchObject({ action: "setting.change", details: { from: [], to: rules } });

    // the rules also come as the JSON text `socialctl config set` takes
    await admin.patch("/api/admin/settings", { "instance.rules": '["Only one rule"]' });
    expect((await anonymous().get("/api/instance")).body.data.instance.rules).toEqual(["Only one rule"]);
    await admin.patch("/api/admin/settings", { "instance.rules": rules });
  });

  test("bad values are refused by key, nothing changes; people who are not administrators are refused", async () => {
    const bad = await admin.patch("/api/admin/settings", {
      "instance.name": "   ",
      "instance.rules": "be nice",
    });
    expectError(bad, 400, "VALIDATION_ERROR");
    expect(bad.body.error.details.fieldErrors).toEqual({
      "instance.name": ["must not be empty"],
      "instance.rules": ['must be a JSON array of strings, such as ["Be kind", "No spam"]'],
    });
    expect((await anonymous().get("/api/instance")).body.data.instance.name).toBe("Harbour Town");
    expectError(await person.patch("/api/admin/settings", { "instance.name": "Mine now" }), 403, "FORBIDDEN");
  });
});

describe("registering means accepting the rules", () => {
  test("while there are rules, register without acceptRules: true is a validation error naming it", async () => {
    expect((await anonymous().get("/api/instance")).body.data.instance.rules.length).toBeGreaterThan(0);
    for (const acceptRules of [undefined, false]) {
      const refused = await anonymous().post("/api/auth/register", { ...fresh("no_accept"), acceptRules });
      expectError(refused, 400, "VALIDATION_ERROR");
      expect(refused.body.error.details.fieldErrors.acceptRules[0]).toStartWith("must be true");
    }
    const joined = await anonymous().post("/api/auth/register", { ...fresh("accepted_rules"), acceptRules: true });
    expect(joined.status).toBe(200);
    const input = fresh("accepted_rules");
    expect((await anonymous().login(input.email, input.password)).body.data.account.username).toBe("accepted_rules");
  });

  test("without rules nothing needs accepting", async () => {
    await admin.patch("/api/admin/settings", { "instance.rules": [] });
    expect((await anonymous().post("/api/auth/register", fresh("no_rules_here"))).status).toBe(200);
  });
});
