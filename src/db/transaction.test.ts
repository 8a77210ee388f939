import { afterEach, expect, test } from "bun:test";
import { openStorage, migrateToLatest, type Storage } from "./index";
import { inTransaction } from "./transaction";

let storage: Storage | null = null;
afterEach(async () => {
  await storage?.close();
  storage = null;
});

async function db() {
  storage = openStorage(":memory:");
  await migrateToLatest(storage.db);
  return storage.db;
}

test("actions composed in one scope commit together; after-commit effects run once it has committed, in order", async () => {
  const d = await db();
  const seen: string[] = [];
  const devices = async () =>
    (await d.selectFrom("banned_devices").select("device_id").orderBy("id").execute()).map((r) => r.device_id);
  await inTransaction(d, async (scope) => {
    await scope.db.insertInto("banned_devices").values({ device_id: "a", user_id: null, created_at: 0 }).execute();
    scope.afterCommit(() => seen.push(`first, ${seen.length}`));
    await scope.db.insertInto("banned_devices").values({ device_id: "b", user_id: null, created_at: 0 }).execute();
    scope.afterCommit(() => seen.push(`second, ${seen.length}`));
    expect(seen).toEqual([]);
  });
  expect(await devices()).toEqual(["a", "b"]);
  expect(seen).toEqual(["first, 0", "second, 1"]);
});

test("a failure anywhere rolls every composed action back, and no after-commit effect runs", async () => {
  const d = await db();
  const seen: string[] = [];
  const devices = async () =>
    (await d.selectFrom("banned_devices").select("device_id").execute()).map((r) => r.device_id);
  const failed = await inTransaction(d, async (scope) => {
    await scope.db.insertInto("banned_devices").values({ device_id: "c", user_id: null, created_at: 0 }).execute();
    scope.afterCommit(() => seen.push("published"));
    throw new Error("the second action failed");
  }).catch((e: Error) => e.message);
  expect(failed).toBe("the second action failed");
  expect(await devices()).toEqual([]);
  expect(seen).toEqual([]);
});
