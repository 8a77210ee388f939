import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CompiledQuery } from "kysely";
import type { Db } from "../db";
import { engineOf } from "../db/engine";
import type { Cursor } from "../lib/paging";
import { startTestServer, type TestServer } from "../testing/server";
import { historyPageStatement } from "./chats/messages";
import { commentPages } from "./comments/service";
import { groupPageQuery, latestActorsQuery } from "./notifications/service";
import { bookmarksPageStatement, likersPageQuery, postLists } from "./posts/feed";
import { followPageQuery } from "./profiles/service";

// A regression guard on the shape of every list's page statement, not a timing: each walks the
// index that holds the list in its order, from the cursor, and nothing sorts the list's rows
// (no temporary B-tree on SQLite, no Sort node on PostgreSQL), and nothing reads a whole table
// first (no Bloom filter on a table, on SQLite). A page then costs about the same
// at the first page and deep in a list of a million rows.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

/**
 * The plan of C as its engine explains it, one line per step. On PostgreSQL sequential scans,
 * bitmap scans and sorts are discouraged for the statement (its tables here are nearly empty,
 * where any plan is cheap): a Sort left in the plan means no index gives the list's order.
 */
async function planOf(db: Db, c: CompiledQuery): Promise<string[]> {
  if (engineOf(db) === "sqlite") {
    const { rows } = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters]),
    );
    return rows.map((r) => r.detail);
  }
  return db.transaction().execute(async (tx) => {
    for (const setting of ["enable_seqscan", "enable_bitmapscan", "enable_sort"])
      await tx.executeQuery(CompiledQuery.raw(`SET LOCAL ${setting} = off`));
    const { rows } = await tx.executeQuery<{ "QUERY PLAN": string }>(
      CompiledQuery.raw(`EXPLAIN ${c.sql}`, [...c.parameters]),
    );
    return rows.map((r) => r["QUERY PLAN"]);
  });
}

/** The plan of C walks INDEX (first, on SQLite) and sorts nothing. */
async function expectIndexWalk(c: CompiledQuery, index: string): Promise<void> {
  const plan = await planOf(server.app.db, c);
  const text = plan.join("\n");
  if (process.env.SHOW_PLANS) console.log(index + "\n" + text + "\n");
  expect(text).toContain(index);
  if (engineOf(server.app.db) === "sqlite") {
    // the outer loop is the walk of the index (the first table the plan reads)
    expect(plan.find((line) => /^(SEARCH|SCAN) /.test(line))).toContain(` INDEX ${index} `);
    expect(text).not.toContain("TEMP B-TREE");
    // a Bloom filter on a table is built from every row of it on every page: a cost that grows with the table
    expect(text).not.toContain("BLOOM FILTER ON");
  } else expect(text).not.toMatch(/\bSort\b/);
}

const cursor: Cursor = { t: 1_700_000_000_000, id: 1_000 };
const pages = [
  { name: "first page", cursor: null },
  { name: "a page deep in the list", cursor },
];

describe("every list's page walks its index in order, without sorting", () => {
  for (const { name, cursor: c } of pages) {
    test(`followers and following, ${name}`, async () => {
      const db = server.app.db;
      await expectIndexWalk(
        followPageQuery(db, 1, 2, "followers", { cursor: c, limit: 20 }).compile(),
        "follows_followee_id",
      );
      await expectIndexWalk(
        followPageQuery(db, 1, 2, "following", { cursor: c, limit: 20 }).compile(),
        "follows_follower_time",
      );
    });

    test(`likers of a post and of a comment, ${name}`, async () => {
      const db = server.app.db;
      await expectIndexWalk(
        likersPageQuery(db, 1, { postId: 2 }, { cursor: c, limit: 20 }).compile(),
        "post_likes_post_time",
      );
      await expectIndexWalk(
        likersPageQuery(db, 1, { commentId: 2 }, { cursor: c, limit: 20 }).compile(),
        "comment_likes_comment_time",
      );
    });

    test(`bookmarks, ${name}`, async () => {
      const db = server.app.db;
      await expectIndexWalk(bookmarksPageStatement(db, 1, { cursor: c, limit: 20 }), "post_bookmarks_user_time");
    });

    test(`a post's comments and a comment's replies, ${name}`, async () => {
      const db = server.app.db;
      const values = { viewer: 1, parent: 2, t: c?.t ?? 0, id: c?.id ?? 0 };
      for (const asEveryone of [false, true]) {
        const shape = { cursor: c !== null, limit: 20, asEveryone };
        await expectIndexWalk(
          commentPages.compiledWith(db, { of: "post", ...shape }, values),
          "comments_post_top_time",
        );
        await expectIndexWalk(
          commentPages.compiledWith(db, { of: "comment", ...shape }, values),
          "comments_reply_time",
        );
      }
    });

    test(`a person's posts and media gallery, ${name}`, async () => {
      const values = { viewer: 1, t: c?.t ?? 0, id: c?.id ?? 0, author: 2, tag: "", cuid: "" };
      for (const list of ["user", "media"] as const)
        await expectIndexWalk(
          postLists.compiledWith(server.app.db, { list, cursor: c !== null, limit: 20 }, values),
          "posts_author_time",
        );
    });

    test(`a hashtag's posts, ${name}`, async () => {
      const values = { viewer: 1, t: c?.t ?? 0, id: c?.id ?? 0, author: 0, tag: "cats", cuid: "" };
      await expectIndexWalk(
        postLists.compiledWith(server.app.db, { list: "hashtag", cursor: c !== null, limit: 20 }, values),
        "post_hashtags_tag_time",
      );
    });

    test(`notifications, all and unread only, ${name}`, async () => {
      const db = server.app.db;
      await expectIndexWalk(
        groupPageQuery(db, 1, { cursor: c, limit: 20, unreadOnly: false }).compile(),
        "notification_groups_page",
      );
      await expectIndexWalk(
        groupPageQuery(db, 1, { cursor: c, limit: 20, unreadOnly: true }).compile(),
        "notification_groups_unread",
      );
    });
  }

  test("chat history: the newest page, older from a cursor, newer from a cursor", async () => {
    const db = server.app.db;
    const at = { t: 500, id: 9 };
    for (const page of [
      { older: null, newer: null },
      { older: at, newer: null },
      { older: null, newer: at },
    ])
      await expectIndexWalk(historyPageStatement(db, 1, 2, { ...page, limit: 30 }), "messages_conversation_seq");
  });

  test("a page of notification groups reads each group's latest actors by a short walk of its own", async () => {
    await expectIndexWalk(latestActorsQuery(server.app.db, [1, 2, 3]).compile(), "notifications_group_time");
  });
});
