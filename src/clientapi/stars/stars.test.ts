import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { makeUser, signedInClient } from "../../testing/fixtures";
import { TestClient } from "../../testing/client";
import type { UserRow } from "../../domain/users/table";
import { grantStars } from "../../domain/stars/service";
import { auditLedger } from "../../domain/stars/ledger";
import { createBotViaApi } from "../../testing/botapi";

let server: TestServer;
let alice: TestClient;
let aliceUser: UserRow;
let bob: TestClient;
let bobUser: UserRow;

beforeAll(async () => {
  server = await startTestServer();
  ({ client: alice, user: aliceUser } = await signedInClient(server));
  ({ client: bob, user: bobUser } = await signedInClient(server));
});
afterAll(() => server.stop());

describe("stars for people", () => {
  test("balance starts at 0 and needs a session", async () => {
    expect((await alice.get("/api/stars/balance")).body).toEqual({ success: true, data: { balance: 0 } });
    const anonymous = await new TestClient(server.url).get("/api/stars/balance");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("UNAUTHORIZED");
    expect((await new TestClient(server.url).get("/api/stars/transactions")).status).toBe(401);
  });

  test("grant and gift: one step each, every changed balance gets stars:balance", async () => {
    const seen: Array<[number, unknown]> = [];
    const offA = server.app.events.subscribe(
      aliceUser.id,
      (e) => e.event === "stars:balance" && seen.push([aliceUser.id, e.data]),
    );
    const offB = server.app.events.subscribe(
      bobUser.id,
      (e) => e.event === "stars:balance" && seen.push([bobUser.id, e.data]),
    );
    expect(await grantStars(server.app, aliceUser.id, 50, "welcome")).toBe(50);
    const res = await alice.post("/api/stars/gift", { username: bobUser.username, amount: 20, note: "  for lunch  " });
    offA();
    offB();
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      balance: 30,
      gift: { id: expect.any(String), amount: 20, note: "for lunch", to: { username: bobUser.username } },
    });
    expect(seen).toEqual([
      [aliceUser.id, { balance: 50 }],
      [aliceUser.id, { balance: 30 }],
      [bobUser.id, { balance: 20 }],
    ]);
    expect((await bob.get("/api/stars/balance")).body.data.balance).toBe(20);
    const bobTx = (await bob.get("/api/stars/transactions")).body.data;
    expect(bobTx.transactions).toEqual([
      {
        id: expect.any(String),
        kind: "gift",
        amount: 20,
        balanceAfter: 20,
        reference: res.body.data.gift.id,
        note: "for lunch",
        counterparty: {
          id: aliceUser.cuid,
          username: aliceUser.username,
          displayName: aliceUser.display_name,
          isBot: false,
        },
        createdAt: expect.any(String),
      },
    ]);
    expect(bobTx.pageInfo).toEqual({ nextCursor: null });
  });

  test("gift refusals change nothing", async () => {
    await createBotViaApi(bob, "gift_target_bot");
    const cases: Array<[unknown, number, string, string?]> = [
      [{ username: bobUser.username, amount: 31 }, 400, "INSUFFICIENT_BALANCE"],
      [{ username: aliceUser.username, amount: 1 }, 400, "VALIDATION_ERROR", "username"],
      [{ username: "gift_target_bot", amount: 1 }, 400, "VALIDATION_ERROR", "username"],
      [{ username: "nobody_here", amount: 1 }, 404, "NOT_FOUND"],
      [{ username: bobUser.username, amount: 0 }, 422, "VALIDATION_ERROR", "amount"],
      [{ username: bobUser.username, amount: -3 }, 422, "VALIDATION_ERROR", "amount"],
      [{ username: bobUser.username, amount: 1.5 }, 422, "VALIDATION_ERROR", "amount"],
      [{ username: bobUser.username, amount: 1_000_001 }, 422, "VALIDATION_ERROR", "amount"],
      [{ username: bobUser.username, amount: 1, note: "n".repeat(201) }, 422, "VALIDATION_ERROR", "note"],
      [{ amount: 1 }, 422, "VALIDATION_ERROR", "username"],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await alice.post("/api/stars/gift", body);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
      if (field) expect(Object.keys(res.body.error.details.fieldErrors)).toContain(field);
    }
    expect(
      (await alice.post("/api/stars/gift", { username: bobUser.username, amount: 1 }, { csrf: false })).status,
    ).toBe(403);
    // blocked either way: no gifts
    expect((await bob.post(`/api/social/users/${aliceUser.username}/block`)).status).toBe(200);
    const blocked = await alice.post("/api/stars/gift", { username: bobUser.username, amount: 1 });
    expect([blocked.status, blocked.body.error.code]).toEqual([403, "FORBIDDEN"]);
    expect((await alice.get("/api/stars/balance")).body.data.balance).toBe(30);
    const audit = await auditLedger(server.app.db);
    expect(audit).toMatchObject({ granted: 50, balances: 50, mismatchedWallets: [], negativeWallets: [] });
  });

  test("transactions page by cursor, newest first; bad cursor and limit are named", async () => {
    const carol = await makeUser(server.app);
    for (let i = 1; i <= 5; i++) {
      await grantStars(server.app, carol.id, i);
      server.clock.advance(1000);
    }
    const client = new TestClient(server.url);
    await client.login(carol.email!, carol.password);
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const res: any = await client.get(`/api/stars/transactions?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.transactions.map((t: any) => t.amount));
      cursor = res.body.data.pageInfo.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual([5, 4, 3, 2, 1]);
    const badLimit = await client.get("/api/stars/transactions?limit=0");
    expect([badLimit.status, badLimit.body.error.details.fieldErrors.limit]).toEqual([
      400,
      ["must be an integer from 1 to 100"],
    ]);
    const badCursor = await client.get("/api/stars/transactions?cursor=%%%");
    expect([badCursor.status, badCursor.body.error.details.fieldErrors.cursor]).toEqual([
      400,
      ["is not a valid cursor"],
    ]);
  });

  test("the data export holds the balance and its history", async () => {
    const res = await bob.get("/api/account/export");
    expect(res.status).toBe(200);
    expect(res.body.data.export.stars).toEqual({
      balance: 20,
      transactions: [
        {
          kind: "gift",
          amount: 20,
          balanceAfter: 20,
          reference: expect.any(String),
          note: "for lunch",
          counterparty: aliceUser.username,
          createdAt: expect.any(String),
        },
      ],
    });
  });

  test("bot income is its owner's only", async () => {
    await createBotViaApi(alice, "income_view_bot");
    const mine = await alice.get("/api/bots/income_view_bot/income");
    expect(mine.body.data).toEqual({
      held: 0,
      withdrawable: 0,
      nextReleaseAt: null,
      recentPayments: [],
      holdSeconds: 259200,
    });
    expect((await bob.get("/api/bots/income_view_bot/income")).status).toBe(404);
    expect((await bob.post("/api/bots/income_view_bot/income/withdraw", { amount: 1 })).status).toBe(404);
    expect((await alice.get("/api/bots/no_such_bot/income")).status).toBe(404);
    const bad = await alice.post("/api/bots/income_view_bot/income/withdraw", { amount: "all" });
    expect([bad.status, Object.keys(bad.body.error.details.fieldErrors)]).toEqual([422, ["amount"]]);
    const nothing = await alice.post("/api/bots/income_view_bot/income/withdraw", { amount: 1 });
    expect([nothing.status, nothing.body.error.code]).toEqual([400, "INSUFFICIENT_BALANCE"]);
  });
});
