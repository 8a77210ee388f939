import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listChats, type ChatListUser } from "../../domain/chats/chat-list";
import { KeptByVersion } from "../../lib/kept-by-version";
import { createGroup, sendMessage } from "../../domain/chats";
import { quickPerson } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { countingDb } from "../../testing/statements";
import { MessageShapes, messageShapesOf, serializeChatList } from "./serialize";
import type { MessageRow } from "../../domain/chats/table";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

/** Opens a private chat from FROM to TO's username and sends TEXTS; returns the chat's cuid. */
async function chatWith(
  from: Awaited<ReturnType<typeof person>>,
  to: Awaited<ReturnType<typeof person>>,
  texts: string[],
): Promise<string> {
  const res = await from.client.post(`/api/social/users/${to.user.username}/message`, {});
  expect(res.status).toBe(200);
  const cid = res.body.data.conversationId as string;
  for (const content of texts)
    expect((await from.client.post(`/api/social/messages/${cid}`, { content })).status).toBe(200);
  return cid;
}

describe("chat list in few statements", () => {
  test("a page of chats is one statement; serializing it adds none unless last messages have replies or reactions", async () => {
    const me = await person();
    const others = [await person(), await person(), await person()];
    for (const [i, o] of others.entries()) await chatWith(o, me, [`first ${i}`, `last ${i}`]);
    const group = await createGroup(server.app, me.user.id, "Team", [others[0]!.user.id, others[1]!.user.id]);

    const people = new KeptByVersion<ChatListUser>(100);
    const { db, counter } = countingDb(server.app.db);
    const page = await listChats(db, people, me.user, undefined, 10);
    // the page, then the shown columns of the accounts it names, which are kept
    expect(counter.statements).toBe(2);
    counter.statements = 0;
    expect(await listChats(db, people, me.user, undefined, 10)).toEqual(page);
    expect(counter.statements).toBe(1);
    expect(page.nextCursor).toBeNull();
    expect(page.items.map((i) => i.conversation.id)[0]).toBe(group.id);
    expect(page.items.map((i) => i.unreadCount)).toEqual([0, 2, 2, 2]);
    expect(page.items.map((i) => i.memberCount)).toEqual([3, 2, 2, 2]);
    expect(page.items[0]!.other).toBeNull();
    expect(page.items.slice(1).map((i) => i.other?.id)).toEqual([
      others[2]!.user.id,
      others[1]!.user.id,
      others[0]!.user.id,
    ]);
    expect(page.items.map((i) => i.member.user_id)).toEqual([me.user.id, me.user.id, me.user.id, me.user.id]);
    expect(page.items[0]!.member.role).toBe("creator");

    const shapes = new MessageShapes();
    counter.statements = 0;
    const shown = await serializeChatList(db, shapes, page.items);
    // the last messages' rows, read once: senders and other parties came with the page, nobody
    // replied or reacted
    expect(counter.statements).toBe(1);
    // then their shapes are kept: no statement
    counter.statements = 0;
    expect(await serializeChatList(db, shapes, page.items)).toEqual(shown);
    expect(counter.statements).toBe(0);
    expect(shown.map((c) => c.title)).toEqual([
      "Team",
      others[2]!.user.display_name,
      others[1]!.user.display_name,
      others[0]!.user.display_name,
    ]);
    expect(shown.map((c) => (c.lastMessage as any).content)).toEqual([
      `${me.user.username} created the group "Team"`,
      "last 2",
      "last 1",
      "last 0",
    ]);
    expect((shown[1]!.lastMessage as any).sender.username).toBe(others[2]!.user.username);
    expect(shown[1]!.otherUser!.username).toBe(others[2]!.user.username);
    expect(shown[0]!.otherUser).toBeNull();
    expect(shown[0]!.myRole).toBe("creator");

    // paging keeps the statement count per page
    counter.statements = 0;
    const first = await listChats(db, people, me.user, undefined, 2);
    const second = await listChats(db, people, me.user, first.nextCursor!, 2);
    expect(counter.statements).toBe(2);
    expect([...first.items, ...second.items].map((i) => i.conversation.id)).toEqual(
      page.items.map((i) => i.conversation.id),
    );
    expect(second.nextCursor).toBeNull();
  });

  test("a last message's sender is the viewer, the other party or a third party, each shown as themselves", async () => {
    const me = await person();
    const friend = await person();
    const third = await person();
    const privateCid = await chatWith(friend, me, ["from the friend"]);
    const group = await createGroup(server.app, me.user.id, "Trio", [friend.user.id, third.user.id]);
    await sendMessage(server.app, { conversationId: group.id, senderId: third.user.id, content: "from the third" });
    const shownSender = async (cid: string) => {
      const chats = (await me.client.get("/api/social/messages")).body.data.conversations as any[];
      return chats.find((c) => c.id === cid).lastMessage.sender;
    };
    const as = (p: Awaited<ReturnType<typeof person>>) => ({
      id: p.user.cuid,
      username: p.user.username,
      displayName: p.user.display_name,
      avatarUrl: p.user.avatar_url,
      isBot: false,
      isSystem: false,
    });
    expect(await shownSender(privateCid)).toEqual(as(friend));
    expect(await shownSender(group.cuid)).toEqual(as(third));
    expect((await me.client.post(`/api/social/messages/${privateCid}`, { content: "from me" })).status).toBe(200);
    expect(await shownSender(privateCid)).toEqual(as(me));
    // the friend's list: the last message is the other party's (mine), the group's a third party's
    const theirs = (await friend.client.get("/api/social/messages")).body.data.conversations as any[];
    expect(theirs.find((c) => c.id === privateCid).lastMessage.sender).toEqual(as(me));
    expect(theirs.find((c) => c.id === group.cuid).lastMessage.sender).toEqual(as(third));
  });

  test("the list over HTTP: last visible message, unread counts, replies, reactions and bad paging", async () => {
    const me = await person();
    const friend = await person();
    const cid = await chatWith(friend, me, ["one", "two", "three"]);
    let res = await me.client.get("/api/social/messages");
    expect(res.status).toBe(200);
    let chat = res.body.data.conversations[0];
    expect(chat).toMatchObject({
      id: cid,
      type: "private",
      unreadCount: 3,
      memberCount: 2,
      myRole: "member",
      lastReadMessageId: 0,
      title: friend.user.display_name,
    });
    expect(chat.lastMessage).toMatchObject({
      content: "three",
      messageId: 3,
      conversationId: cid,
      replyTo: null,
      reactions: [],
    });

    // hidden for me: the list shows the previous message and no longer counts it as unread
    expect((await me.client.delete(`/api/social/messages/${cid}/3`)).status).toBe(200);
    chat = (await me.client.get("/api/social/messages")).body.data.conversations[0];
    expect(chat.lastMessage.content).toBe("two");
    expect(chat.unreadCount).toBe(2);
    // the friend still sees it
    expect((await friend.client.get("/api/social/messages")).body.data.conversations[0].lastMessage.content).toBe(
      "three",
    );

    // a reply and a reaction on the last message show in the list
    expect((await me.client.post(`/api/social/messages/${cid}`, { content: "answer", replyToId: 1 })).status).toBe(200);
    expect((await friend.client.post(`/api/social/messages/${cid}/4/reactions`, { emoji: "👍" })).status).toBe(200);
    chat = (await me.client.get("/api/social/messages")).body.data.conversations[0];
    // writing in a chat reads it
    expect(chat.unreadCount).toBe(0);
    expect((await me.client.post(`/api/social/messages/${cid}/read`, { messageId: 4 })).status).toBe(200);
    const { db, counter } = countingDb(server.app.db);
    const page = await listChats(db, new KeptByVersion<ChatListUser>(100), me.user, undefined, 20);
    expect(page.items[0]!.lastMessageReacted).toBe(true);
    counter.statements = 0;
    await serializeChatList(db, new MessageShapes(), page.items);
    // the last message's row (a reply's shape is never kept), the replied-to message and the
    // reactions (the reply's sender is the other party, known)
    expect(counter.statements).toBe(3);
    chat = (await me.client.get("/api/social/messages")).body.data.conversations[0];
    expect(chat).toMatchObject({ unreadCount: 0, lastReadMessageId: 4 });
    expect(chat.lastMessage).toMatchObject({
      content: "answer",
      replyTo: { messageId: 1, content: "one", sender: { username: friend.user.username } },
    });
    expect(chat.lastMessage.reactions).toEqual([{ emoji: "👍", count: 1, userIds: [friend.user.cuid] }]);
    const single = (await me.client.get(`/api/social/messages/${cid}?limit=1`)).body.data;
    expect(single.messages[0]).toEqual(chat.lastMessage);

    res = await me.client.get("/api/social/messages?limit=0");
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    res = await me.client.get("/api/social/messages?cursor=bm9wZQ");
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.cursor).toBeDefined();
    const stranger = await person();
    res = await stranger.client.get("/api/social/messages");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ conversations: [], pageInfo: { nextCursor: null } });
  });

  test("a kept last message shows every change: edits, pins, reactions, the sender's name, deletion, a change made outside the app's code", async () => {
    const me = await person();
    const friend = await person();
    const cid = await chatWith(friend, me, ["hello"]);
    const last = async () =>
      ((await me.client.get("/api/social/messages")).body.data.conversations as any[]).find((c) => c.id === cid)
        .lastMessage;
    const history = async () => (await me.client.get(`/api/social/messages/${cid}?limit=1`)).body.data.messages[0];
    const shapes = messageShapesOf(server.app);
    expect((await last()).content).toBe("hello");
    const kept = shapes.size;
    // read again: the same shape, kept
    expect(await last()).toEqual(await history());
    expect(shapes.size).toBe(kept);

    expect((await friend.client.patch(`/api/social/messages/${cid}/1`, { content: "hello, edited" })).status).toBe(200);
    expect(await last()).toMatchObject({ content: "hello, edited", editedAt: expect.any(String) });
    expect((await me.client.post(`/api/social/messages/${cid}/1/pin`, {})).status).toBe(200);
    expect((await last()).pinned).toBe(true);
    expect((await me.client.post(`/api/social/messages/${cid}/1/reactions`, { emoji: "🔥" })).status).toBe(200);
    expect((await last()).reactions).toEqual([{ emoji: "🔥", count: 1, userIds: [me.user.cuid] }]);
    expect((await me.client.post(`/api/social/messages/${cid}/1/reactions`, { emoji: null })).status).toBe(200);
    expect((await last()).reactions).toEqual([]);
    expect((await friend.client.patch("/api/account/profile", { displayName: "Renamed Friend" })).status).toBe(200);
    expect((await last()).sender.displayName).toBe("Renamed Friend");
    expect(await last()).toEqual(await history());
    const chat = async () =>
      ((await me.client.get("/api/social/messages")).body.data.conversations as any[]).find((c) => c.id === cid);
    expect((await chat()).title).toBe("Renamed Friend");

    // a change the app's code does not make (another process, a node, an operator's SQL)
    await server.app.db
      .updateTable("messages")
      .set({ content: "changed elsewhere" })
      .where("cuid", "=", (await last()).id)
      .execute();
    expect((await last()).content).toBe("changed elsewhere");
    await server.app.db
      .updateTable("users")
      .set({ avatar_url: "/media/elsewhere.png" })
      .where("id", "=", friend.user.id)
      .execute();
    expect(await chat()).toMatchObject({
      photoUrl: "/media/elsewhere.png",
      otherUser: { avatarUrl: "/media/elsewhere.png" },
      lastMessage: { sender: { avatarUrl: "/media/elsewhere.png" } },
    });

    expect((await friend.client.post(`/api/social/messages/${cid}`, { content: "second" })).status).toBe(200);
    expect((await last()).content).toBe("second");
    expect((await friend.client.delete(`/api/social/messages/${cid}/2?forEveryone=true`)).status).toBe(200);
    expect(await last()).toMatchObject({ content: "changed elsewhere", pinned: true });
    expect(await last()).toEqual(await history());
  });

  test("kept shapes: only those that depend on their own row, by version, at most as many as the bound", () => {
    const shapes = new MessageShapes(2);
    const row = (id: number, more: Partial<MessageRow> = {}) =>
      ({ id, version: 0, reply_to_seq: null, extra: null, ...more }) as MessageRow;
    shapes.keep(row(1), { content: "one" });
    expect(shapes.get({ id: 1, version: 0, sender_id: 9 })).toEqual({ content: "one" });
    // another version of the row is not the kept one
    expect(shapes.get({ id: 1, version: 1, sender_id: 9 })).toBeUndefined();
    // a reply (its replied-to message changes apart from it) and a poll (votes) are not kept
    shapes.keep(row(2, { reply_to_seq: 1 }), { content: "reply" });
    shapes.keep(row(3, { extra: JSON.stringify({ poll: { question: "?" } }) }), { content: "poll" });
    expect(shapes.size).toBe(1);
    shapes.keep(row(4), { content: "four" });
    shapes.keep(row(5), { content: "five" });
    // the oldest went first
    expect(shapes.size).toBe(2);
    expect(shapes.get({ id: 1, version: 0, sender_id: 9 })).toBeUndefined();
    expect(shapes.get({ id: 5, version: 0, sender_id: 9 })).toEqual({ content: "five" });
  });
});
