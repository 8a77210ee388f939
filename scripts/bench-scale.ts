/**
 * Scaling benchmark (not a test): CPU per request of the lists and searches a person opens
 * every day, at several data sizes, each beside the PK-SELECT reference (one bun:sqlite
 * primary-key SELECT behind Elysia) measured in the same run. Prints a markdown table.
 *
 *   bun scripts/bench-scale.ts [--sizes 10000,100000,1000000] [--seconds 3] [--only search]
 *
 * For each size a fresh data dir is migrated by the real server (startServer) in a child
 * process, SIZE rows are put straight into the database per list (prepared statements in large
 * transactions, as scripts/seed-feed.ts does: the triggers keep indexes and counters as a send
 * or a post would), then every PATH below is loaded with wrk; CPU per request is the server
 * process's CPU time over the requests answered. The ratio is the reference's CPU per request
 * over the path's (1: as cheap as one primary-key SELECT). A path is one small entry: a name
 * and a request; its data is seeded by seedLists. After the paths, /healthz and a feed page are
 * loaded on one connection each while the search box loads the server, for their p99. The
 * server's log (its stderr) says how long each list took to seed, and its CPU time. Needs wrk.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  arg,
  LIFTED_LIMITS,
  processCpuSeconds,
  requireWrk,
  runWrk,
  serveChild,
  spawnChild,
  startReferences,
  type ChildServer,
  type WrkRequest,
} from "./bench-lib";

const CHILD_FLAG = "--bench-scale-child";
/** Most people seeded (followers, likers, commenters): each is a user row with its search index. */
const MAX_PEOPLE = 100_000;
/** SQLite's page cache while seeding, in KiB (negative: a size, not a page count). */
const SEED_CACHE_KIB = -1_048_576;

/** What the seeded server tells the parent. */
interface Seeded {
  url: string;
  cookie: string;
  seedSeconds: number;
  /** the reader's chat (holding a tenth of the messages) and the history cursor of a message halfway through it */
  chat: string;
  middleCursor: string;
  /** the post every like, comment and notification is about */
  post: string;
  reader: string;
}

/** One measured path: its name and the request (on the seeded server) it makes. */
interface ScalePath {
  name: string;
  request(s: Seeded): WrkRequest;
}

const get = (s: Seeded, path: string): WrkRequest => ({ url: `${s.url}${path}`, headers: { cookie: s.cookie } });

const SEARCH_BOX: ScalePath = {
  name: "the search box: all lists",
  request: (s) => get(s, "/api/social/search?q=words&limit=5"),
};

const PATHS: ScalePath[] = [
  {
    name: "search messages, a term in every message",
    request: (s) => get(s, "/api/social/search?q=words&type=messages"),
  },
  { name: "search messages, a rare term", request: (s) => get(s, "/api/social/search?q=needle7&type=messages") },
  SEARCH_BOX,
  { name: "search posts, a term in every post", request: (s) => get(s, "/api/social/search?q=words&type=posts") },
  { name: "people, prefix", request: (s) => get(s, "/api/social/search?q=seed_&type=users") },
  { name: "hashtags, prefix", request: (s) => get(s, "/api/social/search?q=%23hash&type=hashtags") },
  { name: "chat history, newest page", request: (s) => get(s, `/api/social/messages/${s.chat}?limit=20`) },
  {
    name: "chat history, a page deep in it",
    request: (s) => get(s, `/api/social/messages/${s.chat}?limit=20&before=${s.middleCursor}`),
  },
  { name: "notifications page", request: (s) => get(s, "/api/social/notifications") },
  { name: "followers, page 1", request: (s) => get(s, `/api/social/users/${s.reader}/followers`) },
  { name: "following, page 1", request: (s) => get(s, `/api/social/users/${s.reader}/following`) },
  { name: "likers, page 1", request: (s) => get(s, `/api/social/posts/${s.post}/likes`) },
  { name: "bookmarks, page 1", request: (s) => get(s, "/api/social/bookmarks") },
  { name: "comments, page 1", request: (s) => get(s, `/api/social/posts/${s.post}/comments`) },
  { name: "a hashtag's posts, page 1", request: (s) => get(s, "/api/social/hashtags/hashtag/posts") },
];

/**
 * SIZE rows per list: posts (each with the word "words" and #hashtag), messages (a tenth in
 * the reader's chat, one in a thousand with a rare word), and, up to MAX_PEOPLE, people who
 * follow the reader and are followed by them, like and comment on one post and so notify
 * the reader; the reader bookmarks SIZE posts.
 */
async function seedLists(size: number): Promise<Seeded> {
  const { startServer } = await import("../src/main");
  const { makeUser } = await import("../src/testing/fixtures");
  const { TestClient } = await import("../src/testing/client");
  const { openPrivateChat } = await import("../src/domain/chats");
  const { seedLargeFeed, insertInBatches } = await import("./seed-feed");
  const { newCuid } = await import("../src/lib/ids");
  const { encodeCursor } = await import("../src/lib/paging");
  const { catchUpMessageIndex } = await import("../src/domain/search/message-index");
  const server = await startServer({ dataDir: process.env.BENCH_DATA_DIR!, overrides: { ...LIFTED_LIMITS } });
  const { app } = server;
  const sqlite = app.storage.sqlite!;
  // the seed's inserts land all over large indexes (random cuids, one list's rows per post):
  // with SQLite's default page cache of a few MB each lands on a page read back from the file
  // system; the server's setting is restored once seeded
  const cacheSize = sqlite.query<{ cache_size: number }, []>("PRAGMA cache_size").get()!.cache_size;
  sqlite.exec(`PRAGMA cache_size = ${SEED_CACHE_KIB}`);
  const reader = await makeUser(app, { username: "bench_reader" });
  const friend = await makeUser(app, { username: "bench_friend" });
  const t0 = performance.now();
  let lap = t0;
  let lapCpu = process.cpuUsage();
  /** Which list took how long to seed, and the CPU time it took (a busy machine stretches the first only). */
  const seeded = (what: string) => {
    const now = performance.now();
    const cpu = process.cpuUsage(lapCpu);
    console.error(
      `seeded ${what} in ${((now - lap) / 1000).toFixed(1)} s (CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s)`,
    );
    lap = now;
    lapCpu = process.cpuUsage();
  };
  const authors = seedLargeFeed(sqlite, {
    posts: size,
    authors: Math.max(40, Math.floor(size / 50)),
    viewerId: reader.id,
    follows: 100,
    now: Date.now() - 60_000,
  });
  sqlite.run("INSERT INTO posts_fts (rowid, body) SELECT id, content FROM posts");
  seeded("posts");
  // ten chats of other people beside the reader's: the reader's holds every tenth message
  const chats = [(await openPrivateChat(app, reader.id, friend.id)).id];
  for (let i = 0; i < 10; i++) chats.push((await openPrivateChat(app, authors[2 * i]!, authors[2 * i + 1]!)).id);
  const senders = new Map(chats.map((id, i) => [id, i === 0 ? friend.id : authors[2 * (i - 1)]!]));
  const insert = sqlite.prepare(
    "INSERT INTO messages (cuid, conversation_id, seq, sender_id, kind, content, created_at) VALUES (?, ?, ?, ?, 'user', ?, ?)",
  );
  const seqs = new Map<number, number>();
  const now = Date.now() - 60_000;
  for (let start = 0; start < size; start += 50_000) {
    sqlite.transaction(() => {
      for (let i = start; i < Math.min(size, start + 50_000); i++) {
        const chat = i % 10 === 0 ? chats[0]! : chats[1 + (i % 10)]!;
        const seq = (seqs.get(chat) ?? 0) + 1;
        seqs.set(chat, seq);
        const rare = i % 1000 === 0 ? ` needle${i % 10}` : "";
        insert.run(`bm${i}`, chat, seq, senders.get(chat)!, `Message ${i} with a few words${rare}`, now - (size - i));
      }
    })();
  }
  seeded("messages");
  const people = Math.min(size, MAX_PEOPLE);
  const insertUser = sqlite.prepare(
    "INSERT INTO users (cuid, email, username, username_lower, display_name, created_at, updated_at) VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?5) RETURNING id",
  );
  const fans: number[] = [];
  insertInBatches(sqlite, people, (i) => {
    const row = insertUser.get(newCuid(), `fan${i}@example.test`, `fan${i}`, `Fan ${i}`, now) as { id: number };
    fans.push(row.id);
  });
  const post = sqlite
    .query<{ id: number; cuid: string }, []>("SELECT id, cuid FROM posts ORDER BY id DESC LIMIT 1")
    .get()!;
  const pair = (table: string, a: string, b: string) =>
    sqlite.prepare(`INSERT INTO ${table} (${a}, ${b}, created_at) VALUES (?, ?, ?)`);
  const follow = pair("follows", "follower_id", "followee_id");
  const like = pair("post_likes", "post_id", "user_id");
  const bookmark = pair("post_bookmarks", "post_id", "user_id");
  const comment = sqlite.prepare(
    "INSERT INTO comments (cuid, post_id, author_id, content, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  // each notification a like of another of the reader's posts: a group of its own, as the
  // domain stores it (notification_groups), so the page reads SIZE unread groups
  const group = sqlite.prepare(
    "INSERT INTO notification_groups (cuid, recipient_id, type, group_key, post_id, updated_at, created_at) VALUES (?1, ?2, 'like', ?3, ?4, ?5, ?5) RETURNING id",
  );
  const notify = sqlite.prepare(
    "INSERT INTO notifications (cuid, recipient_id, actor_id, type, post_id, group_id, created_at) VALUES (?, ?, ?, 'like', ?, ?, ?)",
  );
  seeded("people");
  insertInBatches(sqlite, people, (i) => {
    follow.run(fans[i]!, reader.id, now + i);
    follow.run(reader.id, fans[i]!, now + i);
    like.run(post.id, fans[i]!, now + i);
  });
  seeded("follows and likes");
  insertInBatches(sqlite, size, (i) => {
    bookmark.run(i + 1, reader.id, now + i);
    comment.run(newCuid(), post.id, fans[i % people]!, `Comment ${i}`, now + i);
    const liked = i + 1;
    const { id: groupId } = group.get(newCuid(), reader.id, `like:${liked}:`, liked, now + i) as { id: number };
    notify.run(newCuid(), reader.id, fans[i % people]!, liked, groupId, now + i);
  });
  seeded("bookmarks, comments and notifications");
  const hashtag = sqlite
    .query<{ id: number }, [number]>("INSERT INTO hashtags (tag, created_at) VALUES ('hashtag', ?) RETURNING id")
    .get(now)!;
  sqlite.run("INSERT INTO post_hashtags (post_id, hashtag_id) SELECT id, ? FROM posts", [hashtag.id]);
  seeded("a hashtag's posts");
  // the messages' index trails the table (message-index.ts): caught up here, not by the
  // serving process's indexer while the paths are measured
  await catchUpMessageIndex(app.storage);
  seeded("the messages' search index");
  sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.run("ANALYZE");
  sqlite.exec(`PRAGMA cache_size = ${cacheSize}`);
  seeded("statistics");
  const seedSeconds = (performance.now() - t0) / 1000;
  const client = new TestClient(server.url);
  if ((await client.login(reader.email!, reader.password)).status !== 200) throw new Error("login failed");
  const chat = await app.db
    .selectFrom("conversations")
    .select(["cuid", "last_seq"])
    .where("id", "=", chats[0]!)
    .executeTakeFirstOrThrow();
  return {
    url: server.url,
    cookie: client.cookieHeader(),
    seedSeconds,
    chat: chat.cuid,
    middleCursor: encodeCursor({ t: Math.max(1, Math.floor(Number(chat.last_seq) / 2)), id: 0 }),
    post: post.cuid,
    reader: reader.username,
  };
}

if (process.argv.includes(CHILD_FLAG)) {
  const seeded = await seedLists(Number(process.env.BENCH_SIZE));
  serveChild(seeded, async () => {});
} else {
  const wrk = requireWrk();
  const sizes = arg("sizes", "10000,100000").split(",").map(Number);
  const seconds = Number(arg("seconds", "3"));
  const only = arg("only", "");
  const paths = PATHS.filter((p) => !only || only.split(",").some((w) => p.name.includes(w)));
  const opts = { seconds, threads: 1, connections: 4 };
  /** CPU ms per request of REQ on the process PID. */
  const cpuPerRequest = async (pid: number, req: WrkRequest) => {
    const before = processCpuSeconds(pid);
    const result = await runWrk(wrk, req, opts);
    if (result.non2xx || result.socketErrors)
      console.error(`${req.url}: ${result.non2xx} non-2xx, ${result.socketErrors} errors`);
    return { ms: ((processCpuSeconds(pid) - before) * 1000) / Math.max(1, result.requests), p99Ms: result.p99Ms };
  };
  const references = await startReferences();
  const table: string[][] = [];
  try {
    for (const size of sizes) {
      const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bench-scale-"));
      let server: ChildServer<Seeded> | null = null;
      try {
        server = await spawnChild<Seeded>(import.meta.path, CHILD_FLAG, {
          env: { BENCH_SIZE: String(size), BENCH_DATA_DIR: dataDir },
          timeoutMs: 3_600_000,
          stderrFile: join(tmpdir(), "socialctl-bench-scale-server.log"),
        });
        console.error(`${size}: seeded in ${server.ready.seedSeconds.toFixed(1)} s`);
        const reference = await cpuPerRequest(references.pid, { url: `${references.ready.url}/select` });
        for (const p of paths) {
          const measured = await cpuPerRequest(server.pid, p.request(server.ready));
          table.push([
            p.name,
            String(size),
            measured.ms.toFixed(3),
            (reference.ms / measured.ms).toFixed(2),
            measured.p99Ms.toFixed(1),
          ]);
        }
        // other requests while the search box loads the server (its 4 connections searching
        // without a pause): the latency of /healthz and of a feed page, one at a time
        for (const [name, req] of [
          ["/healthz while searches run", { url: `${server.ready.url}/healthz` }],
          ["a feed page while searches run", get(server.ready, "/api/social/feed?limit=20")],
        ] as const) {
          const search = runWrk(wrk, SEARCH_BOX.request(server.ready), opts);
          const other = await runWrk(wrk, req, { ...opts, connections: 1 });
          await search;
          table.push([name, String(size), "", "", other.p99Ms.toFixed(1)]);
        }
      } finally {
        await server?.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await references.stop();
  }
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log("| path | rows per list | CPU ms per request | ratio to PK SELECT | p99 ms |\n|---|---:|---:|---:|---:|");
  for (const row of table) console.log(`| ${row.join(" | ")} |`);
}
