import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { makeUser } from "../../testing/fixtures";
import { auditLedger, walletBalance } from "./ledger";
import { giftStars, grantStars } from "./service";

// Gifts both ways at once lock two wallets in opposite orders: on PostgreSQL (npm run
// test:postgres) that is a deadlock the server breaks by aborting one transaction, which
// inTransaction runs again; on SQLite the single writer orders them. Either way none fails.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test("concurrent gifts in both directions all succeed and the books balance", async () => {
  const app = server.app;
  const ann = await makeUser(app, { username: "gift_ann" });
  const bob = await makeUser(app, { username: "gift_bob" });
  await grantStars(app, ann.id, 1_000);
  await grantStars(app, bob.id, 1_000);
  const rounds = 30;
  await Promise.all(
    Array.from({ length: rounds }, (_, i) =>
      i % 2
        ? giftStars(app, { senderId: ann.id, recipientUsername: bob.username, amount: 3 })
        : giftStars(app, { senderId: bob.id, recipientUsername: ann.username, amount: 1 }),
    ),
  );
  const half = rounds / 2;
  expect(await walletBalance(app.db, ann.id, "balance")).toBe(1_000 - 3 * half + half);
  expect(await walletBalance(app.db, bob.id, "balance")).toBe(1_000 + 3 * half - half);
  const audit = await auditLedger(app.db);
  expect(audit.mismatchedWallets).toEqual([]);
  expect(audit.negativeWallets).toEqual([]);
  expect(audit.inWallets).toBe(audit.granted);
});
