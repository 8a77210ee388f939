import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { sql } from "kysely";
import { startTestServer, type TestServer } from "../../testing/server";
import { insertPeople } from "../../testing/fixtures";
import { rerunMigrations } from "../../testing/migrations";
import { AppError } from "../../lib/errors";
import { decodeCursor } from "../../lib/paging";
import { deleteAccount } from "../account/delete";
import { toggleBlock, toggleFollow, toggleMute } from "../relations/actions";
import { feedPage } from "./feed";
import { cachedPostViewsOf } from "./view";
import { createPost, deletePost, toggleRepost } from "./service";

/**
 * Property: after any mix of posts, reposts, post deletions, follows, unfollows, mutes,
 * unmutes, blocks, account removals and disabled accounts, feed_entries holds exactly the
 * reader's own posts and the posts of followed, unmuted accounts for each reader, and the following feed, walked page by
 * page, shows what the rule says: the reader's own posts and those of followed accounts,
 * newest first, without hidden (blocked either way, muted, deleted or disabled) authors and
 * reposts of them, each post once.
 */

const PASSWORD = "feed entries property";
let server: TestServer;
let passwordHash: string;

beforeAll(async () => {
  server = await startTestServer({ "limits.followsPerHour": 1_000_000, "limits.postsPerHour": 1_000_000 });
  passwordHash = await Bun.password.hash(PASSWORD, { algorithm: "bcrypt", cost: 4 });
});
afterAll(() => server.stop());

const makePeople = (n: number) => insertPeople(server.app, n, passwordHash);

/** Rows of feed_entries that differ from following and muting as they stand: empty when all agree. */
async function entryMismatches(): Promise<unknown[]> {
  const { rows } = await sql<{ side: string; owner_id: number; post_id: number }>`
    WITH expected AS (
      SELECT f.follower_id AS owner_id, p.id AS post_id, p.author_id, p.repost_of_id, p.created_at
      FROM follows f JOIN posts p ON p.author_id = f.followee_id
      WHERE f.follower_id <> f.followee_id
        AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.muter_id = f.follower_id AND m.muted_id = f.followee_id)
      UNION ALL
      SELECT p.author_id, p.id, p.author_id, p.repost_of_id, p.created_at FROM posts p)
    SELECT 'missing' AS side, e.owner_id, e.post_id FROM expected e
      WHERE NOT EXISTS (SELECT 1 FROM feed_entries t WHERE t.owner_id = e.owner_id AND t.post_id = e.post_id
        AND t.author_id = e.author_id AND t.created_at = e.created_at
        AND (t.repost_of_id = e.repost_of_id OR (t.repost_of_id IS NULL AND e.repost_of_id IS NULL)))
    UNION ALL
    SELECT 'extra' AS side, t.owner_id, t.post_id FROM feed_entries t
      WHERE NOT EXISTS (SELECT 1 FROM expected e WHERE e.owner_id = t.owner_id AND e.post_id = t.post_id)`.execute(
    server.app.db,
  );
  return rows;
}

/** The following feed of VIEWER by its rule, computed from the tables in JavaScript. */
async function expectedFollowing(viewer: number): Promise<string[]> {
  const db = server.app.db;
  const posts = await db
    .selectFrom("posts")
    .select(["id", "cuid", "author_id", "repost_of_id", "created_at"])
    .execute();
  const users = new Map(
    (await db.selectFrom("users").select(["id", "deleted_at", "disabled_at"]).execute()).map((u) => [u.id, u]),
  );
  const followed = new Set(
    (await db.selectFrom("follows").select("followee_id").where("follower_id", "=", viewer).execute()).map(
      (f) => f.followee_id,
    ),
  );
  const blocks = await db.selectFrom("blocks").select(["blocker_id", "blocked_id"]).execute();
  const mutes = await db.selectFrom("mutes").select("muted_id").where("muter_id", "=", viewer).execute();
  const hidden = new Set([
    ...blocks.filter((b) => b.blocker_id === viewer).map((b) => b.blocked_id),
    ...blocks.filter((b) => b.blocked_id === viewer).map((b) => b.blocker_id),
    ...mutes.map((m) => m.muted_id),
  ]);
  const shown = (author: number) => {
    const u = users.get(author);
    return !!u && u.deleted_at === null && u.disabled_at === null && !hidden.has(author);
  };
  const byId = new Map(posts.map((p) => [p.id, p]));
  return posts
    .filter((p) => p.author_id === viewer || followed.has(p.author_id))
    .filter((p) => shown(p.author_id))
    .filter((p) => p.repost_of_id === null || (byId.has(p.repost_of_id) && shown(byId.get(p.repost_of_id)!.author_id)))
    .sort((a, b) => b.created_at - a.created_at || b.id - a.id)
    .map((p) => p.cuid);
}

/** VIEWER's following feed walked in pages of LIMIT (bounded), as cuids. */
async function walkFollowing(viewer: number, limit: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page = await feedPage(server.app.db, cachedPostViewsOf(server.app), viewer, {
      cursor: decodeCursor(cursor),
      limit,
      following: true,
    });
    out.push(...page.items.map((v) => v.row.cuid));
    cursor = page.nextCursor;
    if (!cursor) return out;
  }
  throw new Error("too many pages");
}

type Op =
  | { kind: "post"; who: number }
  | { kind: "repost" | "deletePost"; who: number; post: number }
  | { kind: "follow" | "block" | "mute"; who: number; whom: number }
  | { kind: "removeAccount" | "disable"; who: number };

const PEOPLE = 5;
const person = fc.integer({ min: 0, max: PEOPLE - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("post"), who: person }), weight: 4 },
  {
    arbitrary: fc.record({ kind: fc.constantFrom("repost", "deletePost"), who: person, post: fc.nat({ max: 30 }) }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constantFrom("follow", "block", "mute"), who: person, whom: person }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constantFrom("removeAccount", "disable"), who: person }), weight: 1 },
) as fc.Arbitrary<Op>;

test("feed_entries and the following feed follow every write", async () => {
  const app = server.app;
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), async (ops) => {
      const people = await makePeople(PEOPLE);
      const posts: string[] = [];
      for (const p of people.slice(0, 3))
        posts.push((await createPost(app, p, { content: `post of ${p.username}` })).post.cuid);
      const removed = new Set<number>();
      for (const o of ops) {
        if (removed.has(o.who)) continue;
        const who = people[o.who]!;
        try {
          if (o.kind === "post") posts.push((await createPost(app, who, { content: "a post" })).post.cuid);
          else if (o.kind === "repost") {
            const made = await toggleRepost(app, who, posts[o.post % posts.length]!);
            if (made.repost) posts.push(made.repost.cuid);
          } else if (o.kind === "deletePost") await deletePost(app, who, posts[o.post % posts.length]!);
          else if (o.kind === "removeAccount") {
            await deleteAccount(app, who, PASSWORD);
            removed.add(o.who);
          } else if (o.kind === "disable") {
            const row = await app.db
              .selectFrom("users")
              .select("disabled_at")
              .where("id", "=", who.id)
              .executeTakeFirstOrThrow();
            await app.db
              .updateTable("users")
              .set({ disabled_at: row.disabled_at === null ? app.clock.now() : null })
              .where("id", "=", who.id)
              .execute();
          } else if (o.kind === "follow" || o.kind === "block" || o.kind === "mute") {
            if (o.who === o.whom) continue;
            const whom = people[o.whom]!.id;
            if (o.kind === "follow") await toggleFollow(app, who.id, whom);
            else if (o.kind === "block") await toggleBlock(app, who.id, whom);
            else await toggleMute(app, who.id, whom);
          }
        } catch (err) {
          // refusals (a block, a deleted account or post, someone else's post) change nothing
          if (!(err instanceof AppError)) throw err;
        }
      }
      expect(await entryMismatches()).toEqual([]);
      for (const [i, p] of people.entries()) {
        // a removed or disabled account is signed out: it reads no feed
        const fresh = await app.db.selectFrom("users").select("disabled_at").where("id", "=", p.id).executeTakeFirst();
        if (removed.has(i) || fresh?.disabled_at !== null) continue;
        const expected = await expectedFollowing(p.id);
        expect(await walkFollowing(p.id, 2)).toEqual(expected);
        expect(await walkFollowing(p.id, 20)).toEqual(expected);
      }
    }),
    { numRuns: 20 },
  );
}, 240_000);

test("the migrations fill feed_entries from existing follows and posts, the readers' own posts included", async () => {
  const app = server.app;
  const [reader, followed, muted] = await makePeople(3);
  for (const p of [followed!, muted!]) await createPost(app, p, { content: "before the migration" });
  const own = await createPost(app, reader!, { content: "mine" });
  await toggleFollow(app, reader!.id, followed!.id);
  await toggleFollow(app, reader!.id, muted!.id);
  await toggleMute(app, reader!.id, muted!.id);
  await rerunMigrations(server.app.db, ["20261124193000_feed_entries", "20261125032000_feed_entries_own_posts"]);
  expect(await entryMismatches()).toEqual([]);
  const rows = await app.db
    .selectFrom("feed_entries")
    .select(["author_id", "post_id"])
    .where("owner_id", "=", reader!.id)
    .orderBy("author_id")
    .execute();
  expect(rows.map((r) => r.author_id)).toEqual([reader!.id, followed!.id]);
  expect(rows[0]!.post_id).toBe(own.post.id);

  // without the own-posts migration the reader's own posts are not entries; back up, they are again
  const { migrations } = await import("../../db/migrations");
  await app.db.transaction().execute((tx) => migrations["20261125032000_feed_entries_own_posts"]!.down!(tx));
  const withoutOwn = await app.db
    .selectFrom("feed_entries")
    .select("post_id")
    .where("owner_id", "=", reader!.id)
    .execute();
  expect(withoutOwn.map((r) => r.post_id)).not.toContain(own.post.id);
  await app.db.transaction().execute((tx) => migrations["20261125032000_feed_entries_own_posts"]!.up(tx));
  expect(await entryMismatches()).toEqual([]);
});

test("an account that follows or mutes itself by SQL keeps its own posts in its following feed", async () => {
  const app = server.app;
  const [reader] = await makePeople(1);
  const { post } = await createPost(app, reader!, { content: "still mine" });
  const following = async () =>
    (await feedPage(app.db, cachedPostViewsOf(app), reader!.id, { cursor: null, limit: 5, following: true })).items.map(
      (v) => v.row.cuid,
    );
  expect(await following()).toEqual([post.cuid]);
  // the app refuses both; the CLI's SQL or another tool might not
  await sql`INSERT INTO follows (follower_id, followee_id, created_at) VALUES (${reader!.id}, ${reader!.id}, 1)`.execute(
    app.db,
  );
  await sql`DELETE FROM follows WHERE follower_id = ${reader!.id}`.execute(app.db);
  await sql`INSERT INTO mutes (muter_id, muted_id, created_at) VALUES (${reader!.id}, ${reader!.id}, 1)`.execute(
    app.db,
  );
  await sql`DELETE FROM mutes WHERE muter_id = ${reader!.id}`.execute(app.db);
  expect(await entryMismatches()).toEqual([]);
  expect(await following()).toEqual([post.cuid]);
});
