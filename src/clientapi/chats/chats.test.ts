import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser } from "../../testing/fixtures";
import { fewestStatements } from "../../testing/statements";
import { quickPerson } from "../../testing/fixtures";
import { storeUpload } from "../../media/uploads";
import { MP4_HEAD, padTo, pngOf, wavHead } from "../../testing/media";
import {
  editMessage,
  findConversationByCuid,
  findMessageBySeq,
  memberCount,
  openPrivateChat,
  postSystemMessage,
  sendMessage,
} from "../../domain/chats";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

type Person = Awaited<ReturnType<typeof quickPerson>>;
const person = () => quickPerson(server);

async function openChat(a: Person, b: Person): Promise<string> {
  const res = await a.client.post(`/api/social/users/${b.user.username}/message`);
  expect(res.status).toBe(200);
  return res.body.data.conversationId;
}

async function send(p: Person, cid: string, body: Record<string, unknown>) {
  return p.client.post(`/api/social/messages/${cid}`, body);
}

describe("private chats", () => {
  test("opening is idempotent and both sides see the same chat", async () => {
    const [a, b] = [await person(), await person()];
    const first = await a.client.post(`/api/social/users/${b.user.username}/message`);
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    const cid = first.body.data.conversationId;
    expect(typeof cid).toBe("string");
    expect(first.body.data.conversation).toMatchObject({
      type: "private",
      otherUser: { username: b.user.username },
      memberCount: 2,
    });
    const again = await a.client.post(`/api/social/users/${b.user.username}/message`);
    expect(again.body.data.conversationId).toBe(cid);
    const back = await b.client.post(`/api/social/users/${a.user.username}/message`);
    expect(back.body.data.conversationId).toBe(cid);
  });

  test("unknown user, yourself, and signed-out callers", async () => {
    const a = await person();
    let res = await a.client.post("/api/social/users/nobody_at_all_zz/message");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    res = await a.client.post(`/api/social/users/${a.user.username}/message`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.username).toBeDefined();
    const anon = new TestClient(server.url);
    res = await anon.post(`/api/social/users/${a.user.username}/message`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
    res = await a.client.post(`/api/social/users/${a.user.username}/message`, {}, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
  });

  test("the open body may be absent or empty, but malformed JSON is refused and opens nothing", async () => {
    const [a, b] = [await person(), await person()];
    const path = `/api/social/users/${b.user.username}/message`;
    for (const raw of ["{bad json", "[1]", "null", "start=x"]) {
      const res = await a.client.request("POST", path, raw);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fieldErrors.body).toBeDefined();
    }
    expect((await a.client.get("/api/social/messages")).body.data.conversations).toEqual([]);
    let res = await a.client.request("POST", path, { start: 5 });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.start).toBeDefined();
    // no body at all, a blank body and {} all open the same chat
    res = await a.client.request("POST", path);
    expect(res.status).toBe(200);
    const cid = res.body.data.conversationId;
    for (const body of ["", "  ", {}]) {
      res = await a.client.request("POST", path, body);
      expect(res.status).toBe(200);
      expect(res.body.data.conversationId).toBe(cid);
    }
  });

  test("respects who may message me and blocks", async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    let res = await b.client.patch("/api/account/settings", { whoCanMessage: "nobody" });
    expect(res.status).toBe(200);
    res = await a.client.post(`/api/social/users/${b.user.username}/message`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    // "followed": only people b follows
    await b.client.patch("/api/account/settings", { whoCanMessage: "followed" });
    expect((await b.client.post(`/api/social/users/${a.user.username}/follow`)).status).toBe(200);
    res = await a.client.post(`/api/social/users/${b.user.username}/message`);
    expect(res.status).toBe(200);
    const cid = res.body.data.conversationId;
    res = await c.client.post(`/api/social/users/${b.user.username}/message`);
    expect(res.status).toBe(403);
    // a block stops sending in an existing chat, and the blocked side no longer finds b
    expect((await send(a, cid, { content: "before block" })).status).toBe(200);
    expect((await b.client.post(`/api/social/users/${a.user.username}/block`)).status).toBe(200);
    res = await send(a, cid, { content: "after block" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    res = await a.client.post(`/api/social/users/${b.user.username}/message`);
    expect(res.status).toBe(404);
    res = await send(b, cid, { content: "b writes to someone b blocked" });
    expect(res.status).toBe(403);
  });

  test("start labels reach bots as /start <label>; bad labels are refused", async () => {
    const a = await person();
    const bot = await makeUser(server.app, {
      username: `helper${Date.now() % 100000}_bot`,
      isBot: true,
      email: null,
      password: null,
    });
    let res = await a.client.post(`/api/social/users/${bot.username}/message`, { start: "bad label!" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.start).toBeDefined();
    res = await a.client.post(`/api/social/users/${bot.username}/message`, { start: "x".repeat(65) });
    expect(res.status).toBe(400);
    const opened: unknown[] = [];
    server.app.hooks.on("chat:opened", (p) => void opened.push(p));
    res = await a.client.post(`/api/social/users/${bot.username}/message`, { start: "promo-2024_A" });
    expect(res.status).toBe(200);
    const cid = res.body.data.conversationId;
    const conv = (await findConversationByCuid(server.app.db, cid))!;
    expect(opened).toContainEqual({
      conversationId: conv.id,
      userId: a.user.id,
      otherUserId: bot.id,
      startLabel: "promo-2024_A",
    });
    const history = await a.client.get(`/api/social/messages/${cid}`);
    expect(history.body.data.messages[0]).toMatchObject({
      content: "/start promo-2024_A",
      entities: [{ type: "bot_command", offset: 0, length: 6 }],
      sender: { username: a.user.username, isBot: false },
    });
    // the bot answers through the domain (the Bot API path) and the person sees isBot
    await sendMessage(server.app, {
      conversationId: conv.id,
      senderId: bot.id,
      content: "Hi!",
      replyMarkup: { inline_keyboard: [[{ text: "Go", callback_data: "go" }]] },
    });
    const after = await a.client.get(`/api/social/messages/${cid}`);
    expect(after.body.data.messages[0]).toMatchObject({
      content: "Hi!",
      sender: { username: bot.username, isBot: true },
      replyMarkup: { inline_keyboard: [[{ text: "Go", callback_data: "go" }]] },
    });
  });
});

describe("domain API used by the Bot API", () => {
  test("bots answer but never start chats; edits keep or remove buttons; outsiders get NOT_FOUND", async () => {
    const a = await person();
    const outsider = await person();
    const bot = await makeUser(server.app, {
      username: `answer${Date.now() % 100000}_bot`,
      isBot: true,
      email: null,
      password: null,
    });
    await expect(openPrivateChat(server.app, bot.id, a.user.id)).rejects.toMatchObject({ status: 403 });
    const cid = await openChat(a, { user: bot } as unknown as Person);
    const conv = (await findConversationByCuid(server.app.db, cid))!;
    expect((await openPrivateChat(server.app, bot.id, a.user.id)).id).toBe(conv.id);
    const keyboard = { inline_keyboard: [[{ text: "A", callback_data: "a" }]] };
    const sent = await sendMessage(server.app, {
      conversationId: conv.id,
      senderId: bot.id,
      content: "pick",
      replyMarkup: keyboard,
    });
    expect(sent.seq).toBe(1);
    let edited = await editMessage(server.app, {
      conversationId: conv.id,
      seq: sent.seq,
      editorId: bot.id,
      content: "pick again",
    });
    expect(JSON.parse(edited.reply_markup!)).toEqual(keyboard);
    edited = await editMessage(server.app, {
      conversationId: conv.id,
      seq: sent.seq,
      editorId: bot.id,
      replyMarkup: null,
    });
    expect(edited.reply_markup).toBeNull();
    expect(edited.content).toBe("pick again");
    await expect(
      editMessage(server.app, { conversationId: conv.id, seq: sent.seq, editorId: a.user.id, content: "x" }),
    ).rejects.toMatchObject({ code: "PERMISSION_DENIED" });
    await expect(
      sendMessage(server.app, { conversationId: conv.id, senderId: outsider.user.id, content: "x" }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(findMessageBySeq(server.app.db, conv.id, 99)).resolves.toBeUndefined();
    const shown = (await a.client.get(`/api/social/messages/${cid}`)).body.data.messages[0];
    expect(shown).toMatchObject({
      messageId: 1,
      content: "pick again",
      replyMarkup: null,
      editedAt: expect.any(String),
    });
    expect(await memberCount(server.app.db, conv.id)).toBe(2);
  });
});

describe("messages", () => {
  test("send, history order, paging with before, and list of chats with unread counts", async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    const cid = await openChat(a, b);
    const other = await openChat(a, c);
    for (let i = 1; i <= 5; i++) expect((await send(a, cid, { content: `m${i}` })).status).toBe(200);
    let res = await b.client.get(`/api/social/messages/${cid}?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["m5", "m4"]);
    expect(res.body.data.messages[0].messageId).toBe(5);
    expect(res.body.data.conversation.type).toBe("private");
    const cursor = res.body.data.pageInfo.oldestCursor;
    expect(cursor).toBe(res.body.data.pageInfo.nextCursor);
    res = await b.client.get(`/api/social/messages/${cid}?limit=2&before=${cursor}`);
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["m3", "m2"]);
    res = await b.client.get(`/api/social/messages/${cid}?limit=2&before=${res.body.data.pageInfo.oldestCursor}`);
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["m1"]);
    expect(res.body.data.pageInfo.oldestCursor).toBeNull();

    await send(c, other, { content: "from c" });
    res = await a.client.get("/api/social/messages");
    expect(res.body.data.conversations.map((x: any) => x.id)).toEqual([other, cid]);
    expect(res.body.data.conversations[0]).toMatchObject({ lastMessage: { content: "from c" }, unreadCount: 1 });
    expect(res.body.data.conversations[1]).toMatchObject({ lastMessage: { content: "m5" }, unreadCount: 0 });
    res = await a.client.get("/api/social/messages?limit=1");
    expect(res.body.data.conversations).toHaveLength(1);
    res = await a.client.get(`/api/social/messages?limit=1&cursor=${res.body.data.pageInfo.nextCursor}`);
    expect(res.body.data.conversations.map((x: any) => x.id)).toEqual([cid]);
    expect(res.body.data.pageInfo.nextCursor).toBeNull();

    res = await b.client.get("/api/social/messages");
    expect(res.body.data.conversations.find((x: any) => x.id === cid).unreadCount).toBe(5);
    const m4 = (await b.client.get(`/api/social/messages/${cid}?limit=2`)).body.data.messages[1];
    res = await b.client.post(`/api/social/messages/${cid}/read`, { messageId: m4.id });
    expect(res.body.data.lastReadMessageId).toBe(4);
    res = await b.client.get("/api/social/messages");
    expect(res.body.data.conversations.find((x: any) => x.id === cid).unreadCount).toBe(1);
    // the marker never moves back
    res = await b.client.post(`/api/social/messages/${cid}/read`, { messageId: 1 });
    expect(res.body.data.lastReadMessageId).toBe(4);
    res = await b.client.post(`/api/social/messages/${cid}/read`, { messageId: 999 });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.messageId).toBeDefined();
    // the sender sees how far the other side read when opening the chat (its own marker apart)
    res = await a.client.get(`/api/social/messages/${cid}?limit=1`);
    expect(res.body.data.conversation).toMatchObject({ othersReadMessageId: 4, lastReadMessageId: 5 });
    res = await b.client.get(`/api/social/messages/${cid}?limit=1`);
    expect(res.body.data.conversation).toMatchObject({ othersReadMessageId: 5, lastReadMessageId: 4 });
  });

  test("a private chat's history page reads the other party once (sender, title, read mark), reactions only where there were some", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    for (const [who, text] of [
      [a, "from a"],
      [b, "from b"],
    ] as const)
      expect((await send(who, cid, { content: text })).status).toBe(200);
    const page = () => a.client.get(`/api/social/messages/${cid}`);
    const senders = async () =>
      (
        (await page()).body.data.messages as { content: string; sender: { username: string; displayName: string } }[]
      ).map((m) => [m.content, m.sender.username, m.sender.displayName]);
    expect(await senders()).toEqual([
      ["from b", b.user.username, b.user.display_name],
      ["from a", a.user.username, a.user.display_name],
    ]);
    // a page read afresh (after a send: each try reads a new page): the chat with the reader's
    // membership and the other party with their read mark (one statement), then the page: the
    // senders are the reader (from the session) and the other party, and no message was ever
    // reacted to (its version would have moved)
    const onPostgres = server.app.storage.engine === "postgres" ? 1 : 0;
    const sent = () => send(b, cid, { content: "one more" });
    expect(await fewestStatements(server.app.storage, page, { before: sent })).toBe(2 + onPostgres);
    // asked again with nothing changed, the page is the one kept (history-answers.ts)
    expect(await fewestStatements(server.app.storage, page)).toBe(1 + onPostgres);
    // once reacted to, a message has the page read its reactions
    const [newest] = (await page()).body.data.messages as { id: string }[];
    const react = (emoji: string) => a.client.post(`/api/social/messages/${cid}/${newest!.id}/reactions`, { emoji });
    expect((await react("👍")).status).toBe(200);
    expect((await page()).body.data.messages[0].reactions).toEqual([{ emoji: "👍", count: 1, userIds: [a.user.cuid] }]);
    // (the reaction's own work after its answer, a push plan for the person told, is let finish
    // first; each try reacts again, so reads a new page)
    const settled = () => Bun.sleep(50);
    const reactedAgain = () => react("👍").then(settled);
    expect(await fewestStatements(server.app.storage, page, { before: reactedAgain })).toBe(3 + onPostgres);
    // a renamed party shows renamed on the next page, whichever side asks
    expect((await b.client.patch("/api/account/profile", { displayName: "Bee Renamed" })).status).toBe(200);
    expect((await a.client.patch("/api/account/profile", { displayName: "Ay Renamed" })).status).toBe(200);
    expect((await senders()).slice(-2)).toEqual([
      ["from b", b.user.username, "Bee Renamed"],
      ["from a", a.user.username, "Ay Renamed"],
    ]);
  });

  test("paging back down with after: each page says where the history goes on, both ways", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    for (let i = 1; i <= 7; i++) expect((await send(a, cid, { content: `m${i}` })).status).toBe(200);
    const page = async (query: string, limit = 3) => {
      const res = await b.client.get(`/api/social/messages/${cid}?limit=${limit}${query}`);
      expect(res.status).toBe(200);
      const { messages, pageInfo } = res.body.data;
      return { contents: messages.map((m: any) => m.content), ...pageInfo };
    };
    const newest = await page("");
    expect(newest).toMatchObject({ contents: ["m7", "m6", "m5"], newestCursor: null });
    const middle = await page(`&before=${newest.oldestCursor}`);
    expect(middle.contents).toEqual(["m4", "m3", "m2"]);
    const first = await page(`&before=${middle.oldestCursor}`);
    expect(first).toMatchObject({ contents: ["m1"], oldestCursor: null });
    // back down from the beginning: newest first within a page, as every page
    const down1 = await page(`&after=${first.newestCursor}`);
    expect(down1.contents).toEqual(["m4", "m3", "m2"]);
    expect(down1.oldestCursor).toBe(middle.oldestCursor);
    const down2 = await page(`&after=${down1.newestCursor}`);
    expect(down2).toMatchObject({ contents: ["m7", "m6", "m5"], newestCursor: null });
    // and up again from a page loaded going down
    expect((await page(`&before=${down2.oldestCursor}`)).contents).toEqual(["m4", "m3", "m2"]);

    // a message deleted for me is skipped going down too; at the newest end the page is empty
    const m6 = (await b.client.get(`/api/social/messages/${cid}?limit=2`)).body.data.messages[1];
    expect(m6.content).toBe("m6");
    expect((await b.client.delete(`/api/social/messages/${cid}/${m6.id}`)).status).toBe(200);
    expect(await page(`&after=${down1.newestCursor}`)).toMatchObject({ contents: ["m7", "m5"], newestCursor: null });
    const m7 = await page("", 1);
    expect(await page(`&after=${m7.oldestCursor}`)).toMatchObject({
      contents: [],
      oldestCursor: m7.oldestCursor,
      newestCursor: null,
    });

    let res = await b.client.get(
      `/api/social/messages/${cid}?after=${first.newestCursor}&before=${newest.oldestCursor}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.after).toBeDefined();
    res = await b.client.get(`/api/social/messages/${cid}?after=garbage`);
    expect(res.body.error.details.fieldErrors.after).toBeDefined();
  });

  test("around a message: the page that holds it, with cursors going on both ways", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    const ids: string[] = [];
    for (let i = 1; i <= 9; i++) ids.push((await send(a, cid, { content: `m${i}` })).body.data.message.id);
    const page = async (query: string) => {
      const res = await b.client.get(`/api/social/messages/${cid}?${query}`);
      expect(res.status).toBe(200);
      const { messages, pageInfo } = res.body.data;
      return { contents: messages.map((m: any) => m.content), ...pageInfo };
    };
    // m3 and the older half of the page, then the newer ones, newest first as every page
    const around = await page(`limit=4&around=${ids[2]}`);
    expect(around.contents).toEqual(["m5", "m4", "m3", "m2"]);
    expect((await page(`limit=4&before=${around.oldestCursor}`)).contents).toEqual(["m1"]);
    expect((await page(`limit=4&after=${around.newestCursor}`)).contents).toEqual(["m9", "m8", "m7", "m6"]);
    // by messageId too; near the newest end the newer cursor is null (live messages join it)
    expect(await page("limit=4&around=8")).toMatchObject({ contents: ["m9", "m8", "m7"], newestCursor: null });
    expect(await page("limit=2&around=1")).toMatchObject({ contents: ["m2", "m1"], oldestCursor: null });

    // a message deleted for me, or of another chat, is not found; around goes alone
    await b.client.delete(`/api/social/messages/${cid}/${ids[4]}`);
    let res = await b.client.get(`/api/social/messages/${cid}?around=${ids[4]}`);
    expect(res.status).toBe(404);
    const other = await openChat(a, await person());
    res = await a.client.get(`/api/social/messages/${other}?around=${ids[0]}`);
    expect(res.status).toBe(404);
    res = await b.client.get(`/api/social/messages/${cid}?around=${ids[0]}&before=${around.oldestCursor}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.around).toBeDefined();
  });

  test("bad input: oversize content, empty content, long clientMessageId, bad paging, unknown chat", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    let res = await send(a, cid, { content: "x".repeat(4097) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    expect((await send(a, cid, { content: "x".repeat(4096) })).status).toBe(200);
    res = await send(a, cid, { content: "   " });
    expect(res.status).toBe(400);
    res = await send(a, cid, {});
    expect(res.status).toBe(400);
    res = await send(a, cid, { content: "hi", clientMessageId: "k".repeat(65) });
    expect(res.body.error.details.fieldErrors.clientMessageId).toBeDefined();
    res = await send(a, cid, { content: 42 });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    res = await send(a, cid, { content: "hi", entities: [{ type: "bold", offset: 1, length: 5 }] });
    expect(res.body.error.details.fieldErrors["entities.0"]).toBeDefined();
    res = await send(a, cid, { content: "hi", replyToId: "nope" });
    expect(res.body.error.details.fieldErrors.replyToId).toBeDefined();
    res = await a.client.get(`/api/social/messages/${cid}?limit=0`);
    expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    res = await a.client.get(`/api/social/messages/${cid}?before=garbage`);
    expect(res.body.error.details.fieldErrors.before).toBeDefined();
    res = await a.client.get(`/api/social/messages/${cid}?limit=101`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    res = await a.client.get("/api/social/messages?cursor=garbage");
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.cursor).toBeDefined();
    res = await a.client.get("/api/social/messages?limit=abc");
    expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    res = await a.client.get("/api/social/messages/ckunknownconversation00");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    res = await send(a, "ckunknownconversation00", { content: "hi" });
    expect(res.status).toBe(404);
    // nothing was stored by the refused sends
    res = await a.client.get(`/api/social/messages/${cid}`);
    expect(res.body.data.messages).toHaveLength(1);
  });

  test("clientMessageId makes a send idempotent", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    const one = await send(a, cid, { content: "once", clientMessageId: "abc-1" });
    const two = await send(a, cid, { content: "once", clientMessageId: "abc-1" });
    expect(two.body.data.message.id).toBe(one.body.data.message.id);
    const parallel = await Promise.all([1, 2, 3].map(() => send(a, cid, { content: "p", clientMessageId: "abc-2" })));
    expect(new Set(parallel.map((r) => r.body.data.message.id)).size).toBe(1);
    // the same key from the other person is a different message
    const theirs = await send(b, cid, { content: "mine", clientMessageId: "abc-1" });
    expect(theirs.body.data.message.id).not.toBe(one.body.data.message.id);
    const res = await a.client.get(`/api/social/messages/${cid}`);
    expect(res.body.data.messages.map((m: any) => m.content)).toEqual(["mine", "p", "once"]);
  });

  test("a repeated clientMessageId takes no messageId, and answers even after a block", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    const one = (await send(a, cid, { content: "first", clientMessageId: "seq-1" })).body.data.message;
    for (let i = 0; i < 3; i++) {
      const again = await send(a, cid, { content: "first", clientMessageId: "seq-1" });
      expect(again.status).toBe(200);
      expect(again.body.data.message).toMatchObject({ id: one.id, messageId: one.messageId, content: "first" });
    }
    // the refused repeats rolled their number back: the next message follows on
    const next = (await send(a, cid, { content: "second", clientMessageId: "seq-2" })).body.data.message;
    expect(next.messageId).toBe(one.messageId + 1);
    const chat = await a.client.get(`/api/social/messages/${cid}`);
    expect(chat.body.data.messages.map((m: any) => m.content)).toEqual(["second", "first"]);
    expect(chat.body.data.conversation.lastReadMessageId).toBe(next.messageId);
    // after b blocks a, a retry of a stored send still answers it; a new one is refused
    expect((await b.client.post(`/api/social/users/${a.user.username}/block`)).status).toBe(200);
    const retry = await send(a, cid, { content: "second", clientMessageId: "seq-2" });
    expect(retry.status).toBe(200);
    expect(retry.body.data.message.id).toBe(next.id);
    const fresh = await send(a, cid, { content: "third", clientMessageId: "seq-3" });
    expect(fresh.status).toBe(403);
    expect(fresh.body.error.code).toBe("FORBIDDEN");
  });

  test("the send answers the message exactly as the members' message:new event shows it", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    const seen: { userId: number; event: string; data: any }[] = [];
    const stops = [a, b].map((p) => server.app.events.subscribe(p.user.id, (e) => seen.push(e)));
    try {
      const first = (await send(a, cid, { content: "hello" })).body.data.message;
      const reply = (await send(b, cid, { content: "hi back", replyToId: first.id })).body.data.message;
      for (const [sent, text] of [
        [first, "hello"],
        [reply, "hi back"],
      ] as const) {
        const events = seen.filter((e) => e.event === "message:new" && e.data.message.id === sent.id);
        expect(events.map((e) => e.userId).sort()).toEqual([a.user.id, b.user.id].sort());
        for (const e of events) expect(e.data).toEqual({ conversationId: cid, message: sent });
        expect(sent).toMatchObject({ content: text, reactions: [], conversationId: cid });
      }
      expect(reply).toMatchObject({
        replyToId: first.id,
        replyTo: { id: first.id, content: "hello", sender: { username: a.user.username } },
        sender: { username: b.user.username },
      });
      // a message reacted to shows its reactions when it comes back (the history reads them)
      expect((await b.client.post(`/api/social/messages/${cid}/${first.id}/reactions`, { emoji: "👍" })).status).toBe(
        200,
      );
      const history = await a.client.get(`/api/social/messages/${cid}`);
      const shown = history.body.data.messages.find((m: any) => m.id === first.id);
      expect(shown.reactions).toEqual([{ emoji: "👍", count: 1, userIds: [b.user.cuid] }]);
      // an edit answers what its message:edited event shows, reactions included
      const edited = await a.client.patch(`/api/social/messages/${cid}/${first.id}`, { content: "hello again" });
      expect(edited.status).toBe(200);
      expect(edited.body.data.message).toMatchObject({
        id: first.id,
        content: "hello again",
        reactions: [{ emoji: "👍", count: 1, userIds: [b.user.cuid] }],
      });
      const editEvents = seen.filter((e) => e.event === "message:edited" && e.data.message.id === first.id);
      expect(editEvents).toHaveLength(2);
      for (const e of editEvents) expect(e.data).toEqual({ conversationId: cid, message: edited.body.data.message });
    } finally {
      for (const stop of stops) stop();
    }
  });

  test("with nobody connected the send answers the message as the history shows it; a repeat shows its reactions", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    // nobody of the chat has a stream: no live event is built, the route shapes the answer
    expect(server.app.events.wants([a.user.id, b.user.id])).toBe(false);
    const first = (await send(a, cid, { content: "hello", clientMessageId: "k-1" })).body.data.message;
    const reply = (await send(b, cid, { content: "hi back", replyToId: first.id })).body.data.message;
    const history = (await a.client.get(`/api/social/messages/${cid}`)).body.data.messages;
    expect(history).toEqual([reply, first]);
    expect(reply).toMatchObject({ replyToId: first.id, replyTo: { id: first.id, content: "hello" } });
    expect(first).toMatchObject({ content: "hello", reactions: [], sender: { username: a.user.username } });
    // a retry of the stored send answers it as it is now, reactions included
    expect((await b.client.post(`/api/social/messages/${cid}/${first.id}/reactions`, { emoji: "👍" })).status).toBe(
      200,
    );
    const retry = (await send(a, cid, { content: "hello", clientMessageId: "k-1" })).body.data.message;
    expect(retry).toEqual({ ...first, reactions: [{ emoji: "👍", count: 1, userIds: [b.user.cuid] }] });
  });

  test("a stranger gets NOT_FOUND for someone else's chat and messages", async () => {
    const [a, b, eve] = [await person(), await person(), await person()];
    const cid = await openChat(a, b);
    const m = (await send(a, cid, { content: "secret" })).body.data.message;
    for (const res of [
      await eve.client.get(`/api/social/messages/${cid}`),
      await send(eve, cid, { content: "hi" }),
      await eve.client.patch(`/api/social/messages/${cid}/${m.id}`, { content: "x" }),
      await eve.client.delete(`/api/social/messages/${cid}/${m.id}?forEveryone=true`),
      await eve.client.post(`/api/social/messages/${cid}/${m.id}/reactions`, { emoji: "👍" }),
      await eve.client.post(`/api/social/messages/${cid}/${m.id}/pin`),
      await eve.client.post(`/api/social/messages/${cid}/read`, { messageId: m.id }),
      await eve.client.post(`/api/social/messages/${cid}/typing`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
      expect(JSON.stringify(res.body)).not.toContain("secret");
    }
    const own = await openChat(eve, a);
    let res = await eve.client.post(`/api/social/messages/${cid}/${m.id}/forward`, { toConversationId: own });
    expect(res.status).toBe(404);
    // the message's id used inside eve's own chat finds nothing either
    for (const r of [
      await eve.client.patch(`/api/social/messages/${own}/${m.id}`, { content: "x" }),
      await eve.client.post(`/api/social/messages/${own}/${m.id}/reactions`, { emoji: "👍" }),
      await eve.client.post(`/api/social/messages/${own}/${m.id}/forward`, { toConversationId: own }),
      await eve.client.delete(`/api/social/messages/${own}/${m.id}`),
    ]) {
      expect(r.status).toBe(404);
      expect(JSON.stringify(r.body)).not.toContain("secret");
    }
    res = await send(eve, own, { content: "quoting", replyToId: m.id });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.replyToId).toBeDefined();
    res = await eve.client.post(`/api/social/messages/${own}/read`, { messageId: m.id });
    expect(res.status).toBe(400);
    // forwarding into a chat one is not in is NOT_FOUND too, and nothing reached eve's chat
    const bc = await openChat(b, await person());
    res = await a.client.post(`/api/social/messages/${cid}/${m.id}/forward`, { toConversationId: bc });
    expect(res.status).toBe(404);
    expect((await eve.client.get(`/api/social/messages/${own}`)).body.data.messages).toEqual([]);
  });

  test("edit, delete for me and for everyone", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    const m = (await send(a, cid, { content: "first" })).body.data.message;
    expect(m.editedAt).toBeNull();
    let res = await a.client.patch(`/api/social/messages/${cid}/${m.id}`, { content: "first (edited)" });
    expect(res.status).toBe(200);
    expect(res.body.data.message.content).toBe("first (edited)");
    expect(res.body.data.message.editedAt).not.toBeNull();
    // the integer messageId works too
    res = await a.client.patch(`/api/social/messages/${cid}/${m.messageId}`, { content: "again" });
    expect(res.body.data.message.content).toBe("again");
    res = await b.client.patch(`/api/social/messages/${cid}/${m.id}`, { content: "hijack" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("PERMISSION_DENIED");
    res = await a.client.patch(`/api/social/messages/${cid}/${m.id}`, { content: "y".repeat(4097) });
    expect(res.status).toBe(400);
    // nothing to change (no text, no descriptions) is a VALIDATION_ERROR
    res = await a.client.patch(`/api/social/messages/${cid}/${m.id}`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    res = await a.client.patch(`/api/social/messages/${cid}/ckmissingmessage0000000`, { content: "x" });
    expect(res.status).toBe(404);

    const m2 = (await send(b, cid, { content: "b's" })).body.data.message;
    res = await a.client.delete(`/api/social/messages/${cid}/${m2.id}?forEveryone=true`);
    expect(res.status).toBe(403);
    res = await a.client.delete(`/api/social/messages/${cid}/${m2.id}?forEveryone=maybe`);
    expect(res.status).toBe(400);
    res = await a.client.delete(`/api/social/messages/${cid}/${m2.id}`);
    expect(res.status).toBe(200);
    expect((await a.client.get(`/api/social/messages/${cid}`)).body.data.messages.map((x: any) => x.content)).toEqual([
      "again",
    ]);
    expect((await b.client.get(`/api/social/messages/${cid}`)).body.data.messages.map((x: any) => x.content)).toEqual([
      "b's",
      "again",
    ]);
    res = await a.client.delete(`/api/social/messages/${cid}/${m.id}?forEveryone=true`);
    expect(res.status).toBe(200);
    expect((await b.client.get(`/api/social/messages/${cid}`)).body.data.messages.map((x: any) => x.content)).toEqual([
      "b's",
    ]);
    res = await a.client.delete(`/api/social/messages/${cid}/${m.id}?forEveryone=true`);
    expect(res.status).toBe(404);
  });

  test("replies, reactions (one per person), pin and forward", async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    const cid = await openChat(a, b);
    const m = (await send(a, cid, { content: "question?" })).body.data.message;
    const r = (await send(b, cid, { content: "answer", replyToId: m.id })).body.data.message;
    expect(r.replyToId).toBe(m.id);
    expect(r.replyTo).toMatchObject({
      id: m.id,
      messageId: m.messageId,
      content: "question?",
      sender: { username: a.user.username },
    });

    let res = await a.client.post(`/api/social/messages/${cid}/${r.id}/reactions`, { emoji: "👍" });
    expect(res.status).toBe(200);
    await b.client.post(`/api/social/messages/${cid}/${r.id}/reactions`, { emoji: "👍" });
    res = await a.client.post(`/api/social/messages/${cid}/${r.id}/reactions`, { emoji: "❤️" });
    // equal counts: ordered by emoji code point ("❤" U+2764 before "👍" U+1F44D), never by timing
    expect(res.body.data.reactions).toEqual([
      { emoji: "❤️", count: 1, userIds: [a.user.cuid] },
      { emoji: "👍", count: 1, userIds: [b.user.cuid] },
    ]);
    // the history shows the same order
    const shownAgain = (await a.client.get(`/api/social/messages/${cid}`)).body.data.messages.find(
      (x: { id: string }) => x.id === r.id,
    );
    expect(shownAgain.reactions.map((x: { emoji: string }) => x.emoji)).toEqual(["❤️", "👍"]);
    res = await a.client.post(`/api/social/messages/${cid}/${r.id}/reactions`, { emoji: null });
    expect(res.body.data.reactions).toEqual([{ emoji: "👍", count: 1, userIds: [b.user.cuid] }]);
    // one per person: a's reaction joins b's, in the order they were set
    res = await a.client.post(`/api/social/messages/${cid}/${r.id}/reactions`, { emoji: "👍" });
    expect(res.body.data.reactions).toEqual([{ emoji: "👍", count: 2, userIds: [b.user.cuid, a.user.cuid] }]);
    res = await a.client.post(`/api/social/messages/${cid}/${r.id}/reactions`, { emoji: null });
    res = await a.client.post(`/api/social/messages/${cid}/${r.id}/reactions`, { emoji: "lol" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.emoji).toBeDefined();
    res = await a.client.post(`/api/social/messages/${cid}/${r.id}/reactions`, {});
    expect(res.status).toBe(422);

    res = await a.client.post(`/api/social/messages/${cid}/${m.id}/pin`);
    expect(res.body.data.message.pinned).toBe(true);
    res = await a.client.delete(`/api/social/messages/${cid}/${m.id}/pin`);
    expect(res.body.data.message.pinned).toBe(false);

    const toC = await openChat(b, c);
    res = await b.client.post(`/api/social/messages/${cid}/${m.id}/forward`, { toConversationId: toC });
    expect(res.status).toBe(200);
    expect(res.body.data.message).toMatchObject({
      content: "question?",
      sender: { username: b.user.username },
      forwardedFrom: { sender: { username: a.user.username }, messageId: m.messageId },
    });
    res = await c.client.get(`/api/social/messages/${toC}`);
    expect(res.body.data.messages[0].forwardedFrom.sender.username).toBe(a.user.username);
    res = await b.client.post(`/api/social/messages/${cid}/${m.id}/forward`, {
      toConversationId: "ckunknownconversation00",
    });
    expect(res.status).toBe(404);
    res = await b.client.post(`/api/social/messages/${cid}/${m.id}/forward`, {});
    expect(res.status).toBe(422);
  });

  test("media must be this instance's uploads owned by the sender; server-measured fields win", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    const mine = await storeUpload(server.app, {
      ownerId: a.user.id,
      kind: "chat-image",
      data: await pngOf(server.app, 12, 7),
    });
    const theirs = await storeUpload(server.app, {
      ownerId: b.user.id,
      kind: "chat-image",
      data: await pngOf(server.app, 5, 5),
    });
    const attachedAt = async () =>
      (
        await server.app.db
          .selectFrom("uploads")
          .select("attached_at")
          .where("id", "=", mine.id)
          .executeTakeFirstOrThrow()
      ).attached_at;
    // a refused send leaves the file unattached (the cleanup of abandoned uploads may take it)
    let res = await send(a, cid, { content: "x".repeat(4097), media: [{ type: "image", url: mine.url }] });
    expect(res.status).toBe(400);
    expect(await attachedAt()).toBeNull();
    res = await send(a, cid, { media: [{ type: "image", url: mine.url, width: 9999, sizeBytes: 1 }] });
    expect(res.status).toBe(200);
    expect(await attachedAt()).toBeGreaterThan(0);
    expect(res.body.data.message.content).toBe("");
    expect(res.body.data.message.media[0]).toMatchObject({
      type: "image",
      url: mine.url,
      width: 12,
      height: 7,
      sizeBytes: mine.size_bytes,
      mime: "image/png",
    });
    res = await send(a, cid, { content: "caption", media: [{ type: "image", url: theirs.url }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors["media.0.url"]).toBeDefined();
    res = await send(a, cid, { media: [{ type: "image", url: "https://elsewhere.example/cat.png" }] });
    expect(res.body.error.details.fieldErrors["media.0.url"]).toBeDefined();
    res = await send(a, cid, { media: [{ type: "voice", url: mine.url }] });
    expect(res.body.error.details.fieldErrors["media.0.url"]).toBeDefined();
    res = await send(a, cid, { media: [{ type: "gif", url: mine.url }] });
    expect(res.body.error.details.fieldErrors["media.0.type"]).toBeDefined();
    res = await send(a, cid, { media: [{ type: "file", url: mine.url, name: "circle", durationMs: -1 }] });
    expect(res.body.error.details.fieldErrors["media.0.durationMs"]).toBeDefined();
    res = await send(a, cid, { media: [{ type: "file", url: mine.url, name: "notes.png", waveform: [1, 2, 3] }] });
    expect(res.status).toBe(200);
    expect(res.body.data.message.media[0]).toMatchObject({ type: "file", name: "notes.png", waveform: [1, 2, 3] });
    res = await a.client.get(`/api/social/messages/${cid}`);
    expect(res.body.data.messages).toHaveLength(2);
  });

  test("round videos and voice keep name, duration and waveform; video files can't pose as voice", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    const video = await storeUpload(server.app, {
      ownerId: a.user.id,
      kind: "chat-video",
      data: padTo(MP4_HEAD, 4096),
    });
    const voice = await storeUpload(server.app, {
      ownerId: a.user.id,
      kind: "chat-voice",
      data: padTo(wavHead(4000), 4044),
    });
    let res = await send(a, cid, {
      media: [{ type: "video", url: video.url, name: "circle", durationMs: 5200, width: 240, height: 240 }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.message.media).toEqual([
      expect.objectContaining({ type: "video", url: video.url, name: "circle", durationMs: 5200, sizeBytes: 4096 }),
    ]);
    res = await send(a, cid, {
      content: "listen",
      media: [{ type: "voice", url: voice.url, durationMs: 500, waveform: [0, 12, 31, 7] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.message.media[0]).toMatchObject({
      type: "voice",
      url: voice.url,
      durationMs: 500,
      waveform: [0, 12, 31, 7],
    });
    res = await send(a, cid, { media: [{ type: "voice", url: video.url }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors["media.0.url"]).toBeDefined();
    res = await send(a, cid, { media: [{ type: "sticker", url: video.url }] });
    expect(res.body.error.details.fieldErrors["media.0.url"]).toBeDefined();
    res = await send(a, cid, { media: Array.from({ length: 11 }, () => ({ type: "video", url: video.url })) });
    expect(res.body.error.details.fieldErrors.media).toBeDefined();
    // the other side sees exactly what the sender got back
    const seen = (await b.client.get(`/api/social/messages/${cid}`)).body.data.messages;
    expect(seen.map((m: any) => m.media[0].type)).toEqual(["voice", "video"]);
    expect(seen[1].media[0].name).toBe("circle");
  });

  test("message shapes: every field present; invoices, buttons and system messages as the bot flows need", async () => {
    const a = await person();
    const bot = await makeUser(server.app, {
      username: `shop${Date.now() % 100000}_bot`,
      isBot: true,
      email: null,
      password: null,
    });
    const cid = await openChat(a, { user: bot } as unknown as Person);
    const plain = (await send(a, cid, { content: "hi *there*", entities: [{ type: "bold", offset: 3, length: 7 }] }))
      .body.data.message;
    expect(plain).toMatchObject({
      id: expect.any(String),
      messageId: 1,
      conversationId: cid,
      kind: "user",
      content: "hi *there*",
      entities: [{ type: "bold", offset: 3, length: 7 }],
      media: [],
      replyMarkup: null,
      invoice: null,
      sender: { username: a.user.username, isBot: false },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      editedAt: null,
    });
    const conv = (await findConversationByCuid(server.app.db, cid))!;
    const invoice = {
      title: "Gold",
      description: "1 month",
      payload: "p-1",
      currency: "XTR",
      prices: [{ label: "Gold", amount: 50 }],
      totalAmount: 50,
    };
    await sendMessage(server.app, {
      conversationId: conv.id,
      senderId: bot.id,
      invoice,
      replyMarkup: { inline_keyboard: [[{ text: "Pay 50 ⭐", pay: true }]] },
    });
    await postSystemMessage(server.app, conv.id, bot.id, {
      action: "payment",
      payer: "Buyer",
      bot: "Shop",
      title: "Gold",
      invoiceMessageId: 1,
      totalAmount: 50,
      currency: "XTR",
      chargeId: "c-1",
    });
    const [system, bill] = (await a.client.get(`/api/social/messages/${cid}?limit=2`)).body.data.messages;
    expect(bill).toMatchObject({
      kind: "user",
      content: "",
      invoice,
      replyMarkup: { inline_keyboard: [[{ text: "Pay 50 ⭐", pay: true }]] },
      sender: { username: bot.username, isBot: true },
    });
    expect(system).toMatchObject({
      kind: "system",
      content: 'Buyer paid 50 ⭐ to Shop for "Gold"',
      system: { action: "payment", totalAmount: 50 },
      invoice: null,
    });
    // an invoice is not forwarded (it can be paid once, in its chat)
    const other = await openChat(a, await person());
    const res = await a.client.post(`/api/social/messages/${cid}/${bill.id}/forward`, { toConversationId: other });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.messageId).toBeDefined();
  });

  test("the data export lists my chats and only the messages I wrote", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await openChat(a, b);
    await send(a, cid, { content: "mine to export" });
    await send(b, cid, { content: "not a's" });
    const res = await a.client.get("/api/account/export");
    expect(res.status).toBe(200);
    const section = res.body.data.export.messages;
    expect(section.conversations.map((c: any) => c.id)).toContain(cid);
    expect(section.sent.map((m: any) => m.content)).toEqual(["mine to export"]);
  });

  test("sign-in codes arrive as messages from the system account", async () => {
    const a = await person();
    await server.app.hooks.emit("auth:deliver-code", { userId: a.user.id, code: "123456" });
    const res = await a.client.get("/api/social/messages");
    const chat = res.body.data.conversations.find((x: any) => x.otherUser?.username === "system");
    expect(chat).toBeDefined();
    expect(chat.lastMessage).toMatchObject({
      content: "Your sign-in code: 123456",
      sender: { username: "system", isSystem: true },
    });
  });
});
