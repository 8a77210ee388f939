import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { quickPerson } from "../testing/fixtures";
import { precompiled, rowSplitter, ShapedQuery } from "./compiled";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("precompiled queries", () => {
  test("bind each call's parameters by name and keep the builder's own constants", async () => {
    const [a, b, c] = [await quickPerson(server), await quickPerson(server), await quickPerson(server)];
    const names = [a.user.username, b.user.username];
    // the `in` list is a constant of the query; only p.id and p.minId are parameters, used out of order
    const query = precompiled((db, p: { minId: number; id: number }) =>
      db
        .selectFrom("users")
        .select(["id", "username"])
        .where("username", "in", names)
        .where("id", "=", p.id)
        .where("id", ">=", p.minId),
    );
    const db = server.app.db;
    expect(await query(db, { id: a.user.id, minId: 0 })).toEqual([{ id: a.user.id, username: a.user.username }]);
    expect(await query(db, { minId: 0, id: b.user.id })).toEqual([{ id: b.user.id, username: b.user.username }]);
    // c is outside the constant list; b is below minId
    expect(await query(db, { id: c.user.id, minId: 0 })).toEqual([]);
    expect(await query(db, { id: b.user.id, minId: b.user.id + 1 })).toEqual([]);
  });

  test("writes run inside a transaction and roll back with it", async () => {
    const p = await quickPerson(server);
    const rename = precompiled((db, q: { id: number; name: string }) =>
      db.updateTable("users").set({ display_name: q.name }).where("id", "=", q.id).returning("display_name"),
    );
    const db = server.app.db;
    const failing = db.transaction().execute(async (trx) => {
      expect(await rename(trx, { id: p.user.id, name: "Inside" })).toEqual([{ display_name: "Inside" }]);
      throw new Error("undo");
    });
    await expect(failing).rejects.toThrow("undo");
    const row = await db
      .selectFrom("users")
      .select("display_name")
      .where("id", "=", p.user.id)
      .executeTakeFirstOrThrow();
    expect(row.display_name).toBe(p.user.username);
    expect(await rename(db, { id: p.user.id, name: "After" })).toEqual([{ display_name: "After" }]);
  });
});

describe("rowSplitter", () => {
  test("splits a joined row into its parts, each holding its named columns under their own names", async () => {
    const a = await quickPerson(server);
    const [row] = await server.app.db
      .selectFrom("users")
      .select(["users.id", "users.username", "users.display_name as x__name", "users.cuid as x__cuid"])
      .where("users.id", "=", a.user.id)
      .execute();
    const split = rowSplitter<{ user: { id: number; username: string }; x: { name: string; cuid: string } }>({
      user: ["", ["id", "username"]],
      x: ["x__", ["name", "cuid"]],
    });
    const parts = split(row!);
    expect(parts).toEqual({
      user: { id: a.user.id, username: a.user.username },
      x: { name: a.user.display_name, cuid: a.user.cuid },
    });
    // in the order named, as the row's own keys would be
    expect(JSON.stringify(parts.user)).toBe(JSON.stringify({ id: a.user.id, username: a.user.username }));
  });

  test("takes only column names (they become code)", () => {
    expect(() => rowSplitter({ user: ["", ["id", "x; throw 1"]] })).toThrow("is not a column name");
    expect(() => rowSplitter({ user: ["p-", ["id"]] })).toThrow("is not a column name");
    expect(() => rowSplitter({ "a b": ["", ["id"]] })).toThrow("is not a column name");
  });
});
