import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeUser } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { fieldError } from "../../lib/errors";
import { auditPage, audited } from "./audit";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const entry = (action: string) => ({
  action,
  target: { type: "account" as const, id: "x", label: "@x" },
  details: { asked: 1 },
});
const newest = async () => (await auditPage(server.app.db, { cursor: null, limit: 1 })).items[0];

test("the entry is written before the action runs and completed with its outcome", async () => {
  const admin = await makeUser(server.app, { isAdmin: true });
  const { db, clock } = server.app;
  const result = await audited(
    db,
    clock.now(),
    admin,
    [entry("test.ok")],
    async () => {
      // the action sees its own entry already in the log
      expect((await newest())?.action).toBe("test.ok");
      return 7;
    },
    (n) => ({ details: { outcome: n }, target: { type: "account", id: "y", label: "@y" } }),
  );
  expect(result).toBe(7);
  expect(await newest()).toMatchObject({
    action: "test.ok",
    actor_username: admin.username,
    target_id: "y",
    target_label: "@y",
    details: JSON.stringify({ asked: 1, outcome: 7 }),
  });
});

test("a refused change is withdrawn; any other failure stays logged, marked failed", async () => {
  const admin = await makeUser(server.app, { isAdmin: true });
  const { db, clock } = server.app;
  const before = await newest();
  await expect(
    audited(db, clock.now(), admin, [entry("test.refused")], async () => {
      throw fieldError("x", "is wrong");
    }),
  ).rejects.toThrow("x: is wrong");
  expect((await newest())?.id).toBe(before?.id);
  await expect(
    audited(db, clock.now(), admin, [entry("test.crashed"), entry("test.crashed-too")], async () => {
      throw new Error("disk on fire");
    }),
  ).rejects.toThrow("disk on fire");
  const page = (await auditPage(db, { cursor: null, limit: 2 })).items;
  expect(page.map((r) => [r.action, JSON.parse(r.details)])).toEqual([
    ["test.crashed-too", { asked: 1, failed: true }],
    ["test.crashed", { asked: 1, failed: true }],
  ]);
});
