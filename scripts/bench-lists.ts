/**
 * The lists a person opens every day, at a size (not a test): CPU per request of a first page
 * and of a page deep in the list, for followers, likers of a post, bookmarks, a hashtag's
 * posts, a post's comments, chat history and notifications, each list seeded with ROWS rows,
 * beside the PK-SELECT reference (Elysia answering one bun:sqlite primary-key SELECT) measured
 * the same way in the same process and run. Requests are sequential over loopback, so the CPU
 * counted is the process's (server and client alike, for the reference too).
 *
 *   bun scripts/bench-lists.ts [--rows 100000] [--requests 300] [--tree /path/to/another/checkout]
 *
 * --tree measures another checkout's source (an A/B of two trees); the seeding is plain SQL
 * both schemas take. The server is `startTestServer` (SQLite in a temporary data dir).
 * Bounded: at most 1,000,000 rows per list and 5,000 requests per path.
 */
import { Database } from "bun:sqlite";
import { Elysia } from "elysia";
import { resolve } from "node:path";
import { arg, LIFTED_LIMITS } from "./bench-lib";

const tree = resolve(arg("tree", resolve(import.meta.dir, "..")));
const ROWS = Math.min(1_000_000, Math.max(100, Number(arg("rows", "100000")) || 100_000));
const REQUESTS = Math.min(5_000, Math.max(20, Number(arg("requests", "300")) || 300));

const { startTestServer } = await import(`${tree}/src/testing/server`);
const { quickPerson } = await import(`${tree}/src/testing/fixtures`);

const server = await startTestServer(LIFTED_LIMITS);
const sqlite: Database = server.app.storage.sqlite;
const now = Date.now();
const columnsOf = (table: string) =>
  new Set((sqlite.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));

/** Runs FN for i = 0 … ROWS - 1 in one transaction. */
function seed(fn: (i: number) => void): void {
  sqlite.transaction(() => {
    for (let i = 0; i < ROWS; i++) fn(i);
  })();
}

try {
  const me = await quickPerson(server);
  const meId: number = me.user.id;
  const seedStart = performance.now();

  // ROWS accounts: followers of mine, likers of my post
  const userInsert = sqlite.prepare(
    `INSERT INTO users (cuid, email, username, username_lower, display_name, email_verified_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const firstUser = Number((sqlite.query("SELECT coalesce(max(id), 0) + 1 AS n FROM users").get() as { n: number }).n);
  seed((i) => {
    const name = `bench${i}`;
    userInsert.run(`benchuser${i}`, `${name}@example.test`, name, name, name, now, now, now);
  });
  const userId = (i: number) => firstUser + i;

  const followInsert = sqlite.prepare("INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)");
  seed((i) => followInsert.run(userId(i), meId, now - ROWS + i));

  const postInsert = sqlite.prepare("INSERT INTO posts (cuid, author_id, content, created_at) VALUES (?, ?, ?, ?)");
  postInsert.run("bench-liked", meId, "liked by everyone", now);
  const likedPost = (sqlite.query("SELECT id FROM posts WHERE cuid = 'bench-liked'").get() as { id: number }).id;
  const likeInsert = sqlite.prepare("INSERT INTO post_likes (post_id, user_id, created_at) VALUES (?, ?, ?)");
  seed((i) => likeInsert.run(likedPost, userId(i), now - ROWS + i));

  const commentInsert = sqlite.prepare(
    "INSERT INTO comments (cuid, post_id, author_id, content, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  seed((i) => commentInsert.run(`benchcomment${i}`, likedPost, userId(i % 1000), `comment ${i}`, now - ROWS + i));

  // ROWS posts by others, each bookmarked by me and tagged #bench
  sqlite.run("INSERT INTO hashtags (tag, created_at) VALUES ('bench', ?)", [now]);
  const tagId = (sqlite.query("SELECT id FROM hashtags WHERE tag = 'bench'").get() as { id: number }).id;
  const withPostTime = columnsOf("post_hashtags").has("post_created_at");
  const tagInsert = sqlite.prepare(
    withPostTime
      ? "INSERT INTO post_hashtags (post_id, hashtag_id, post_created_at) VALUES (?, ?, ?)"
      : "INSERT INTO post_hashtags (post_id, hashtag_id) VALUES (?, ?)",
  );
  const bookmarkInsert = sqlite.prepare("INSERT INTO post_bookmarks (post_id, user_id, created_at) VALUES (?, ?, ?)");
  seed((i) => {
    const at = now - ROWS + i;
    const id = Number(postInsert.run(`benchpost${i}`, userId(i % 1000), `post ${i} #bench`, at).lastInsertRowid);
    if (withPostTime) tagInsert.run(id, tagId, at);
    else tagInsert.run(id, tagId);
    bookmarkInsert.run(id, meId, at);
  });

  // a chat of ROWS messages
  const other = await quickPerson(server);
  const opened = await me.client.post(`/api/social/users/${other.user.username}/message`, {});
  const cid = opened.body.data.conversationId as string;
  const conversationId = (sqlite.query("SELECT id FROM conversations WHERE cuid = ?").get(cid) as { id: number }).id;
  const messageInsert = sqlite.prepare(
    "INSERT INTO messages (cuid, conversation_id, seq, sender_id, content, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  seed((i) => messageInsert.run(`benchmsg${i}`, conversationId, i + 1, other.user.id, `message ${i}`, now - ROWS + i));

  // ROWS unread notifications of mine (mentions: one each), in groups of one where the schema has groups
  const notificationInsert = sqlite.prepare(
    "INSERT INTO notifications (cuid, recipient_id, actor_id, type, created_at) VALUES (?, ?, ?, 'mention', ?)",
  );
  seed((i) => notificationInsert.run(`benchnote${i}`, meId, userId(i), now - ROWS + i));
  if (columnsOf("notifications").has("group_id")) {
    sqlite.run(
      `INSERT INTO notification_groups
        (cuid, recipient_id, type, group_key, actor_count, updated_at, created_at)
      SELECT cuid, recipient_id, type, 'n:' || cuid, 1, created_at, created_at FROM notifications WHERE recipient_id = ?`,
      [meId],
    );
    sqlite.run(
      "UPDATE notifications SET group_id = (SELECT g.id FROM notification_groups g WHERE g.cuid = notifications.cuid) WHERE recipient_id = ?",
      [meId],
    );
  }
  sqlite.run("ANALYZE");
  console.log(`seeded ${ROWS} rows per list in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (${tree})`);

  // the reference: Elysia answering one primary-key SELECT of a small table
  const refDb = new Database(":memory:");
  refDb.run("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
  for (let i = 1; i <= 1000; i++) refDb.run("INSERT INTO items (id, name) VALUES (?, ?)", [i, `item ${i}`]);
  const byId = refDb.prepare("SELECT id, name FROM items WHERE id = ?");
  const ref = new Elysia().get("/items/:id", ({ params }) => byId.get(Number(params.id))).listen(0);
  const refUrl = `http://127.0.0.1:${ref.server!.port}`;

  /** CPU (ms) per request of GET URL, after warming up; the answer must be 200. */
  async function cpuPerRequest(url: string, headers: Record<string, string>): Promise<number> {
    for (let i = 0; i < 20; i++) {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    const before = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) await (await fetch(url, { headers })).arrayBuffer();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / REQUESTS;
  }

  const headers: Record<string, string> = { cookie: me.client.cookieHeader() };
  /** A cursor halfway down a list, reached by paging through it (100 a page). */
  const deepCursor = async (path: string, key: (data: any) => string | null): Promise<string> => {
    const sep = path.includes("?") ? "&" : "?";
    const res = await fetch(`${server.url}${path}${sep}limit=100`, { headers });
    let data = ((await res.json()) as any).data;
    // hop by the largest page until halfway
    for (let seen = 100; seen < ROWS / 2; seen += 100) {
      const c = key(data);
      if (!c) break;
      const param = path.includes("/messages/") ? "before" : "cursor";
      const next = await fetch(`${server.url}${path}${sep}limit=100&${param}=${c}`, { headers });
      data = ((await next.json()) as any).data;
    }
    return key(data)!;
  };

  const paths: { name: string; path: string; deep?: { param: string; key: (data: any) => string | null } }[] = [
    { name: "followers", path: `/api/social/users/${me.user.username}/followers` },
    { name: "likers of a post", path: "/api/social/posts/bench-liked/likes" },
    { name: "bookmarks", path: "/api/social/bookmarks" },
    { name: "a hashtag's posts", path: "/api/social/hashtags/bench/posts" },
    { name: "a post's comments", path: "/api/social/posts/bench-liked/comments" },
    { name: "chat history", path: `/api/social/messages/${cid}` },
    { name: "notifications (all unread)", path: "/api/social/notifications" },
  ];
  const refMs = await cpuPerRequest(`${refUrl}/items/7`, {});
  const rows: string[] = [];
  for (const { name, path } of paths) {
    const isChat = path.includes("/messages/");
    const key = (d: any) => (isChat ? d.pageInfo.oldestCursor : d.pageInfo.nextCursor);
    const first = await cpuPerRequest(`${server.url}${path}`, headers);
    const cursor = await deepCursor(path, key);
    const deep = await cpuPerRequest(`${server.url}${path}?${isChat ? "before" : "cursor"}=${cursor}`, headers);
    rows.push(
      `| ${name} | ${first.toFixed(3)} ms | ${(refMs / first).toFixed(2)}x | ${deep.toFixed(3)} ms | ${(refMs / deep).toFixed(2)}x |`,
    );
  }
  console.log(`\nPK-SELECT reference: ${refMs.toFixed(3)} ms CPU per request; ${ROWS} rows per list\n`);
  console.log("| list | first page CPU | ratio to ref | deep page CPU | ratio to ref |");
  console.log("|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  ref.stop();
} finally {
  await server.stop();
}
