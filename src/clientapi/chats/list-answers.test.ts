import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { fewestStatements, statementsDuring } from "../../testing/statements";
import { testsOnPostgres } from "../../testing/postgres";
import { dbPath } from "../../config/layout";
import { addMember, createGroup, sendMessage } from "../../domain/chats";
import { createBot } from "../../domain/bots/service";
import { botApiUserId } from "../../domain/bots/ids";
import { groupChatId } from "../../botapi/serializers";
import { botCall } from "../../testing/botapi";
import { freshChatList } from "../../testing/fresh-answers";
import { chatListAnswersOf } from "./list-answers";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const sqliteOnly = test.skipIf(testsOnPostgres());
type Person = Awaited<ReturnType<typeof quickPerson>>;
const person = () => quickPerson(server);

/** The pages asked for: the default page, a small one, the one after it and a large one. */
const PAGES: Array<{ limit?: number; after?: number }> = [{}, { limit: 2 }, { limit: 2, after: 2 }, { limit: 50 }];

/** VIEWER's chat list page over HTTP as text (CURSOR: a page's nextCursor). */
async function served(viewer: Person, limit: number | undefined, cursor?: string | null): Promise<string> {
  const query = new URLSearchParams();
  if (limit !== undefined) query.set("limit", String(limit));
  if (cursor) query.set("cursor", cursor);
  const res = await fetch(`${server.url}/api/social/messages?${query}`, {
    headers: { cookie: viewer.client.cookieHeader() },
  });
  expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/json;charset=utf-8"]);
  return res.text();
}

/** The same page read afresh from the rows (nothing kept) as the route answers it, byte for byte. */
const afresh = (viewer: Person, limit: number | undefined, cursor?: string | null): Promise<string> =>
  freshChatList(server.app.db, viewer.user.id, limit, cursor);

/** Each viewer's pages (PAGES), each asked twice (the second kept on SQLite), equal the pages read afresh. */
async function expectExact(viewers: Person[], what: string): Promise<void> {
  for (const viewer of viewers)
    for (const { limit, after } of PAGES) {
      let cursor: string | null | undefined;
      if (after !== undefined) cursor = JSON.parse(await afresh(viewer, after)).data.nextCursor;
      if (after !== undefined && cursor === null) continue;
      const want = await afresh(viewer, limit, cursor);
      for (let i = 0; i < 2; i++)
        expect([what, viewer.user.username, limit, after, i, await served(viewer, limit, cursor)]).toEqual([
          what,
          viewer.user.username,
          limit,
          after,
          i,
          want,
        ]);
    }
}

/** A Client API call by WHO that must succeed. */
async function api(who: Person, method: "post" | "patch" | "delete", path: string, body?: object) {
  const res = await who.client[method](path, body);
  expect([path, res.status]).toEqual([path, 200]);
  return res.body.data;
}

describe("kept chat-list answers", () => {
  test("every page is the list read afresh, after each change by the API and by SQL outside the app's code", async () => {
    const [me, b, c] = [await person(), await person(), await person()];
    const viewers = [me, b, c];
    const all = (what: string) => expectExact(viewers, what);
    const app = server.app;
    await all("nobody has chats");
    const privateCid = (await api(b, "post", `/api/social/users/${me.user.username}/message`, {})).conversationId;
    await all("a private chat opened");
    await api(b, "post", `/api/social/messages/${privateCid}`, { content: "one" });
    await all("b wrote");
    await api(me, "post", `/api/social/messages/${privateCid}`, { content: "two" });
    await all("I wrote");
    const group = await createGroup(app, me.user.id, "Kept", [b.user.id, c.user.id]);
    await all("a group");
    await sendMessage(app, { conversationId: group.id, senderId: c.user.id, content: "three" });
    await all("c wrote in the group");
    await api(b, "post", `/api/social/messages/${group.cuid}/read`, { messageId: 2 });
    await all("b read the group");
    await api(c, "patch", `/api/social/messages/${group.cuid}/2`, { content: "three, edited" });
    await all("c edited");
    await api(b, "post", `/api/social/messages/${group.cuid}/2/reactions`, { emoji: "👍" });
    await all("b reacted");
    await api(me, "patch", `/api/social/groups/${group.cuid}`, { title: "Kept, renamed" });
    await all("the group renamed");
    await api(b, "patch", "/api/account/profile", { displayName: "Bee" });
    await all("b renamed");
    await api(me, "delete", `/api/social/messages/${privateCid}/2`);
    await all("I hid my message");
    await api(b, "delete", `/api/social/messages/${privateCid}/1?forEveryone=true`);
    await all("b deleted a message for everyone");
    // a bot's sends, to a person (read with the chat in the send) and into a group
    const bot = await createBot(app, { ownerId: me.user.id, username: `kept_${me.user.id}_bot`, name: "Kept" });
    await api(me, "post", `/api/social/users/${bot.user.username}/message`, {});
    const botSends = async (chatId: number, text: string) =>
      expect((await botCall(server.url, bot.token, "sendMessage", { chat_id: chatId, text })).status).toBe(200);
    await botSends(botApiUserId(me.user.id), "from the bot");
    await all("the bot wrote to me");
    await addMember(app, { conversationId: group.id, actorId: me.user.id, userId: bot.user.id });
    await all("the bot joined the group");
    await botSends(groupChatId(group.id), "the bot in the group");
    await all("the bot wrote in the group");
    await api(c, "post", `/api/social/groups/${group.cuid}/leave`);
    await all("c left the group");
    await sendMessage(app, { conversationId: group.id, senderId: b.user.id, content: "after c left" });
    await all("b wrote after c left");

    // SQL from outside the app's code: the CLI, another node, an operator
    const mine = (cid: number) =>
      app.db.updateTable("conversation_members").where("conversation_id", "=", cid).where("user_id", "=", me.user.id);
    await mine(group.id).set({ unread_count: 9 }).execute();
    await all("my unread count set by SQL");
    await mine(group.id).set({ last_read_seq: 0 }).execute();
    await all("my read mark set by SQL");
    await app.db.updateTable("conversations").set({ title: "By SQL" }).where("id", "=", group.id).execute();
    await all("the group renamed by SQL");
    await app.db.updateTable("users").set({ display_name: "Sea" }).where("id", "=", c.user.id).execute();
    await all("c renamed by SQL");
    await app.db.updateTable("messages").set({ content: "by SQL" }).where("conversation_id", "=", group.id).execute();
    await all("the group's messages changed by SQL");
    await app.db
      .deleteFrom("conversation_members")
      .where("conversation_id", "=", group.id)
      .where("user_id", "=", b.user.id)
      .execute();
    await all("b taken out of the group by SQL");
    // a chat older than all of mine, made and moved back before any read: only the pages' cursors tell
    const older = await createGroup(app, me.user.id, "Older", [c.user.id]);
    await mine(older.id).set({ activity_at: 1 }).execute();
    await all("an older chat");
  });

  // another connection to the same file is what the CLI beside a running server is
  sqliteOnly("a write committed by another connection applies at once", async () => {
    const [me, b] = [await person(), await person()];
    const cid = (await api(b, "post", `/api/social/users/${me.user.username}/message`, {})).conversationId;
    await api(b, "post", `/api/social/messages/${cid}`, { content: "one" });
    await expectExact([me, b], "start");
    const other = new Database(dbPath(server.dataDir));
    try {
      other.run("UPDATE conversation_members SET unread_count = 5 WHERE user_id = ?", [me.user.id]);
      await expectExact([me, b], "my unread count from another connection");
      other.run("UPDATE users SET display_name = 'Elsewhere' WHERE id = ?", [b.user.id]);
      await expectExact([me, b], "b renamed from another connection");
      expect(JSON.parse(await served(me, undefined)).data.conversations[0].title).toBe("Elsewhere");
    } finally {
      other.close();
    }
  });

  test("a page asked again runs no statement on SQLite (its stamp is read on a connection of its own), two on PostgreSQL (the session and the stamp); others' chats, sends, read marks, posts, likes and follows leave it kept; a write in my chat shows at once", async () => {
    const [me, b, stranger, another] = [await person(), await person(), await person(), await person()];
    const cid = (await api(b, "post", `/api/social/users/${me.user.username}/message`, {})).conversationId;
    await api(b, "post", `/api/social/messages/${cid}`, { content: "one" });
    const ask = () => served(me, 50);
    const first = await ask();
    // PostgreSQL: the session (not kept there) and the stamp
    const kept = server.app.storage.engine === "sqlite" ? 0 : 2;
    expect(await fewestStatements(server.app.storage, ask)).toBe(kept);
    const elsewhere = (await api(stranger, "post", `/api/social/users/${another.user.username}/message`, {}))
      .conversationId;
    expect(await fewestStatements(server.app.storage, ask)).toBe(kept);
    await api(stranger, "post", `/api/social/messages/${elsewhere}`, { content: "not yours" });
    await api(another, "post", `/api/social/messages/${elsewhere}/read`, { messageId: 1 });
    // a post, a like, a comment and a follow write nothing a chat list shows (their counters on users are not shown)
    const post = (await api(stranger, "post", "/api/social/posts", { content: "elsewhere" })).post.id;
    await api(another, "post", `/api/social/posts/${post}/like`);
    await api(another, "post", `/api/social/posts/${post}/comments`, { content: "nice" });
    await api(another, "post", `/api/social/users/${stranger.user.username}/follow`);
    expect(await fewestStatements(server.app.storage, ask)).toBe(kept);
    expect(await ask()).toBe(first);
    // a write in my chat shows at once: the page is read again (and its new last message)
    await api(b, "post", `/api/social/messages/${cid}`, { content: "two" });
    expect(await statementsDuring(server.app.storage, ask)).toBeGreaterThan(kept);
    const now = JSON.parse(await ask()).data.conversations[0];
    expect(now).toMatchObject({ unreadCount: 2, lastMessage: { content: "two" } });
    expect(chatListAnswersOf(server.app).size).toBeGreaterThanOrEqual(1);
  });

  sqliteOnly(
    "nothing read while a transaction is open on the connection is kept: a write rolled back never shows",
    async () => {
      const [me, b] = [await person(), await person()];
      const cid = (await api(b, "post", `/api/social/users/${me.user.username}/message`, {})).conversationId;
      await api(b, "post", `/api/social/messages/${cid}`, { content: "one" });
      const before = await served(me, 50);
      const sqlite = server.app.storage.sqlite!;
      sqlite.run("BEGIN");
      try {
        sqlite.run("UPDATE conversation_members SET unread_count = 42 WHERE user_id = ?", [me.user.id]);
        // the committed stamp is the kept answer's: the write not committed is not shown
        expect(await served(me, 50)).toBe(before);
        // a page not kept is read on the connection that holds the write: shown, but not kept
        expect(JSON.parse(await served(me, 49)).data.conversations[0].unreadCount).toBe(42);
      } finally {
        sqlite.run("ROLLBACK");
      }
      expect(await served(me, 49)).toBe(await afresh(me, 49));
      // the stamp the rolled-back write raised is raised again by the next write: what was read then must not be taken for it
      sqlite.run("UPDATE conversation_members SET unread_count = unread_count WHERE user_id = ?", [me.user.id]);
      expect(await served(me, 50)).toBe(before);
      expect(await served(me, 50)).toBe(await afresh(me, 50));
    },
  );
});
