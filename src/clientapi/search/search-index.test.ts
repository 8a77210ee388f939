import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { postIdAs } from "../../testing/posts";
import type { TestClient } from "../../testing/client";
import { createGroup, openPrivateChat } from "../../domain/chats/conversations";
import { deleteMessage, editMessage, sendMessage } from "../../domain/chats/messages";
import { leaveGroup } from "../../domain/chats/members";
import { SEARCH_WINDOW } from "../../domain/search/window";
import type { App } from "../../app";
import { waitFor } from "../../testing/wait";
import { rerunMigrations } from "../../testing/migrations";
import { inTransaction } from "../../db/transaction";
import { catchUpMessageIndex, indexQueuedMessages } from "../../domain/search/message-index";
import { searchMessages } from "../../domain/search/messages";
import { searchPeople } from "../../domain/search/people";
import { testsOnPostgres } from "../../testing/engine";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let server: TestServer;
// on PostgreSQL the first server also starts the test cluster
beforeAll(async () => {
  server = await startTestServer();
}, 120_000);
afterAll(() => server.stop());

const person = (input: Parameters<typeof quickPerson>[1] = {}) => quickPerson(server, input);

/** Two new people and their private chat. */
async function twoInAChat() {
  const [a, b] = [await person(), await person()];
  return { a, b, chat: await openPrivateChat(server.app, a.user.id, b.user.id) };
}

const found = async (client: TestClient, q: string, extra: Record<string, string> = {}) => {
  const res = await client.get(`/api/social/search?${new URLSearchParams({ q, type: "messages", ...extra })}`);
  expect(res.status).toBe(200);
  return {
    contents: res.body.data.messages.map((m: any) => m.content) as string[],
    nextCursor: res.body.data.nextCursor as string | null,
  };
};

/** COUNT messages from SENDER in the chat, straight into the table (indexed as a send's are). */
async function bulkMessages(app: App, conversationId: number, senderId: number, count: number, content: string) {
  await sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
    INSERT INTO messages (cuid, conversation_id, seq, sender_id, kind, content, created_at)
    SELECT ${`bulk${conversationId}_`} || CAST(i AS text), CAST(${conversationId} AS integer),
      CAST(i AS integer) + 1000, CAST(${senderId} AS integer), 'user', ${content}, CAST(${Date.now()} AS bigint)
    FROM n`.execute(app.db);
}

describe("the messages index follows every change", () => {
  test("edits, deletes for everyone and for oneself, leaving a group, a deleted chat", async () => {
    const a = await person();
    const b = await person();
    const c = await person();
    const app = server.app;
    const direct = await openPrivateChat(app, a.user.id, b.user.id);
    const group = await createGroup(app, a.user.id, "Birds", [b.user.id, c.user.id]);
    const one = await sendMessage(app, { conversationId: direct.id, senderId: a.user.id, content: "pelican one" });
    const two = await sendMessage(app, { conversationId: group.id, senderId: a.user.id, content: "pelican two" });
    expect((await found(b.client, "pelican")).contents).toEqual(["pelican two", "pelican one"]);
    expect((await found(c.client, "pelican")).contents).toEqual(["pelican two"]);

    await editMessage(app, { conversationId: direct.id, seq: one.seq, editorId: a.user.id, content: "heron one" });
    expect((await found(b.client, "pelican")).contents).toEqual(["pelican two"]);
    expect((await found(b.client, "heron")).contents).toEqual(["heron one"]);

    await deleteMessage(app, { conversationId: group.id, seq: two.seq, actorId: a.user.id, forEveryone: true });
    expect((await found(b.client, "pelican")).contents).toEqual([]);
    expect((await found(a.client, "pelican")).contents).toEqual([]);

    const three = await sendMessage(app, { conversationId: group.id, senderId: a.user.id, content: "ostrich three" });
    await deleteMessage(app, { conversationId: group.id, seq: three.seq, actorId: b.user.id, forEveryone: false });
    expect((await found(b.client, "ostrich")).contents).toEqual([]);
    expect((await found(c.client, "ostrich")).contents).toEqual(["ostrich three"]);
    await leaveGroup(app, { conversationId: group.id, userId: c.user.id });
    expect((await found(c.client, "ostrich")).contents).toEqual([]);
    expect((await found(a.client, "ostrich")).contents).toEqual(["ostrich three"]);

    await app.db.deleteFrom("conversations").where("id", "=", direct.id).execute();
    expect((await found(b.client, "heron")).contents).toEqual([]);
    if (app.storage.engine === "sqlite") {
      // the index itself dropped the chat's rows, not only the join
      await catchUpMessageIndex(app.storage);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM search.messages_fts
        WHERE messages_fts MATCH 'heron OR pelican'`.execute(app.storage.longReads);
      expect(rows[0]!.n).toBe(0);
    }
  });

  test("the index trails the sends; a message edited or deleted before it was indexed is found as it is now", async () => {
    const app = server.app;
    const { a, b, chat } = await twoInAChat();
    // on SQLite the index is a database of its own, which long reads see as the schema search
    const sqlite = app.storage.engine === "sqlite";
    const count = async (query: ReturnType<typeof sql>) =>
      Number(
        (
          await sql<{ n: number }>`SELECT count(*) AS n FROM (${query}) q`.execute(
            sqlite ? app.storage.longReads : app.db,
          )
        ).rows[0]!.n,
      );
    // what trails: on SQLite the messages past the index's mark and the changes queued past its
    // own, on PostgreSQL the queued ids
    const trailing = async (ids: number[]) =>
      sqlite
        ? (await count(sql`SELECT 1 FROM search.meta WHERE indexed_to < ${Math.max(...ids)}`)) +
          (await count(
            sql`SELECT 1 FROM search.meta WHERE changes_to < (SELECT coalesce(max(id), 0) FROM messages_search_changes)`,
          ))
        : count(sql`SELECT 1 FROM messages_fts_queue WHERE message_id IN (${sql.join(ids)})`);
    const indexed = (word: string) =>
      sqlite
        ? count(sql`SELECT 1 FROM search.messages_fts WHERE messages_fts MATCH ${word}`)
        : count(sql`SELECT 1 FROM messages_fts WHERE body @@ ${word}::tsquery`);
    const kept = await sendMessage(app, { conversationId: chat.id, senderId: a.user.id, content: "gannet kept" });
    const edited = await sendMessage(app, { conversationId: chat.id, senderId: a.user.id, content: "gannet draft" });
    const gone = await sendMessage(app, { conversationId: chat.id, senderId: a.user.id, content: "gannet gone" });
    await editMessage(app, {
      conversationId: chat.id,
      seq: edited.seq,
      editorId: a.user.id,
      content: "cormorant final",
    });
    await deleteMessage(app, { conversationId: chat.id, seq: gone.seq, actorId: a.user.id, forEveryone: true });
    // the serving process takes them in within about a second, with no search asking
    await waitFor(
      async () => (await trailing([kept.id, edited.id, gone.id])) === 0,
      10_000,
      "the index to take in the new messages",
    );
    expect(await indexed("gannet")).toBe(1);
    expect(await indexed("cormorant")).toBe(1);
    // once indexed, an edit is followed: at once on PostgreSQL, within about a second on SQLite
    await editMessage(app, { conversationId: chat.id, seq: kept.seq, editorId: a.user.id, content: "cormorant kept" });
    await waitFor(async () => (await indexed("gannet")) === 0, 10_000, "the index to take in the edit");
    if (sqlite) {
      // the queued edits and removals go once the index has taken them in: the queue stays short
      const queued = () => count(sql`SELECT 1 FROM messages_search_changes`);
      await waitFor(async () => (await queued()) === 0, 10_000, "the taken-in changes to be deleted");
    }
    expect((await found(b.client, "cormorant")).contents).toEqual(["cormorant final", "cormorant kept"]);
    // a search right after a send finds it: the search indexes what trails first
    await sendMessage(app, { conversationId: chat.id, senderId: b.user.id, content: "cormorant newest" });
    expect((await found(a.client, "cormorant")).contents[0]).toBe("cormorant newest");
  });

  test("SQLite: an index file that is missing or of another database is made again from the messages", async () => {
    if (testsOnPostgres()) return;
    const dataDir = mkdtempSync(join(tmpdir(), "socialctl-test-"));
    try {
      let own = await startTestServer({}, { dataDir });
      const [a, b] = [await quickPerson(own), await quickPerson(own)];
      const chat = await openPrivateChat(own.app, a.user.id, b.user.id);
      const sent = await sendMessage(own.app, {
        conversationId: chat.id,
        senderId: a.user.id,
        content: "puffin colony",
      });
      const search = (app: App, q: string) =>
        searchMessages(app.storage, b.user.id, q, { cursor: null, limit: 10, budgetMs: 5_000 });
      expect((await search(own.app, "puffin")).messages.map((m) => m.id)).toEqual([sent.id]);
      const indexPath = own.app.storage.searchIndexPath!;
      await own.stop();
      // another instance's index: its word for the message, its message at the mark
      const foreign = new Database(indexPath);
      foreign.exec("PRAGMA busy_timeout = 5000");
      foreign.prepare("INSERT INTO messages_fts (rowid, body) VALUES (?, 'albatross')").run(sent.id);
      foreign.exec("UPDATE meta SET indexed_cuid = 'another-instance'");
      foreign.close();
      own = await startTestServer({}, { dataDir });
      expect((await search(own.app, "albatross")).messages).toEqual([]);
      expect((await search(own.app, "puffin")).messages.map((m) => m.id)).toEqual([sent.id]);
      await own.stop();
      // no index at all (a restore brings none): an empty file, made again at the first search
      for (const suffix of ["", "-wal", "-shm"]) rmSync(indexPath + suffix, { force: true });
      own = await startTestServer({}, { dataDir });
      expect((await search(own.app, "puffin")).messages.map((m) => m.id)).toEqual([sent.id]);
      await own.stop();
      // a file that is not a database; other long reads go on meanwhile
      for (const suffix of ["-wal", "-shm"]) rmSync(indexPath + suffix, { force: true });
      writeFileSync(indexPath, "not a database ".repeat(500));
      own = await startTestServer({}, { dataDir });
      const people = await searchPeople(own.app.storage.longReads, a.user.username, {
        viewer: null,
        cursor: null,
        limit: 5,
      });
      expect(people.users.map((u) => u.id)).toEqual([a.user.id]);
      expect((await search(own.app, "puffin")).messages.map((m) => m.id)).toEqual([sent.id]);
      await own.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("PostgreSQL: an edit made while a pass indexes the message waits for it, and the edited text is what is found", async () => {
    if (server.app.storage.engine !== "postgres") return;
    const app = server.app;
    const { a, b, chat } = await twoInAChat();
    const sent = await sendMessage(app, { conversationId: chat.id, senderId: a.user.id, content: "kittiwake draft" });
    let edit: Promise<unknown> | null = null;
    let editDone = false;
    await inTransaction(app.storage, async (scope) => {
      // queued here too, so the serving process's own pass cannot have taken it already
      await sql`INSERT INTO messages_fts_queue (message_id) VALUES (${sent.id}) ON CONFLICT DO NOTHING`.execute(
        scope.db,
      );
      // this pass holds the queued id and the message until it commits
      expect(await indexQueuedMessages(scope, sent.id)).toBeGreaterThanOrEqual(1);
      edit = editMessage(app, { conversationId: chat.id, seq: sent.seq, editorId: a.user.id, content: "fulmar final" });
      void edit.then(() => (editDone = true));
      await Bun.sleep(300);
      expect(editDone).toBe(false);
    });
    await edit;
    expect((await found(b.client, "kittiwake")).contents).toEqual([]);
    expect((await found(b.client, "fulmar")).contents).toEqual(["fulmar final"]);
  });

  test("PostgreSQL: the migration down indexes messages as it did before, and up again indexes them all", async () => {
    if (server.app.storage.engine !== "postgres") return;
    const { a, b, chat } = await twoInAChat();
    await sendMessage(server.app, { conversationId: chat.id, senderId: a.user.id, content: "puffin burrow" });
    // with the later one that makes its trigger once per statement
    await rerunMigrations(server.app.db, [
      "20261202100000_messages_fts_queue",
      "20261208100000_send_statement_triggers",
    ]);
    expect((await found(b.client, "puffin")).contents).toEqual(["puffin burrow"]);
  });

  test("words, prefixes and several words", async () => {
    const a = await person();
    const b = await person();
    const chat = await openPrivateChat(server.app, a.user.id, b.user.id);
    for (const content of ["Ёлка в лесу", "the quick brown fox", "quickly now", "brown quick"])
      await sendMessage(server.app, { conversationId: chat.id, senderId: a.user.id, content });
    expect((await found(b.client, "елка")).contents).toEqual(["Ёлка в лесу"]);
    expect((await found(b.client, "quick")).contents).toEqual(["brown quick", "quickly now", "the quick brown fox"]);
    expect((await found(b.client, "quick brown")).contents).toEqual(["brown quick", "the quick brown fox"]);
    // a word inside another is not a match (the index holds words)
    expect((await found(b.client, "uick")).contents).toEqual([]);
  });
});

describe("a search costs a window of the index, not every match", () => {
  test("hits in other people's chats give a short page and a cursor that reads on", async () => {
    const [a, b, c, d] = [await person(), await person(), await person(), await person()];
    const mine = await openPrivateChat(server.app, a.user.id, b.user.id);
    await sendMessage(server.app, { conversationId: mine.id, senderId: a.user.id, content: "albatross of mine" });
    const theirs = await openPrivateChat(server.app, c.user.id, d.user.id);
    await bulkMessages(server.app, theirs.id, c.user.id, SEARCH_WINDOW + 50, "albatross filler");
    const first = await found(b.client, "albatross");
    expect(first.contents).toEqual([]);
    expect(first.nextCursor).not.toBeNull();
    const second = await found(b.client, "albatross", { cursor: first.nextCursor! });
    expect(second.contents).toEqual(["albatross of mine"]);
    expect(second.nextCursor).toBeNull();
    // the other chat's members page through theirs, newest first, without repeats
    const page = await found(d.client, "albatross", { limit: "50" });
    expect(page.contents).toHaveLength(50);
    const next = await found(d.client, "albatross", { limit: "50", cursor: page.nextCursor! });
    expect(next.contents).toHaveLength(50);
    // the seeding's thousands of rows go through the send trigger one by one
  }, 120_000);
});

describe("SQLite: the index is a database of its own, written beside the serving thread", () => {
  test.skipIf(testsOnPostgres())(
    "a catch-up writes nothing on the serving connection; sends made meanwhile are kept and found",
    async () => {
      const { a, b, chat } = await twoInAChat();
      const app = server.app;
      await catchUpMessageIndex(app.storage);
      await bulkMessages(app, chat.id, a.user.id, 3_000, "cormorant in bulk");
      const changesBefore = app.storage.changes();
      const catchingUp = catchUpMessageIndex(app.storage);
      const sends = Array.from({ length: 20 }, (_, i) =>
        a.client.post(`/api/social/messages/${chat.cuid}`, { content: `cormorant live ${i}` }),
      );
      const answers = await Promise.all(sends);
      await catchingUp;
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
      // the sends (and the server's timers) change a few dozen rows; 3,000 index rows would show
      expect(app.storage.changes() - changesBefore).toBeLessThan(500);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM search.messages_fts
        WHERE messages_fts MATCH 'cormorant'`.execute(app.storage.longReads);
      expect(Number(rows[0]!.n)).toBeGreaterThanOrEqual(3_000);
      // the live ones, sent during the catch-up, are found by the next search (its own catch-up)
      const page = await found(b.client, "cormorant live", { limit: "50" });
      expect(page.contents.toSorted()).toEqual(Array.from({ length: 20 }, (_, i) => `cormorant live ${i}`).toSorted());
      // a prefix of a word in thousands of messages: the newest first
      expect((await found(b.client, "corm", { limit: "5" })).contents[0]).toStartWith("cormorant live");
    },
    120_000,
  );
});

describe("the time budget", () => {
  test("a search over its budget answers 503 SEARCH_TIMEOUT and the server keeps serving", async () => {
    const strict = await startTestServer({ "limits.searchBudgetMs": 0 });
    try {
      const a = await quickPerson(strict, {});
      const b = await quickPerson(strict, {});
      const chat = await openPrivateChat(strict.app, a.user.id, b.user.id);
      await sendMessage(strict.app, { conversationId: chat.id, senderId: a.user.id, content: "kestrel" });
      await postIdAs(a.client, "a kestrel");
      for (const type of ["messages", "posts", undefined]) {
        const res = await b.client.get(
          `/api/social/search?${new URLSearchParams({ q: "kestrel", ...(type && { type }) })}`,
        );
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe("SEARCH_TIMEOUT");
        expect(res.headers.get("retry-after")).toBe("1");
      }
      // people and hashtags read index ranges of a page's length: no budget to run out of
      const people = await b.client.get(`/api/social/search?q=${a.user.username}&type=users`);
      expect(people.status).toBe(200);
      expect((await fetch(`${strict.url}/healthz`)).status).toBe(200);
    } finally {
      await strict.stop();
    }
  });
});
