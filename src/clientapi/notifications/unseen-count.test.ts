import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { quickPerson } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

// The badge's count reads no further than what a badge shows, however much is unseen; the
// unread count is the kept counter, exact at any size.
test("unseenCount stops counting at 1,000 unseen groups; unreadCount stays exact", async () => {
  const { user, client } = await quickPerson(server);
  const groups = 1_005;
  // groups straight into the table (no events in them: only the counts are read here); the triggers keep the unread counter
  await sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${groups})
    INSERT INTO notification_groups (cuid, recipient_id, type, group_key, updated_at, created_at)
    SELECT 'unseen-' || CAST(i AS text), CAST(${user.id} AS integer), 'mention', 'n:unseen-' || CAST(i AS text),
      CAST(${server.clock.now()} AS bigint) - i, CAST(${server.clock.now()} AS bigint) - i
    FROM n`.execute(server.app.db);
  const res = await client.get("/api/social/notifications?limit=5");
  expect(res.status).toBe(200);
  expect(res.body.data.unreadCount).toBe(groups);
  expect(res.body.data.unseenCount).toBe(1_000);
  // once opened, nothing is unseen until the next event
  const seen = await client.post("/api/social/notifications/seen", {});
  expect(seen.body.data).toMatchObject({ unreadCount: groups, unseenCount: 0 });
});
