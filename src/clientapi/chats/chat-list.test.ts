import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listChats } from "../../domain/chats/chat-list";
import { createGroup, sendMessage } from "../../domain/chats";
import { quickPerson } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { countingDb } from "../../testing/statements";
import { serializeChatList } from "./serialize";

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

    const { db, counter } = countingDb(server.app.db);
    const page = await listChats(db, me.user, undefined, 10);
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

    counter.statements = 0;
    const shown = await serializeChatList(db, page.items);
    // senders and other parties came with the page; nobody replied or reacted
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
    const first = await listChats(db, me.user, undefined, 2);
    const second = await listChats(db, me.user, first.nextCursor!, 2);
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
    const page = await listChats(db, me.user, undefined, 20);
    expect(page.items[0]!.lastMessageReacted).toBe(true);
    counter.statements = 0;
    await serializeChatList(db, page.items);
    // the replied-to message and the reactions (the reply's sender is the other party, known)
    expect(counter.statements).toBe(2);
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
});
