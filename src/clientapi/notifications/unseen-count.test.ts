import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { quickPerson } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { waitFor } from "../../testing/wait";

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

// The counters are kept by triggers whoever writes (migration 20261204100000): after every kind
// of change the badge's count equals the groups counted afresh.
test("unseenCount follows new events, a group's new event, reads, the seen mark and removals", async () => {
  const me = await quickPerson(server);
  const fans = await Promise.all([1, 2, 3].map(() => quickPerson(server)));
  const db = server.app.db;
  const fresh = async () => {
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM notification_groups g
      WHERE g.recipient_id = ${me.user.id} AND g.read_at IS NULL AND g.updated_at > COALESCE(
        (SELECT c.seen_at FROM notification_counts c WHERE c.recipient_id = ${me.user.id}), 0)`.execute(db);
    return Number(rows[0]!.n);
  };
  const counted = async () => (await me.client.get("/api/social/notifications?limit=1")).body.data.unseenCount;
  /** the API's count once the notifications of the last step are in, checked against a fresh count */
  const expectUnseen = async (n: number) => {
    await waitFor(async () => (await fresh()) === n, 5_000, `${n} unseen groups`);
    expect(await counted()).toBe(n);
  };
  const step = () => server.clock.advance(1_000);
  const posts: string[] = [];
  for (let i = 0; i < 2; i++)
    posts.push((await me.client.post("/api/social/posts", { content: `post ${i}` })).body.data.post.id);
  step();
  await fans[0]!.client.post(`/api/social/posts/${posts[0]}/like`, {});
  await fans[0]!.client.post(`/api/social/users/${me.user.username}/follow`, {});
  await expectUnseen(2);
  step();
  await me.client.post("/api/social/notifications/seen", {});
  await expectUnseen(0);
  step();
  // another like of the first post: its (unread) group has a new event after the mark
  await fans[1]!.client.post(`/api/social/posts/${posts[0]}/like`, {});
  await fans[1]!.client.post(`/api/social/posts/${posts[1]}/like`, {});
  await expectUnseen(2);
  const list = (await me.client.get("/api/social/notifications")).body.data.notifications as {
    id: string;
    postId: string | null;
  }[];
  const second = list.find((n) => n.postId === posts[1])!;
  await me.client.post("/api/social/notifications/read", { ids: [second.id] });
  await expectUnseen(1);
  step();
  await fans[2]!.client.post(`/api/social/posts/${posts[1]}/like`, {});
  await expectUnseen(2);
  // the post goes, and its groups with it
  expect((await me.client.delete(`/api/social/posts/${posts[0]}`)).status).toBe(200);
  await expectUnseen(1);
  await me.client.post("/api/social/notifications/read", {});
  await expectUnseen(0);
});
