import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { ok } from "../../http/envelope";
import { accountJson, serializeAccount } from "./account";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test("GET /api/auth/me answers the bytes of the account's envelope, and the account as it is now", async () => {
  const { user, client } = await quickPerson(server);
  await server.app.db
    .updateTable("users")
    .set({ display_name: 'Zoë \u2028"Z" \\ x', bio: "line\nbreak </script>" })
    .where("id", "=", user.id)
    .execute();
  const row = await server.app.db.selectFrom("users").selectAll().where("id", "=", user.id).executeTakeFirstOrThrow();
  for (let i = 0; i < 2; i++) {
    const set = { headers: {} as Record<string, unknown> };
    expect(accountJson(set, row)).toBe(JSON.stringify(ok({ account: serializeAccount(row) })));
    expect(set.headers["content-type"]).toBe("application/json;charset=utf-8");
  }
  const me = async () => {
    const res = await fetch(`${server.url}/api/auth/me`, { headers: { cookie: client.cookieHeader() } });
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    return res.text();
  };
  expect(await me()).toBe(JSON.stringify(ok({ account: serializeAccount(row) })));
  expect(await me()).toBe(JSON.stringify(ok({ account: serializeAccount(row) })));
  await server.app.db.updateTable("users").set({ display_name: "Renamed" }).where("id", "=", user.id).execute();
  expect(JSON.parse(await me()).data.account.displayName).toBe("Renamed");
});
