import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { commentsPage, cachedCommentViewsOf } from "../../domain/comments/service";
import { findVisiblePost } from "../../domain/posts/service";
import { quickPerson } from "../../testing/fixtures";
import { rerunMigrations } from "../../testing/migrations";
import { postIdAs } from "../../testing/posts";
import { startTestServer, type TestServer } from "../../testing/server";
import { fewestStatements, statementsDuring } from "../../testing/statements";
import { freshComments } from "../../testing/fresh-answers";

/*
 * Comment pages kept as text by (thread, comment_threads.version): every answer must be what
 * reading the page afresh for that reader gives, byte for byte, after any write by the API or
 * by SQL outside the app (as the CLI or another node would write).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

type Person = Awaited<ReturnType<typeof quickPerson>>;
const person = () => quickPerson(server);

async function commentAs(who: Person, postId: string, body: Record<string, unknown>): Promise<any> {
  const res = await who.client.post(`/api/social/posts/${postId}/comments`, body);
  expect(res.status).toBe(200);
  return res.body.data.comment;
}

const rowId = async (table: "posts" | "comments", cuid: string) =>
  (await server.app.db.selectFrom(table).select("id").where("cuid", "=", cuid).executeTakeFirstOrThrow()).id;

/** The answer WHO gets for PATH (a post's comments or a comment's replies, with QUERY), as text. */
async function answerText(who: Person, path: string, query = ""): Promise<string> {
  const res = await fetch(`${server.url}${path}${query}`, { headers: { cookie: who.client.cookieHeader() } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
  return res.text();
}

/** The page read afresh for WHO (nothing kept), serialized as the route would: its text, or the status of its error. */
async function freshText(who: Person, postId: string, replyTo: string | null, limit: number, cursor: string | null) {
  const [status, text] = await freshComments(server.app.db, who.user.id, postId, replyTo, limit, cursor);
  return status === 200 ? text : status;
}

/** Each reader's answer, read twice (the second from the kept page), is the fresh page's text. */
async function expectFresh(readers: Person[], postId: string, replyTo: string | null = null, limit = 20) {
  const path = replyTo ? `/api/social/comments/${replyTo}/replies` : `/api/social/posts/${postId}/comments`;
  for (const who of readers)
    for (let i = 0; i < 2; i++) {
      // every page of the thread, by its cursors
      let cursor: string | null = null;
      do {
        const query = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
        const text = await answerText(who, path, query);
        expect(text).toBe(`${await freshText(who, postId, replyTo, limit, cursor)}`);
        cursor = JSON.parse(text).data.pageInfo.nextCursor;
      } while (cursor);
    }
}

const contents = async (who: Person, path: string) =>
  JSON.parse(await answerText(who, path)).data.comments.map((c: any) => [
    c.content,
    c.likeCount,
    c.replyCount,
    c.liked,
  ]);

describe("kept comment pages", () => {
  test("a kept page is one statement, and the reader's likes are theirs", async () => {
    const author = await person();
    const liker = await person();
    const reader = await person();
    const postId = await postIdAs(author.client, "kept page");
    const first = await commentAs(author, postId, { content: "first" });
    await commentAs(liker, postId, { content: "second" });
    expect((await liker.client.post(`/api/social/comments/${first.id}/like`)).status).toBe(200);
    const path = `/api/social/posts/${postId}/comments`;
    for (const who of [author, liker, reader]) await who.client.get("/api/auth/me");
    // on SQLite the session stays kept between requests; PostgreSQL reads it on each (other nodes write unseen)
    const sessionRead = server.app.storage.engine === "sqlite" ? 0 : 1;
    const count = (who: Person, p = path) => fewestStatements(server.app.storage, () => who.client.get(p));
    // the first read keeps the page
    expect(await statementsDuring(server.app.storage, () => reader.client.get(path))).toBeGreaterThan(1 + sessionRead);
    // then a reader who liked none of the page's comments: the post, its thread's version and their marks
    expect(await count(reader)).toBe(1 + sessionRead);
    expect(await count(reader)).toBe(1 + sessionRead);
    expect(await count(author)).toBe(1 + sessionRead);
    // a reader who liked one: which of the page's comments they liked, one more
    expect(await count(liker)).toBe(2 + sessionRead);
    expect(await contents(liker, path)).toEqual([
      ["first", 1, 0, true],
      ["second", 0, 0, false],
    ]);
    expect(await contents(reader, path)).toEqual([
      ["first", 1, 0, false],
      ["second", 0, 0, false],
    ]);
    // replies the same way
    const reply = `/api/social/comments/${first.id}/replies`;
    await commentAs(reader, postId, { content: "a reply", replyToId: first.id });
    expect(await statementsDuring(server.app.storage, () => author.client.get(reply))).toBeGreaterThan(1 + sessionRead);
    expect(await count(author, reply)).toBe(1 + sessionRead);
    expect(await count(author, reply)).toBe(1 + sessionRead);
    expect(await contents(author, reply)).toEqual([["a reply", 0, 0, false]]);
  });

  test("kept pages follow every write by the API, each reader's likes and blocks", async () => {
    const [author, other, liker, reader] = [await person(), await person(), await person(), await person()];
    const postId = await postIdAs(author.client, "a thread");
    const readers = [liker, reader, author];
    await expectFresh(readers, postId);
    const root = await commentAs(author, postId, { content: "root" });
    await expectFresh(readers, postId);
    const second = await commentAs(other, postId, { content: 'quotes " and ,"liked":false, and ünïcode 🎉' });
    await commentAs(reader, postId, { content: "third" });
    await expectFresh(readers, postId);
    await expectFresh(readers, postId, null, 1);
    // likes: someone else's, then the reader's own (and taken back)
    expect((await other.client.post(`/api/social/comments/${root.id}/like`)).status).toBe(200);
    await expectFresh(readers, postId);
    expect((await liker.client.post(`/api/social/comments/${second.id}/like`)).status).toBe(200);
    await expectFresh(readers, postId);
    await expectFresh(readers, postId, null, 1);
    expect((await liker.client.post(`/api/social/comments/${second.id}/like`)).status).toBe(200);
    await expectFresh(readers, postId);
    // replies count on the post's page, and have pages of their own
    const reply = await commentAs(other, postId, { content: "a reply", replyToId: root.id });
    await commentAs(reader, postId, { content: "another reply", replyToId: root.id });
    await expectFresh(readers, postId);
    await expectFresh(readers, postId, root.id);
    await expectFresh(readers, postId, root.id, 1);
    expect((await liker.client.post(`/api/social/comments/${reply.id}/like`)).status).toBe(200);
    await expectFresh(readers, postId, root.id);
    await expectFresh(readers, postId);
    // a profile change of a commenter
    expect((await other.client.patch("/api/account/profile", { displayName: "Other, renamed" })).status).toBe(200);
    await expectFresh(readers, postId);
    await expectFresh(readers, postId, root.id);
    // a block hides the other's comments and replies from the blocker only; unblocking shows them again
    expect((await reader.client.post(`/api/social/users/${other.user.username}/block`)).status).toBe(200);
    expect((await contents(reader, `/api/social/posts/${postId}/comments`)).map((c: any) => c[0])).toEqual([
      "root",
      "third",
    ]);
    await expectFresh(readers, postId);
    await expectFresh(readers, postId, root.id);
    // a page read to be kept is read as everyone who hides nobody sees it, even for a reader who
    // blocked someone since the request learnt they hid nobody
    const db = server.app.db;
    const asEveryone = await commentsPage(
      db,
      cachedCommentViewsOf(server.app),
      reader.user.id,
      { post: await findVisiblePost(db, author.user.id, postId), replyTo: null },
      { cursor: null, limit: 20 },
      true,
    );
    expect(asEveryone.items.map((v) => [v.row.content, v.replyCount])).toEqual([
      ["root", 2],
      [second.content, 0],
      ["third", 0],
    ]);
    expect((await reader.client.post(`/api/social/users/${other.user.username}/block`)).status).toBe(200);
    await expectFresh(readers, postId);
    await expectFresh(readers, postId, root.id);
    // deletions: a reply, then a comment with its replies, then the post
    expect((await other.client.delete(`/api/social/comments/${reply.id}`)).status).toBe(200);
    await expectFresh(readers, postId);
    await expectFresh(readers, postId, root.id);
    expect((await author.client.delete(`/api/social/comments/${root.id}`)).status).toBe(200);
    await expectFresh(readers, postId);
    expect((await reader.client.get(`/api/social/comments/${root.id}/replies`)).status).toBe(404);
    expect((await author.client.delete(`/api/social/posts/${postId}`)).status).toBe(200);
    expect((await reader.client.get(`/api/social/posts/${postId}/comments`)).status).toBe(404);
  });

  test("kept pages follow writes made outside the app: comments, likes, profiles, deletions", async () => {
    const db = server.app.db;
    const [author, other, reader] = [await person(), await person(), await person()];
    const postId = await postIdAs(author.client, "written to by SQL");
    const root = await commentAs(author, postId, { content: "root" });
    const second = await commentAs(other, postId, { content: "second" });
    const reply = await commentAs(other, postId, { content: "reply", replyToId: root.id });
    const readers = [reader, author];
    const both = async () => {
      await expectFresh(readers, postId);
      await expectFresh(readers, postId, root.id);
    };
    await both();
    await sql`UPDATE comments SET content = 'edited outside' WHERE cuid = ${second.id}`.execute(db);
    await both();
    await sql`UPDATE comments SET content = 'reply edited outside' WHERE cuid = ${reply.id}`.execute(db);
    await both();
    const now = server.app.clock.now();
    await sql`INSERT INTO comment_likes (comment_id, user_id, created_at)
      VALUES (${await rowId("comments", root.id)}, ${reader.user.id}, ${now})`.execute(db);
    await both();
    await sql`INSERT INTO comments (cuid, post_id, author_id, content, media, created_at)
      VALUES ('outside-comment', ${await rowId("posts", postId)}, ${reader.user.id}, 'inserted outside', '[]', ${now + 1})`.execute(
      db,
    );
    await both();
    await sql`UPDATE users SET display_name = 'Renamed outside' WHERE id = ${other.user.id}`.execute(db);
    await both();
    await sql`UPDATE users SET avatar_url = '/files/elsewhere.png' WHERE id = ${author.user.id}`.execute(db);
    await both();
    // a deleted author's comments leave every page
    await sql`UPDATE users SET deleted_at = ${now} WHERE id = ${other.user.id}`.execute(db);
    await both();
    expect((await contents(reader, `/api/social/posts/${postId}/comments`)).map((c: any) => c[0])).toEqual([
      "root",
      "inserted outside",
    ]);
    await sql`UPDATE users SET deleted_at = NULL WHERE id = ${other.user.id}`.execute(db);
    await both();
    await sql`DELETE FROM comment_likes WHERE user_id = ${reader.user.id}`.execute(db);
    await both();
    await sql`DELETE FROM comments WHERE cuid = 'outside-comment'`.execute(db);
    await both();
    await sql`DELETE FROM comments WHERE cuid = ${reply.id}`.execute(db);
    await both();
  });

  test("a reader's answer follows every write that changes whether they may read it", async () => {
    const db = server.app.db;
    const [author, original, commenter, reader] = [await person(), await person(), await person(), await person()];
    const postId = await postIdAs(author.client, "access");
    const root = await commentAs(commenter, postId, { content: "root" });
    await commentAs(author, postId, { content: "a reply", replyToId: root.id });
    // a repost's comments are its own thread, seen only while its original and that one's author are
    const originalId = await postIdAs(original.client, "the original");
    const repost = await author.client.post(`/api/social/posts/${originalId}/repost`);
    expect(repost.status).toBe(200);
    const repostId = repost.body.data.repost.id;
    await commentAs(commenter, repostId, { content: "on the repost" });
    const paths = [
      `/api/social/posts/${postId}/comments`,
      `/api/social/comments/${root.id}/replies`,
      `/api/social/posts/${repostId}/comments`,
    ];
    /** Each path, read twice by the reader: what reading it afresh gives (a 404 included). */
    const expectAll = async (what: string, only = paths) => {
      for (const path of only) {
        const fresh = path.includes("/replies")
          ? await freshText(reader, postId, root.id, 20, null)
          : await freshText(reader, path.split("/")[4]!, null, 20, null);
        for (let i = 0; i < 2; i++) {
          const res = await fetch(`${server.url}${path}`, { headers: { cookie: reader.client.cookieHeader() } });
          const got = res.status === 200 ? await res.text() : res.status;
          expect([what, path, got]).toEqual([what, path, fresh]);
        }
      }
    };
    await expectAll("start");
    const now = server.app.clock.now();
    // the post's author, a repost's original author, the replied comment's author: each disabled, then back
    for (const [who, column] of [
      [author, "disabled_at"],
      [original, "disabled_at"],
      [commenter, "deleted_at"],
    ] as const) {
      await sql`UPDATE users SET ${sql.ref(column)} = ${now} WHERE id = ${who.user.id}`.execute(db);
      await expectAll(`${who.user.username} ${column}`);
      await sql`UPDATE users SET ${sql.ref(column)} = NULL WHERE id = ${who.user.id}`.execute(db);
      await expectAll(`${who.user.username} back`);
    }
    // blocks either way with the post's author, by the API and by SQL
    expect((await reader.client.post(`/api/social/users/${author.user.username}/block`)).status).toBe(200);
    await expectAll("the reader blocks the author");
    expect((await reader.client.post(`/api/social/users/${author.user.username}/block`)).status).toBe(200);
    await expectAll("and unblocks");
    await sql`INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (${original.user.id}, ${reader.user.id}, ${now})`.execute(
      db,
    );
    await expectAll("the original's author blocks the reader by SQL");
    await sql`DELETE FROM blocks WHERE blocker_id = ${original.user.id}`.execute(db);
    await expectAll("and unblocks by SQL");
    // the post's row: its public id changed by SQL (the old one names nothing), then back
    await sql`UPDATE posts SET cuid = ${`${postId}x`} WHERE cuid = ${postId}`.execute(db);
    await expectAll("the post's id changed", [paths[0]!]);
    await sql`UPDATE posts SET cuid = ${postId} WHERE cuid = ${`${postId}x`}`.execute(db);
    await expectAll("and back");
    // the original removed: the repost goes with it
    await sql`DELETE FROM posts WHERE cuid = ${originalId}`.execute(db);
    await expectAll("the original removed");
  });

  test("a thread's version rises with each change of what its pages show, and only then", async () => {
    const db = server.app.db;
    const [author, other] = [await person(), await person()];
    const postId = await postIdAs(author.client, "versions");
    const postRow = await rowId("posts", postId);
    const version = async (parent = 0) =>
      (
        await db
          .selectFrom("comment_threads")
          .select("version")
          .where("post_id", "=", postRow)
          .where("parent_id", "=", parent)
          .executeTakeFirst()
      )?.version;
    expect(await version()).toBeUndefined();
    const root = await commentAs(author, postId, { content: "root" });
    const rootRow = await rowId("comments", root.id);
    let last = await version();
    const rises = async (what: () => Promise<unknown>, parent = 0) => {
      const before = parent ? await version(parent) : last;
      await what();
      const now = await version(parent);
      expect(Number(now)).toBeGreaterThan(Number(before));
      if (!parent) last = now;
    };
    await rises(() => other.client.post(`/api/social/comments/${root.id}/like`));
    await rises(() => commentAs(other, postId, { content: "reply", replyToId: root.id }));
    const replyThread = await version(rootRow);
    expect(replyThread).toBeDefined();
    await rises(() => other.client.patch("/api/account/profile", { bio: "a new bio" }));
    await rises(() => sql`UPDATE users SET deleted_at = 1 WHERE id = ${other.user.id}`.execute(db));
    await rises(() => sql`UPDATE users SET deleted_at = NULL WHERE id = ${other.user.id}`.execute(db));
    await rises(() => sql`UPDATE comments SET media = '[]', content = 'x' WHERE id = ${rootRow}`.execute(db));
    // what a page does not show leaves it: the post's own likes, another account's changes
    await other.client.post(`/api/social/posts/${postId}/like`);
    await (await person()).client.patch("/api/account/profile", { displayName: "Somebody else" });
    expect(await version()).toBe(last);
    // a removed comment's replies thread goes with it, a removed post's threads with the post
    expect((await author.client.delete(`/api/social/comments/${root.id}`)).status).toBe(200);
    expect(await version(rootRow)).toBeUndefined();
    expect(await version()).toBeDefined();
    expect((await author.client.delete(`/api/social/posts/${postId}`)).status).toBe(200);
    expect(await version()).toBeUndefined();
  });

  test("the migration fills a version for every thread that has comments", async () => {
    const db = server.app.db;
    const [author, other] = [await person(), await person()];
    const postId = await postIdAs(author.client, "filled");
    const root = await commentAs(author, postId, { content: "root" });
    await commentAs(other, postId, { content: "reply", replyToId: root.id });
    const quiet = await postIdAs(author.client, "no comments");
    const threads = async () =>
      (
        await db
          .selectFrom("comment_threads")
          .select(["post_id", "parent_id"])
          .where("post_id", "in", [await rowId("posts", postId), await rowId("posts", quiet)])
          .orderBy("post_id")
          .orderBy("parent_id")
          .execute()
      ).map((r) => [Number(r.post_id), Number(r.parent_id)]);
    const before = await threads();
    expect(before).toEqual([
      [await rowId("posts", postId), 0],
      [await rowId("posts", postId), await rowId("comments", root.id)],
    ]);
    await rerunMigrations(db, ["20261125033000_comment_threads"]);
    expect(await threads()).toEqual(before);
    // and the triggers are back: a new comment on the quiet post makes its thread
    await commentAs(other, quiet, { content: "now one" });
    expect((await threads()).length).toBe(3);
    await expectFresh([author, other], quiet);
  });
});
