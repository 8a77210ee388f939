import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { sql } from "kysely";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { fewestStatements } from "../../testing/statements";
import { testsOnPostgres } from "../../testing/postgres";
import { postIdAs } from "../../testing/posts";
import { queryRow } from "../../testing/sql";
import { feedPage } from "../../domain/posts/feed";
import { dbPath } from "../../config/layout";
import { feedQuery, freshFeed, nothingKeptOfPosts, type FeedRequest } from "../../testing/fresh-answers";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const sqliteOnly = test.skipIf(testsOnPostgres());
/**
 * The statements of a kept answer: none on SQLite; on PostgreSQL the session and the stamp, read
 * on each request (other nodes write unseen).
 */
const keptCost = () => (testsOnPostgres() ? 2 : 0);
type Person = Awaited<ReturnType<typeof quickPerson>>;

/** READER's answer over HTTP: status and body text. */
async function served(reader: Person, r: FeedRequest): Promise<[number, string]> {
  const res = await fetch(`${server.url}/api/social/feed?${feedQuery(r)}`, {
    headers: { cookie: reader.client.cookieHeader() },
  });
  return [res.status, await res.text()];
}

/** READER's page R, read twice (the second kept), equals the page made afresh; that page. */
async function expectExactPage(reader: Person, r: FeedRequest, what: string) {
  const want = await freshFeed(server.app.db, reader.user.id, r);
  for (let i = 0; i < 2; i++) {
    const [status, text] = await served(reader, r);
    expect([what, r.following, i, status, text]).toEqual([what, r.following, i, 200, want.text]);
  }
  return want;
}

/**
 * Each reader's first two pages of both lists, each read twice (the second kept), equal the
 * pages made afresh, byte for byte.
 */
async function expectExact(readers: Person[], what: string): Promise<void> {
  for (const reader of readers)
    for (const following of [true, false]) {
      let r: FeedRequest | null = { following, limit: 2 };
      for (let page = 0; page < 2 && r; page++) {
        const { nextCursor } = await expectExactPage(reader, r, `${what}, ${reader.user.username}, page ${page}`);
        r = nextCursor ? { ...r, cursor: nextCursor } : null;
      }
    }
}

/** Follows (or unfollows: the route toggles) TARGET as WHO. */
const toggle = async (who: Person, what: "follow" | "mute" | "block", target: Person) =>
  expect((await who.client.post(`/api/social/users/${target.user.username}/${what}`)).status).toBe(200);

describe("kept home feed answers", () => {
  // some hundred requests and fresh reads: longer than the default timeout on PostgreSQL under load
  test("every answer is the page made afresh, after each change by the API and by SQL outside the app's code", async () => {
    const [a, b, c, d] = [
      await quickPerson(server),
      await quickPerson(server),
      await quickPerson(server),
      await quickPerson(server),
    ];
    const readers = [a, b];
    const all = (what: string) => expectExact(readers, what);
    await toggle(a, "follow", b);
    await toggle(a, "follow", c);
    const ids: Record<string, string> = {};
    for (const [who, name] of [
      [b, "b1"],
      [c, "c1"],
      [d, "d1"],
      [b, "b2"],
      [a, "a1"],
      [c, "c2"],
    ] as const)
      ids[name] = await postIdAs(who.client, name);
    await all("start");
    const api = async (who: Person, method: "post" | "patch" | "delete", path: string, body?: object) => {
      const res = await who.client[method](path, body);
      expect([path, res.status]).toEqual([path, 200]);
    };
    // posts of a followed account, of an unfollowed one, the reader's own
    ids.b3 = await postIdAs(b.client, "b3");
    await all("b posts");
    ids.d2 = await postIdAs(d.client, "d2");
    await all("d (not followed) posts");
    // the reader's marks and others' on the page's posts (counters and the reader's own parts)
    await api(a, "post", `/api/social/posts/${ids.b3}/like`);
    await all("a likes b3");
    await api(d, "post", `/api/social/posts/${ids.c2}/like`);
    await all("d likes c2");
    await api(a, "post", `/api/social/posts/${ids.c2}/bookmark`);
    await all("a bookmarks c2");
    await api(a, "post", `/api/social/posts/${ids.c2}/bookmark`);
    await all("a unbookmarks c2");
    await api(d, "post", `/api/social/posts/${ids.c2}/comments`, { content: "a comment" });
    await all("d comments on c2");
    await api(a, "post", `/api/social/posts/${ids.c1}/repost`);
    await all("a reposts c1");
    await api(a, "post", `/api/social/posts/${ids.c1}/repost`);
    await all("a undoes the repost");
    await api(b, "patch", `/api/social/posts/${ids.b3}`, { content: "b3 edited" });
    await all("b edits b3");
    await api(b, "patch", "/api/account/profile", { displayName: "Bee" });
    await all("b edits the profile");
    // follows, mutes and blocks, either way
    await toggle(a, "follow", d);
    await all("a follows d");
    await toggle(a, "follow", d);
    await all("a unfollows d");
    await toggle(a, "mute", c);
    await all("a mutes c");
    await toggle(a, "mute", c);
    await all("a unmutes c");
    // not followed: its posts leave the all-posts feed only
    await toggle(a, "mute", d);
    await all("a mutes d");
    await toggle(a, "mute", d);
    await all("a unmutes d");
    await toggle(a, "block", d);
    await all("a blocks d");
    await toggle(a, "block", d);
    await all("a unblocks d");
    await toggle(c, "block", a);
    await all("c blocks a (and a's follow of c goes)");
    await toggle(c, "block", a);
    await toggle(a, "follow", c);
    await all("c unblocks a, a follows c again");
    await api(b, "delete", `/api/social/posts/${ids.b3}`);
    await all("b deletes b3");

    // by SQL outside the app's code on the app's own database (its triggers included)
    const id = async (cuid: string) =>
      Number((await queryRow<{ id: number }>(server.app.db, "SELECT id FROM posts WHERE cuid = ?", cuid))!.id);
    const now = server.clock.now();
    await sql`INSERT INTO posts (cuid, author_id, images, created_at) VALUES ('sql-b', ${b.user.id}, '[]', ${now})`.execute(
      server.app.db,
    );
    await all("b posts by SQL");
    await sql`INSERT INTO posts (cuid, author_id, images, created_at) VALUES ('sql-d', ${d.user.id}, '[]', ${now})`.execute(
      server.app.db,
    );
    await all("d posts by SQL");
    await sql`UPDATE posts SET created_at = ${now + 1} WHERE cuid = ${ids.d1}`.execute(server.app.db);
    await all("d1 moved to the top by SQL");
    await sql`INSERT INTO post_likes (post_id, user_id, created_at) VALUES (${await id("sql-b")}, ${a.user.id}, ${now})`.execute(
      server.app.db,
    );
    await all("a likes sql-b by SQL");
    await sql`INSERT INTO post_bookmarks (post_id, user_id, created_at) VALUES (${await id("sql-d")}, ${a.user.id}, ${now})`.execute(
      server.app.db,
    );
    await all("a bookmarks sql-d by SQL");
    // marks moved to the reader (the counters stay as they are): a like, and d's repost of a fresh post
    ids.fresh = await postIdAs(c.client, "fresh");
    await api(d, "post", `/api/social/posts/${ids.fresh}/like`);
    await api(d, "post", `/api/social/posts/${ids.fresh}/repost`);
    await all("d likes and reposts c's fresh post");
    await sql`UPDATE post_likes SET user_id = ${a.user.id} WHERE user_id = ${d.user.id} AND post_id = ${await id(ids.fresh)}`.execute(
      server.app.db,
    );
    await all("d's like of it moved to a by SQL");
    await sql`UPDATE posts SET author_id = ${a.user.id} WHERE author_id = ${d.user.id} AND repost_of_id = ${await id(ids.fresh)}`.execute(
      server.app.db,
    );
    await all("d's repost of it moved to a by SQL");
    await sql`UPDATE posts SET content = 'changed by SQL' WHERE cuid = 'sql-b'`.execute(server.app.db);
    await all("sql-b edited by SQL");
    await sql`UPDATE users SET display_name = 'Renamed by SQL' WHERE id = ${c.user.id}`.execute(server.app.db);
    await all("c renamed by SQL");
    await sql`INSERT INTO mutes (muter_id, muted_id, created_at) VALUES (${a.user.id}, ${b.user.id}, ${now})`.execute(
      server.app.db,
    );
    await all("a mutes b by SQL");
    await sql`DELETE FROM mutes WHERE muter_id = ${a.user.id}`.execute(server.app.db);
    await all("a's mute removed by SQL");
    await sql`INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (${d.user.id}, ${a.user.id}, ${now})`.execute(
      server.app.db,
    );
    await all("d blocks a by SQL");
    await sql`DELETE FROM blocks WHERE blocker_id = ${d.user.id}`.execute(server.app.db);
    await all("d's block removed by SQL");
    // an author gone and back: the pages that skipped its posts show them again
    for (const column of ["disabled_at", "deleted_at"]) {
      await sql`UPDATE users SET ${sql.ref(column)} = ${now} WHERE id = ${c.user.id}`.execute(server.app.db);
      await all(`c's ${column} set by SQL`);
      await sql`UPDATE users SET ${sql.ref(column)} = NULL WHERE id = ${c.user.id}`.execute(server.app.db);
      await all(`c's ${column} cleared by SQL`);
    }
    await sql`DELETE FROM feed_entries WHERE owner_id = ${a.user.id} AND post_id = ${await id("sql-b")}`.execute(
      server.app.db,
    );
    await all("an entry of a's taken out by SQL");
    await sql`DELETE FROM posts WHERE cuid = 'sql-d'`.execute(server.app.db);
    await all("sql-d deleted by SQL");
    // the post after a page, not on it, is what tells whether the page has a next one: the page
    // of the post before the oldest (kept), the oldest (by an account the
    // reader follows or not) then removed
    for (const [following, author] of [
      [true, b],
      [false, d],
    ] as const) {
      const cuid = `oldest-${following}`;
      await sql`INSERT INTO posts (cuid, author_id, images, created_at) VALUES (${cuid}, ${author.user.id}, '[]', 1)`.execute(
        server.app.db,
      );
      const list = (limit: number) =>
        feedPage(server.app.db, nothingKeptOfPosts(), a.user.id, { cursor: null, limit, following });
      const { items } = await list(100);
      expect(items.at(-1)!.row.cuid).toBe(cuid);
      const r = { following, limit: 1, cursor: (await list(items.length - 2)).nextCursor! };
      await expectExactPage(a, r, "the page before the oldest post");
      expect(await fewestStatements(server.app.storage, () => served(a, r))).toBe(keptCost());
      await sql`DELETE FROM posts WHERE cuid = ${cuid}`.execute(server.app.db);
      await expectExactPage(a, r, "the oldest post removed");
    }
  }, 120_000);

  // another connection to the same file is what the CLI beside a running server is
  sqliteOnly("a write committed by another connection applies at once", async () => {
    const [a, b] = [await quickPerson(server), await quickPerson(server)];
    await toggle(a, "follow", b);
    await postIdAs(b.client, "first");
    await expectExact([a], "start");
    const other = new Database(dbPath(server.dataDir));
    try {
      other.run("UPDATE posts SET content = 'elsewhere' WHERE author_id = ?", [b.user.id]);
      await expectExact([a], "b's post edited from another connection");
      expect(JSON.parse((await served(a, { following: true, limit: 2 }))[1]).data.feed[0].content).toBe("elsewhere");
    } finally {
      other.close();
    }
  });

  test("a kept answer runs no statement on SQLite; any write to its sources reads it again", async () => {
    const [a, b, c] = [await quickPerson(server), await quickPerson(server), await quickPerson(server)];
    await toggle(a, "follow", b);
    const shown = await postIdAs(b.client, "shown");
    const page = () => served(a, { following: true, limit: 20 });
    const stamp = keptCost();
    await page();
    expect(await fewestStatements(server.app.storage, page)).toBe(stamp);
    // the post liked: the page read again with its row's new version (one statement each), then kept
    // (the like toggled three times: each a write to the post's row, the last leaving it liked)
    const liked = await fewestStatements(server.app.storage, page, {
      before: () => c.client.post(`/api/social/posts/${shown}/like`),
    });
    expect(liked).toBe(stamp + 2);
    expect(await fewestStatements(server.app.storage, page)).toBe(stamp);
    expect(JSON.parse((await page())[1]).data.feed[0].likeCount).toBe(1);
    // a write elsewhere moves the stamp too: the page alone read again
    const elsewhere = await fewestStatements(server.app.storage, page, {
      before: (attempt) => postIdAs(c.client, `elsewhere ${attempt}`),
    });
    expect(elsewhere).toBe(stamp + 1);
    expect(await fewestStatements(server.app.storage, page)).toBe(stamp);
  });
});
