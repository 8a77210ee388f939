import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfigFile } from "../config";
import { silentLogger } from "../lib/log";
import { openApp } from "../wiring";
import { makeUser } from "../testing/fixtures";
import { freshPostgresDatabase } from "../testing/postgres";
import { createPost, toggleLike } from "../domain/posts/service";
import { openPrivateChat } from "../domain/chats/conversations";
import { sendMessage } from "../domain/chats/messages";
import { grantStars } from "../domain/stars/service";
import { postSearch } from "../domain/search/posts";
import { searchMessages } from "../domain/search/messages";
import { moveToPostgres } from "./to-postgres";

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), "socialctl-topg-"));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("migrate-to-postgres", () => {
  test("moves every row, verified by counts and checksums; the instance then serves the same data from PostgreSQL", async () => {
    const lite = await openApp({ dataDir, log: silentLogger });
    expect(lite.storage.engine).toBe("sqlite");
    const ann = await makeUser(lite, { username: "ann", displayName: "Анна Café" });
    const bob = await makeUser(lite, { username: "bob" });
    const { post } = await createPost(lite, ann, { content: "Привет 🎉 from the old instance", clientPostId: "p1" });
    // counter columns (kept by triggers) go over as they are, not counted again from the copied rows
    await toggleLike(lite, bob, post.cuid);
    const conversation = await openPrivateChat(lite, ann.id, bob.id);
    for (let i = 0; i < 3; i++)
      await sendMessage(lite, { conversationId: conversation.id, senderId: ann.id, content: `m${i}` });
    await grantStars(lite, bob.id, 25, "welcome");
    await lite.close();

    const url = await freshPostgresDatabase({ empty: true });
    const result = await moveToPostgres(dataDir, url);
    const byTable = Object.fromEntries(result.tables.map((t) => [t.table, t]));
    expect(byTable.users!.rows).toBe(2);
    expect(byTable.messages!.rows).toBe(3);
    expect(byTable.star_ledger!.rows).toBe(1);
    for (const t of result.tables) expect(t.postgres).toBe(t.sqlite);
    expect(result.indexedPosts).toBe(1);
    expect(readConfigFile(dataDir)["database.url"]).toBe(url);
    // a second run refuses: the instance is on PostgreSQL now
    await expect(moveToPostgres(dataDir, url)).rejects.toThrow(/already on PostgreSQL/);

    const pg = await openApp({ dataDir, log: silentLogger });
    try {
      expect(pg.storage.engine).toBe("postgres");
      const found = await postSearch.searchPosts(pg.db, "ПРИВЕТ 🎉", {
        excludeAuthorIds: [],
        cursor: null,
        limit: 10,
        budgetMs: 1000,
      });
      expect(found.postIds).toEqual([post.id]);
      // the messages went into the search index with the move, not left queued for a search to index
      const indexed = await sql<{ indexed: number; queued: number }>`SELECT
        (SELECT count(*) FROM messages_fts) AS indexed, (SELECT count(*) FROM messages_fts_queue) AS queued`.execute(
        pg.db,
      );
      expect([Number(indexed.rows[0]!.indexed), Number(indexed.rows[0]!.queued)]).toEqual([3, 0]);
      const searched = await searchMessages(pg.storage, bob.id, "m1", { cursor: null, limit: 10, budgetMs: 1000 });
      expect(searched.messages.map((m) => m.content)).toEqual(["m1"]);
      // keys went over as they were, and new rows take the next ones
      const carol = await makeUser(pg, { username: "carol" });
      expect(carol.id).toBeGreaterThan(bob.id);
      const more = await sendMessage(pg, { conversationId: conversation.id, senderId: bob.id, content: "on pg" });
      expect(more.seq).toBe(4);
      expect(await grantStars(pg, bob.id, 5)).toBe(30);
      const liked = await pg.db.selectFrom("posts").select("like_count").where("id", "=", post.id).execute();
      const chat = await pg.db.selectFrom("conversations").select("member_count").execute();
      expect([Number(liked[0]!.like_count), Number(chat[0]!.member_count)]).toEqual([1, 2]);
    } finally {
      await pg.close();
    }
    // two instances' migrations and a copy: generous under a loaded CI machine
  }, 120_000);

  test("refuses a database that is not empty, and changes nothing", async () => {
    const other = mkdtempSync(join(tmpdir(), "socialctl-topg-"));
    try {
      const app = await openApp({ dataDir: other, log: silentLogger });
      await makeUser(app, { username: "dan" });
      await app.close();
      const url = await freshPostgresDatabase();
      const pg = await openApp({
        dataDir: mkdtempSync(join(tmpdir(), "socialctl-topg-")),
        log: silentLogger,
        overrides: { "database.url": url },
      });
      await makeUser(pg, { username: "someone" });
      await pg.close();
      await expect(moveToPostgres(other, url)).rejects.toThrow(/not empty \(table users has rows\)/);
      expect(readConfigFile(other)["database.url"]).toBeUndefined();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 120_000);
});
