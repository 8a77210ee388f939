import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { postIdAs } from "../../testing/posts";
import { quickPerson } from "../../testing/fixtures";
import { TestClient } from "../../testing/client";
import { openPrivateChat } from "../../domain/chats/conversations";
import { sendMessage } from "../../domain/chats/messages";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = (input: Parameters<typeof quickPerson>[1] = {}) => quickPerson(server, input);

const search = (client: TestClient, params: Record<string, string>) =>
  client.get(`/api/social/search?${new URLSearchParams(params)}`);

describe("search posts (FTS5)", () => {
  test("full-text matches in Latin, Cyrillic, accents and emoji, newest first", async () => {
    const { client } = await person();
    const a = await postIdAs(client, "Bun makes SQLite fast, bun bun");
    const b = await postIdAs(client, "I like bun for scripts");
    const ru = await postIdAs(client, "Привет, мир! Ёжик в тумане");
    const cafe = await postIdAs(client, "Meet me at the Café");
    const party = await postIdAs(client, "party🎉time with 👍🏽");
    let res = await search(client, { q: "bun", type: "posts" });
    expect(res.status).toBe(200);
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([b, a]);
    expect(res.body.data.posts[0].author.username).toBeDefined();
    res = await search(client, { q: "мир", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([ru]);
    res = await search(client, { q: "ПРИВЕТ", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([ru]);
    res = await search(client, { q: "ежик", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([ru]);
    res = await search(client, { q: "cafe", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([cafe]);
    res = await search(client, { q: "🎉", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([party]);
    res = await search(client, { q: "party", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([party]);
    res = await search(client, { q: "👍", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([party]);
    // prefix while typing, and FTS syntax is taken literally
    res = await search(client, { q: "scri", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([b]);
    for (const q of ['"', "bun OR", "NEAR(", "*", "bun AND NOT x", "-", "'"]) {
      res = await search(client, { q, type: "posts" });
      expect(res.status).toBe(200);
    }
  });

  test("the index follows edits and deletes; paging by cursor", async () => {
    const { client } = await person();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await postIdAs(client, `zebra number ${i}`));
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const res = await search(client, { q: "zebra", type: "posts", limit: "2", ...(cursor ? { cursor } : {}) });
      seen.push(...res.body.data.posts.map((p: any) => p.id));
      cursor = res.body.data.nextCursor;
      if (!cursor) break;
    }
    expect(seen.sort()).toEqual([...ids].sort());
    await client.patch(`/api/social/posts/${ids[0]}`, { content: "giraffe now" });
    await client.delete(`/api/social/posts/${ids[1]}`);
    let res = await search(client, { q: "zebra", type: "posts", limit: "50" });
    expect(res.body.data.posts.map((p: any) => p.id).sort()).toEqual(ids.slice(2).sort());
    res = await search(client, { q: "giraffe", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([ids[0]]);
    res = await search(client, { q: "zebra", type: "posts", cursor: "garbage" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.cursor).toBeDefined();
  });
});

describe("search and blocks", () => {
  test("a block hides posts and people both ways; muting does not hide from search", async () => {
    const blocker = await person({ username: "quokka_blocker" });
    const blocked = await person({ username: "quokka_blocked" });
    const muter = await person();
    const byBlocker = await postIdAs(blocker.client, "quokkasearch from the blocker");
    const byBlocked = await postIdAs(blocked.client, "quokkasearch from the blocked");
    await blocker.client.post(`/api/social/users/${blocked.user.username}/block`);
    await muter.client.post(`/api/social/users/${blocked.user.username}/mute`);
    const found = async (who: { client: TestClient }, q: string, type: string, key: string, field = "id") =>
      (await search(who.client, { q, type })).body.data[key].map((x: any) => x[field]);
    expect(await found(blocker, "quokkasearch", "posts", "posts")).toEqual([byBlocker]);
    expect(await found(blocked, "quokkasearch", "posts", "posts")).toEqual([byBlocked]);
    expect(await found(blocker, "quokka", "users", "users", "username")).toEqual(["quokka_blocker"]);
    expect(await found(blocked, "quokka", "users", "users", "username")).toEqual(["quokka_blocked"]);
    expect((await found(muter, "quokkasearch", "posts", "posts")).sort()).toEqual([byBlocker, byBlocked].sort());
  });
});

describe("search people and hashtags", () => {
  test("users by username or display-name prefix, any script", async () => {
    const { client } = await person();
    const ivan = await person({ username: "ivan_petrov", displayName: "Иван Петров" });
    const iva = await person({ username: "ivanka", displayName: "Ivanka Trumpet" });
    await person({ username: "zoe_q", displayName: "Zoë Quinn" });
    let res = await search(client, { q: "ivan", type: "users" });
    expect(res.body.data.users.map((u: any) => u.username)).toEqual(["ivan_petrov", "ivanka"]);
    res = await search(client, { q: "@IVAN_P", type: "users" });
    expect(res.body.data.users.map((u: any) => u.username)).toEqual(["ivan_petrov"]);
    res = await search(client, { q: "пет", type: "users" });
    expect(res.body.data.users.map((u: any) => u.username)).toEqual(["ivan_petrov"]);
    res = await search(client, { q: "иван", type: "users" });
    expect(res.body.data.users.map((u: any) => u.username)).toEqual(["ivan_petrov"]);
    res = await search(client, { q: "zoe", type: "users" });
    expect(res.body.data.users.map((u: any) => u.displayName)).toEqual(["Zoë Quinn"]);
    res = await search(client, { q: "ivan", type: "users", limit: "1" });
    expect(res.body.data.users).toHaveLength(1);
    res = await search(client, { q: "ivan", type: "users", limit: "1", cursor: res.body.data.nextCursor });
    expect(res.body.data.users.map((u: any) => u.username)).toEqual(["ivanka"]);
    expect(res.body.data.nextCursor).toBeNull();
    // a profile change is searchable at once
    await server.app.db
      .updateTable("users")
      .set({ display_name: "Ivanka Новая" })
      .where("id", "=", iva.user.id)
      .execute();
    res = await search(client, { q: "новая", type: "users" });
    expect(res.body.data.users.map((u: any) => u.username)).toEqual(["ivanka"]);
    // blocked either way: gone from each other's results
    await ivan.client.post(
      `/api/social/users/${(await server.app.db.selectFrom("users").select("username").where("id", "=", iva.user.id).executeTakeFirstOrThrow()).username}/block`,
    );
    res = await search(ivan.client, { q: "ivan", type: "users" });
    expect(res.body.data.users.map((u: any) => u.username)).toEqual(["ivan_petrov"]);
    res = await search(client, { q: "%", type: "users" });
    expect(res.body.data.users).toEqual([]);
  });

  test("hashtags by prefix with post counts", async () => {
    const { client } = await person();
    await postIdAs(client, "#Travel #travelgram");
    await postIdAs(client, "more #travel and #Путешествие");
    let res = await search(client, { q: "#trav", type: "hashtags" });
    expect(res.body.data.hashtags).toEqual([
      { tag: "travel", postCount: 2 },
      { tag: "travelgram", postCount: 1 },
    ]);
    res = await search(client, { q: "путе", type: "hashtags" });
    expect(res.body.data.hashtags).toEqual([{ tag: "путешествие", postCount: 1 }]);
    res = await search(client, { q: "trav_", type: "hashtags" });
    expect(res.body.data.hashtags).toEqual([]);
  });

  test("hashtags page by the shared cursor, which carries the longest tag", async () => {
    const { client } = await person();
    // the longest tag (64 characters) of three-byte letters: its cursor is past 200 characters
    const long = `ъ${"漢".repeat(63)}`;
    await postIdAs(client, `#ъa #ъb #${long} #ъ龥`);
    const seen: string[] = [];
    const cursors: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const res = await search(client, { q: "ъ", type: "hashtags", limit: "1", ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.hashtags.map((h: any) => h.tag));
      cursor = res.body.data.nextCursor;
      if (!cursor) break;
      cursors.push(cursor);
    }
    expect(seen).toEqual(["ъa", "ъb", long, "ъ龥"]);
    expect(Math.max(...cursors.map((c) => c.length))).toBeGreaterThan(200);
    // a cursor of another list (a time, not a name) is refused like garbage
    const feedCursor = Buffer.from(JSON.stringify([1_700_000_000_000, 5])).toString("base64url");
    const res = await search(client, { q: "ъ", type: "hashtags", cursor: feedCursor });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.cursor).toBeDefined();
  });

  test("all types at once, and bad input", async () => {
    const { client } = await person({ username: "solar_fan" });
    const p = await postIdAs(client, "solar power #solar");
    const res = await search(client, { q: "solar" });
    expect(res.status).toBe(200);
    expect(res.body.data.type).toBe("all");
    expect(res.body.data.users.map((u: any) => u.username)).toContain("solar_fan");
    expect(res.body.data.posts.map((x: any) => x.id)).toContain(p);
    expect(res.body.data.hashtags.map((h: any) => h.tag)).toEqual(["solar"]);
    expect(Array.isArray(res.body.data.messages)).toBe(true);
    expect(res.body.data.cursors).toEqual({ users: null, posts: null, hashtags: null, messages: null });
    let bad = await search(client, { q: "x", type: "videos" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fieldErrors.type).toBeDefined();
    bad = await client.get("/api/social/search");
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fieldErrors.q).toBeDefined();
    bad = await search(client, { q: "x", limit: "51" });
    expect(bad.status).toBe(400);
    const empty = await search(client, { q: "   " });
    expect(empty.body.data).toMatchObject({ users: [], posts: [], hashtags: [], messages: [] });
    expect((await new TestClient(server.url).get("/api/social/search?q=x")).status).toBe(401);
  });
});

describe("search messages", () => {
  test("only chats the viewer is in, case and diacritics insensitive, with cursor", async () => {
    const a = await person();
    const b = await person();
    const outsider = await person();
    const chat = await openPrivateChat(server.app, a.user.id, b.user.id);
    const texts = ["Встреча в КАФЕ завтра", "see you at the café", "unrelated", "Кафе закрыто", "cafe? 🎉"];
    for (const content of texts)
      await sendMessage(server.app, { conversationId: chat.id, senderId: a.user.id, content });
    let res = await search(b.client, { q: "кафе", type: "messages" });
    expect(res.status).toBe(200);
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["Кафе закрыто", "Встреча в КАФЕ завтра"]);
    expect(res.body.data.messages[0]).toMatchObject({
      conversationId: chat.cuid,
      sender: { username: a.user.username },
    });
    res = await search(a.client, { q: "CAFE", type: "messages", limit: "1" });
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["cafe? 🎉"]);
    res = await search(a.client, { q: "CAFE", type: "messages", limit: "1", cursor: res.body.data.nextCursor });
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["see you at the café"]);
    res = await search(a.client, { q: "🎉", type: "messages" });
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["cafe? 🎉"]);
    res = await search(outsider.client, { q: "кафе", type: "messages" });
    expect(res.body.data.messages).toEqual([]);
    res = await search(a.client, { q: "кафе", type: "messages", cursor: "@@" });
    expect(res.status).toBe(400);
  });
});

describe("search one chat's messages", () => {
  test("chatId keeps one chat's messages, of a chat I am in, with type=messages only", async () => {
    const a = await person();
    const b = await person();
    const c = await person();
    const withB = await openPrivateChat(server.app, a.user.id, b.user.id);
    const withC = await openPrivateChat(server.app, a.user.id, c.user.id);
    for (const content of ["lighthouse one", "lighthouse two", "nothing here"])
      await sendMessage(server.app, { conversationId: withB.id, senderId: a.user.id, content });
    await sendMessage(server.app, { conversationId: withC.id, senderId: c.user.id, content: "lighthouse three" });
    let res = await search(a.client, { q: "lighthouse", type: "messages" });
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual([
      "lighthouse three",
      "lighthouse two",
      "lighthouse one",
    ]);
    res = await search(a.client, { q: "lighthouse", type: "messages", chatId: withB.cuid, limit: "1" });
    expect(res.status).toBe(200);
    expect(res.body.data.messages.map((m: any) => [m.content, m.conversationId])).toEqual([
      ["lighthouse two", withB.cuid],
    ]);
    // each result's chat, as I see it (a private chat is named by the other person)
    expect(res.body.data.chats).toEqual([
      expect.objectContaining({
        id: withB.cuid,
        type: "private",
        otherUser: expect.objectContaining({ username: b.user.username }),
      }),
    ]);
    res = await search(a.client, {
      q: "lighthouse",
      type: "messages",
      chatId: withB.cuid,
      cursor: res.body.data.nextCursor,
    });
    expect(res.body.data).toMatchObject({ messages: [{ content: "lighthouse one" }], nextCursor: null });
    res = await search(a.client, { q: "lighthouse", type: "messages", chatId: withC.cuid });
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["lighthouse three"]);

    // a chat I am not in is not found; chatId goes with type=messages only
    res = await search(b.client, { q: "lighthouse", type: "messages", chatId: withC.cuid });
    expect(res.status).toBe(404);
    res = await search(a.client, { q: "lighthouse", chatId: withB.cuid });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.chatId).toBeDefined();
  });
});

describe("hostile queries", () => {
  test("NUL and other control characters are separators, not a 500", async () => {
    const { client } = await person();
    const id = await postIdAs(client, "control characters stay harmless");
    for (const q of ["\0", "a\0b", "control\0", "\u0001\u001f\u007f", "harm\u0000less", "\0\0\0\0"]) {
      for (const type of [undefined, "users", "posts", "hashtags", "messages"]) {
        const res = await search(client, type ? { q, type } : { q });
        expect({ q, type, status: res.status, success: res.body.success }).toEqual({
          q,
          type,
          status: 200,
          success: true,
        });
      }
    }
    // the NUL splits terms, it does not end the query
    const res = await search(client, { q: "control\0charac", type: "posts" });
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([id]);
  });
});
