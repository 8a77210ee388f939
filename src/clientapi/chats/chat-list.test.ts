import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listChats, readChatList } from "../../domain/chats/chat-list";
import { createGroup, sendMessage } from "../../domain/chats";
import { quickPerson } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { countingDb } from "../../testing/statements";
import { TEA_POLL } from "../../testing/chats";
import { ChatListCache, chatListJson, chatListCacheOf, MessageShapes } from "./serialize";
import type { MessageRow } from "../../domain/chats/table";
import { ADMIN_RIGHTS } from "../../domain/chats/access";
import type { Db } from "../../db";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

/** VIEWER's chat list as the Client API shows it, made with the given kept pieces (fresh ones: made from the rows alone). */
async function shownList(db: Db, viewer: number, kept = new ChatListCache()) {
  return JSON.parse(await chatListJson(db, kept, viewer, await readChatList(db, viewer, undefined, 50))) as any[];
}

/** A chat's id by its cuid, and its cuid by its id. */
const chatId = async (cuid: string) =>
  (await server.app.db.selectFrom("conversations").select("id").where("cuid", "=", cuid).executeTakeFirstOrThrow()).id;
const chatCuid = async (id: number) =>
  (await server.app.db.selectFrom("conversations").select("cuid").where("id", "=", id).executeTakeFirstOrThrow()).cuid;

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
  test("a page of chats is one statement; serializing it adds none once its chats and last messages are kept", async () => {
    const me = await person();
    const others = [await person(), await person(), await person()];
    for (const [i, o] of others.entries()) await chatWith(o, me, [`first ${i}`, `last ${i}`]);
    const group = await createGroup(server.app, me.user.id, "Team", [others[0]!.user.id, others[1]!.user.id]);

    const { db, counter } = countingDb(server.app.db);
    const page = await listChats(db, me.user.id, undefined, 10);
    expect(counter.statements).toBe(1);
    counter.statements = 0;
    expect(await listChats(db, me.user.id, undefined, 10)).toEqual(page);
    expect(counter.statements).toBe(1);
    expect(page.nextCursor).toBeNull();
    expect(page.items.map((i) => i.conversationId)[0]).toBe(group.id);
    expect(page.items.map((i) => i.unreadCount)).toEqual([0, 2, 2, 2]);
    expect(page.items.map((i) => i.memberCount)).toEqual([3, 2, 2, 2]);

    const kept = new ChatListCache();
    const read = await readChatList(db, me.user.id, undefined, 10);
    counter.statements = 0;
    const json = await chatListJson(db, kept, me.user.id, read);
    // nothing kept yet: the chats, the last messages' rows and the accounts they show (other
    // parties, senders), one statement each; no message was reacted to, so no reactions are read
    expect(counter.statements).toBe(3);
    // then all of it is kept: no statement, the same JSON
    counter.statements = 0;
    expect(await chatListJson(db, kept, me.user.id, read)).toBe(json);
    expect(counter.statements).toBe(0);
    const shown = JSON.parse(json) as any[];
    expect(shown.map((c) => c.title)).toEqual([
      "Team",
      others[2]!.user.display_name,
      others[1]!.user.display_name,
      others[0]!.user.display_name,
    ]);
    expect(shown.map((c) => c.lastMessage.content)).toEqual([
      `${me.user.username} created the group "Team"`,
      "last 2",
      "last 1",
      "last 0",
    ]);
    expect(shown[1]!.lastMessage.sender.username).toBe(others[2]!.user.username);
    expect(shown.slice(1).map((c) => c.otherUser.username)).toEqual([
      others[2]!.user.username,
      others[1]!.user.username,
      others[0]!.user.username,
    ]);
    expect(shown[0]!.otherUser).toBeNull();
    expect(shown[0]!.myRole).toBe("creator");
    // the creator holds every right, listed as the compatible bot API names them
    expect(shown[0]!.myRights).toEqual(Object.fromEntries(ADMIN_RIGHTS.map((r) => [r, true])));
    expect(shown[1]!.myRights).toEqual({});

    // paging keeps the statement count per page
    counter.statements = 0;
    const first = await listChats(db, me.user.id, undefined, 2);
    const second = await listChats(db, me.user.id, first.nextCursor!, 2);
    expect(counter.statements).toBe(2);
    expect([...first.items, ...second.items].map((i) => i.conversationId)).toEqual(
      page.items.map((i) => i.conversationId),
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
    const page = await readChatList(db, me.user.id, undefined, 20);
    const kept = new ChatListCache();
    counter.statements = 0;
    await chatListJson(db, kept, me.user.id, page);
    // the chat, the last message's row, the accounts (the reply's sender and the other party,
    // who wrote the replied-to message), the replied-to message and the reactions
    expect(counter.statements).toBe(5);
    // a reply is kept too, by its replied-to message's version as well
    counter.statements = 0;
    await chatListJson(db, kept, me.user.id, page);
    expect(counter.statements).toBe(0);
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

  test("pages come in the chats' activity order, ties by chat id, whoever moves a chat; chats left or removed from are not listed", async () => {
    const me = await person();
    const others = await Promise.all(Array.from({ length: 6 }, () => person()));
    const chats: number[] = [];
    for (const o of others) chats.push(await chatId(await chatWith(o, me, ["hi"])));
    const group = await createGroup(server.app, me.user.id, "Ties", [others[0]!.user.id]);
    chats.push(group.id);
    // four chats at one moment, set outside the app's code (the CLI, another node, an operator's SQL)
    const tie = server.clock.now() - 60_000;
    await server.app.db
      .updateTable("conversations")
      .set({ activity_at: tie })
      .where("id", "in", [chats[1]!, chats[2]!, chats[4]!, group.id])
      .execute();
    /** MY chats in the list's order, read from the chats' own rows */
    const expected = async (viewer: number) =>
      (
        await server.app.db
          .selectFrom("conversations as c")
          .innerJoin("conversation_members as m", "m.conversation_id", "c.id")
          .select(["c.id", "c.activity_at"])
          .where("m.user_id", "=", viewer)
          .where("m.role", "in", ["creator", "administrator", "member"])
          .execute()
      )
        .sort((a, b) => b.activity_at - a.activity_at || b.id - a.id)
        .map((c) => c.id);
    /** every page of VIEWER's list, LIMIT chats each, over HTTP: the chats' ids in order */
    const paged = async (client: typeof me.client, limit: number) => {
      const ids: number[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 20; pages++) {
        const res: { status: number; body: any } = await client.get(
          `/api/social/messages?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
        );
        expect(res.status).toBe(200);
        for (const c of res.body.data.conversations) ids.push(await chatId(c.id));
        cursor = res.body.data.pageInfo.nextCursor;
        if (cursor === null) return ids;
        expect(res.body.data.conversations).toHaveLength(limit);
      }
      throw new Error("the pages did not end");
    };
    let order = await expected(me.user.id);
    expect(order).toHaveLength(7);
    // the tied chats, newest id first, between the others
    expect(order.filter((id) => [chats[1], chats[2], chats[4], group.id].includes(id))).toEqual([
      group.id,
      chats[4]!,
      chats[2]!,
      chats[1]!,
    ]);
    for (const limit of [1, 2, 3, 7, 20]) expect(await paged(me.client, limit)).toEqual(order);

    // a send moves its chat first; a page of one statement still
    expect(
      (await others[1]!.client.post(`/api/social/messages/${await chatCuid(chats[1]!)}`, { content: "up" })).status,
    ).toBe(200);
    order = await expected(me.user.id);
    expect(order[0]).toBe(chats[1]);
    expect(await paged(me.client, 2)).toEqual(order);
    const { db, counter } = countingDb(server.app.db);
    const first = await listChats(db, me.user.id, undefined, 2);
    await listChats(db, me.user.id, first.nextCursor!, 2);
    expect(counter.statements).toBe(2);

    // a member added outside the app's code is listed by the chat's activity, as the chat's others are
    const newcomer = await person();
    const theirs = await chatWith(others[5]!, newcomer, ["before"]);
    await server.app.db
      .updateTable("conversations")
      .set({ activity_at: server.clock.now() + 60_000 })
      .where("id", "=", group.id)
      .execute();
    await server.app.db
      .insertInto("conversation_members")
      .values({
        conversation_id: group.id,
        user_id: newcomer.user.id,
        role: "member",
        joined_at: tie,
        updated_at: tie,
      })
      .execute();
    expect(await paged(newcomer.client, 1)).toEqual([group.id, await chatId(theirs)]);

    // a group left or removed from is not listed
    expect((await others[0]!.client.post(`/api/social/groups/${group.cuid}/leave`, {})).status).toBe(200);
    expect(await paged(others[0]!.client, 1)).not.toContain(group.id);
    expect(await paged(others[0]!.client, 1)).toEqual(await expected(others[0]!.user.id));
    expect(await paged(me.client, 3)).toEqual(await expected(me.user.id));
  });

  test("a kept last message shows every change: edits, pins, reactions, the sender's name, deletion, a change made outside the app's code", async () => {
    const me = await person();
    const friend = await person();
    const cid = await chatWith(friend, me, ["hello"]);
    const last = async () =>
      ((await me.client.get("/api/social/messages")).body.data.conversations as any[]).find((c) => c.id === cid)
        .lastMessage;
    const history = async () => (await me.client.get(`/api/social/messages/${cid}?limit=1`)).body.data.messages[0];
    const shapes = chatListCacheOf(server.app).messages;
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

  test("a kept chat view shows every change of the chat, its members and its last message's reactions, as a list made afresh does", async () => {
    const me = await person();
    const friend = await person();
    const third = await person();
    const group = await createGroup(server.app, me.user.id, "Before", [friend.user.id]);
    const privateCid = await chatWith(friend, me, ["hi"]);
    await sendMessage(server.app, { conversationId: group.id, senderId: friend.user.id, content: "in the group" });
    const app = server.app;
    const list = async () => (await me.client.get("/api/social/messages")).body.data.conversations as any[];
    const shownGroup = async () => (await list()).find((c) => c.id === group.cuid);
    // the App's kept pieces give what a list made from the rows alone gives
    const sameAsFresh = async () => expect(await list()).toEqual(await shownList(app.db, me.user.id));
    expect(await shownGroup()).toMatchObject({ title: "Before", memberCount: 2, myRole: "creator" });
    await sameAsFresh();

    // the chat's own columns, through the app and through SQL from outside its code
    expect((await me.client.patch(`/api/social/groups/${group.cuid}`, { title: "After" })).status).toBe(200);
    expect(await shownGroup()).toMatchObject({ title: "After" });
    await app.db
      .updateTable("conversations")
      .set({ description: "Said elsewhere" })
      .where("id", "=", group.id)
      .execute();
    expect(await shownGroup()).toMatchObject({ title: "After", description: "Said elsewhere" });
    await app.db
      .updateTable("conversations")
      .set({ photo_url: "/media/group.png" })
      .where("id", "=", group.id)
      .execute();
    expect((await shownGroup()).photoUrl).toBe("/media/group.png");
    await sameAsFresh();

    // members: a new one counts, and what the viewer may do is theirs on every read
    expect(
      (await me.client.post(`/api/social/groups/${group.cuid}/members`, { username: third.user.username })).status,
    ).toBe(200);
    const asFriend = async () =>
      ((await friend.client.get("/api/social/messages")).body.data.conversations as any[]).find(
        (c) => c.id === group.cuid,
      );
    expect(await asFriend()).toMatchObject({ memberCount: 3, myRole: "member", myRights: {} });
    expect(
      (
        await me.client.post(`/api/social/groups/${group.cuid}/members/${friend.user.username}/promote`, {
          rights: { can_pin_messages: true },
        })
      ).status,
    ).toBe(200);
    expect(await asFriend()).toMatchObject({ myRole: "administrator", myRights: { can_pin_messages: true } });
    await sameAsFresh();

    // reactions to the last message, set from outside the app's code, then taken back
    const lastId = async () =>
      (
        await app.db
          .selectFrom("messages")
          .select("id")
          .where("conversation_id", "=", group.id)
          .orderBy("seq", "desc")
          .executeTakeFirstOrThrow()
      ).id;
    await app.db
      .insertInto("message_reactions")
      .values({ message_id: await lastId(), user_id: friend.user.id, emoji: "🎉", created_at: app.clock.now() })
      .execute();
    expect((await shownGroup()).lastMessage.reactions).toEqual([
      { emoji: "🎉", count: 1, userIds: [friend.user.cuid] },
    ]);
    await app.db.updateTable("message_reactions").set({ emoji: "👀" }).where("user_id", "=", friend.user.id).execute();
    expect((await shownGroup()).lastMessage.reactions).toEqual([
      { emoji: "👀", count: 1, userIds: [friend.user.cuid] },
    ]);
    await sameAsFresh();
    await app.db.deleteFrom("message_reactions").where("user_id", "=", friend.user.id).execute();
    expect((await shownGroup()).lastMessage.reactions).toEqual([]);

    // the private chat's other party renamed from outside: its title, picture and the sender change
    await app.db
      .updateTable("users")
      .set({ display_name: "Friend Elsewhere" })
      .where("id", "=", friend.user.id)
      .execute();
    const shownPrivate = (await list()).find((c) => c.id === privateCid);
    expect(shownPrivate).toMatchObject({
      title: "Friend Elsewhere",
      otherUser: { displayName: "Friend Elsewhere" },
      lastMessage: { sender: { displayName: "Friend Elsewhere" } },
    });
    // a new message moves the chat's last message time; a message read moves the viewer's marks
    expect((await friend.client.post(`/api/social/messages/${privateCid}`, { content: "again" })).status).toBe(200);
    expect((await me.client.post(`/api/social/messages/${privateCid}/read`, { messageId: 2 })).status).toBe(200);
    const again = (await list()).find((c) => c.id === privateCid);
    expect(again).toMatchObject({ lastMessage: { content: "again" }, unreadCount: 0, lastReadMessageId: 2 });
    expect(again.lastMessageAt).toBe(again.lastMessage.createdAt);
    await sameAsFresh();
  });

  test("a kept chat is written again when any one number it shows moves alone, changed outside the app's code; the member's role and rights move its version", async () => {
    const me = await person();
    const friend = await person();
    const third = await person();
    const app = server.app;
    const group = await createGroup(app, me.user.id, "Numbers", [friend.user.id, third.user.id]);
    for (const content of ["one", "two", "three"])
      await sendMessage(app, { conversationId: group.id, senderId: friend.user.id, content });
    const shown = async () =>
      ((await me.client.get("/api/social/messages")).body.data.conversations as any[]).find((c) => c.id === group.cuid);
    const sameAsFresh = async () =>
      expect((await me.client.get("/api/social/messages")).body.data.conversations).toEqual(
        await shownList(app.db, me.user.id),
      );
    const mine = () =>
      app.db
        .updateTable("conversation_members")
        .where("conversation_id", "=", group.id)
        .where("user_id", "=", me.user.id);
    const version = async () =>
      (await app.db.selectFrom("conversations").select("version").where("id", "=", group.id).executeTakeFirstOrThrow())
        .version;
    // the group's first message (its creation) is mine, so read
    expect(await shown()).toMatchObject({ unreadCount: 3, lastReadMessageId: 1, memberCount: 3, myRole: "creator" });
    // the chat's version stays: only the page's numbers tell these changes
    const before = await version();

    // the read mark back to before the group's first message (mine): the unread count stays
    await mine().set({ last_read_seq: 0 }).execute();
    expect(await shown()).toMatchObject({ lastReadMessageId: 0, unreadCount: 3 });
    await mine().set({ unread_count: 7 }).execute();
    expect((await shown()).unreadCount).toBe(7);
    await app.db.updateTable("conversations").set({ member_count: 5 }).where("id", "=", group.id).execute();
    expect((await shown()).memberCount).toBe(5);
    const at = app.clock.now() + 5_000;
    await app.db.updateTable("conversations").set({ last_message_at: at }).where("id", "=", group.id).execute();
    expect((await shown()).lastMessageAt).toBe(new Date(at).toISOString());
    await sameAsFresh();
    // the last message: another one named, or the same one's version moved
    const seq = async (n: number) =>
      (
        await app.db
          .selectFrom("messages")
          .select("id")
          .where("conversation_id", "=", group.id)
          .where("seq", "=", n)
          .executeTakeFirstOrThrow()
      ).id;
    await app.db
      .updateTable("conversations")
      .set({ last_message_id: await seq(3) })
      .where("id", "=", group.id)
      .execute();
    expect((await shown()).lastMessage.content).toBe("two");
    await app.db
      .updateTable("messages")
      .set({ content: "two, changed" })
      .where("id", "=", await seq(3))
      .execute();
    expect((await shown()).lastMessage.content).toBe("two, changed");
    await sameAsFresh();
    await app.db
      .updateTable("conversations")
      .set({ last_message_id: await seq(4) })
      .where("id", "=", group.id)
      .execute();
    expect((await shown()).lastMessage.content).toBe("three");
    // hidden for me, then the hides and the mark taken away again: the chat's own last message shows
    expect((await me.client.delete(`/api/social/messages/${group.cuid}/4`)).status).toBe(200);
    expect((await shown()).lastMessage.content).toBe("two, changed");
    await app.db.deleteFrom("message_hidden").where("user_id", "=", me.user.id).execute();
    await mine().set({ has_hidden: 0 }).execute();
    expect((await shown()).lastMessage.content).toBe("three");
    await sameAsFresh();
    expect(await version()).toBe(before);

    // my role and rights, changed outside the app's code, raise the chat's version (a trigger): kept with its view
    await mine().set({ role: "administrator" }).execute();
    expect(await version()).toBe(before + 1);
    expect(await shown()).toMatchObject({ myRole: "administrator", myRights: {} });
    await mine()
      .set({ rights: JSON.stringify({ can_pin_messages: true }) })
      .execute();
    expect(await version()).toBe(before + 2);
    expect((await shown()).myRights).toEqual({ can_pin_messages: true });
    // the same values again change nothing
    await mine()
      .set({ role: "administrator", rights: JSON.stringify({ can_pin_messages: true }) })
      .execute();
    expect(await version()).toBe(before + 2);
    await sameAsFresh();
    // another member's list shows their own role and rights
    const theirs = ((await friend.client.get("/api/social/messages")).body.data.conversations as any[]).find(
      (c) => c.id === group.cuid,
    );
    expect(theirs).toMatchObject({ myRole: "member", myRights: {} });
  });

  test("a kept reply, poll or former member's message shows changes of what it shows beyond its own row", async () => {
    const me = await person();
    const friend = await person();
    const third = await person();
    const app = server.app;
    const cid = await chatWith(friend, me, ["question"]);
    const list = async () => (await me.client.get("/api/social/messages")).body.data.conversations as any[];
    const shownIn = async (id: string) => (await list()).find((c) => c.id === id);
    const sameAsFresh = async () => expect(await list()).toEqual(await shownList(app.db, me.user.id));

    // a reply: the message it answers is edited, then deleted for everyone
    expect((await me.client.post(`/api/social/messages/${cid}`, { content: "answer", replyToId: 1 })).status).toBe(200);
    expect((await shownIn(cid)).lastMessage.replyTo).toMatchObject({ content: "question" });
    expect((await friend.client.patch(`/api/social/messages/${cid}/1`, { content: "question, edited" })).status).toBe(
      200,
    );
    expect((await shownIn(cid)).lastMessage.replyTo).toMatchObject({ content: "question, edited" });
    await sameAsFresh();
    expect((await friend.client.delete(`/api/social/messages/${cid}/1?forEveryone=true`)).status).toBe(200);
    expect((await shownIn(cid)).lastMessage).toMatchObject({ content: "answer", replyTo: null });
    await sameAsFresh();

    // a poll: its counts follow the votes
    const group = await createGroup(app, me.user.id, "Pollsters", [friend.user.id, third.user.id]);
    await sendMessage(app, {
      conversationId: group.id,
      senderId: friend.user.id,
      content: "",
      extra: { poll: TEA_POLL },
    });
    expect((await shownIn(group.cuid)).lastMessage.poll.totalVoterCount).toBe(0);
    const seq = (await shownIn(group.cuid)).lastMessage.messageId;
    expect(
      (await third.client.post(`/api/social/messages/${group.cuid}/${seq}/poll/vote`, { options: [1] })).status,
    ).toBe(200);
    expect((await shownIn(group.cuid)).lastMessage.poll).toMatchObject({ totalVoterCount: 1 });
    expect((await shownIn(group.cuid)).lastMessage.poll.options[1].voterCount).toBe(1);
    await sameAsFresh();

    // a message by someone who has left the group since, renamed from outside the app's code
    await sendMessage(app, { conversationId: group.id, senderId: third.user.id, content: "bye" });
    expect((await third.client.post(`/api/social/groups/${group.cuid}/leave`, {})).status).toBe(200);
    await app.db
      .updateTable("messages")
      .set({ deleted_at: app.clock.now() })
      .where("conversation_id", "=", group.id)
      .where("kind", "=", "system")
      .where("seq", ">", seq + 1)
      .execute();
    expect((await shownIn(group.cuid)).lastMessage).toMatchObject({ content: "bye" });
    await app.db
      .updateTable("users")
      .set({ username: `${third.user.username}_x` })
      .where("id", "=", third.user.id)
      .execute();
    expect((await shownIn(group.cuid)).lastMessage.sender.username).toBe(`${third.user.username}_x`);
    await sameAsFresh();
  });

  test("a chat where the viewer hid messages shows the newest they see, read in one more statement a page; removals and memberships made outside the app's code show", async () => {
    const me = await person();
    const friend = await person();
    const cid = await chatWith(friend, me, ["one", "two", "three"]);
    const id = await chatId(cid);
    const shown = async (who: typeof me) =>
      ((await who.client.get("/api/social/messages")).body.data.conversations as any[]).find((c) => c.id === cid)
        .lastMessage;
    const statements = async (viewer: number) => {
      const { db, counter } = countingDb(server.app.db);
      await listChats(db, viewer, undefined, 20);
      return counter.statements;
    };
    const sameAsFresh = async (who: typeof me) =>
      expect((await who.client.get("/api/social/messages")).body.data.conversations).toEqual(
        await shownList(server.app.db, who.user.id),
      );
    expect(await statements(me.user.id)).toBe(1);

    expect((await me.client.delete(`/api/social/messages/${cid}/3`)).status).toBe(200);
    expect((await shown(me)).content).toBe("two");
    expect(await statements(me.user.id)).toBe(2);
    // the other member hid nothing: their page is one statement and shows the last message
    expect(await statements(friend.user.id)).toBe(1);
    expect((await shown(friend)).content).toBe("three");

    // a later message is the newest the viewer sees again
    expect((await friend.client.post(`/api/social/messages/${cid}`, { content: "four", replyToId: 2 })).status).toBe(
      200,
    );
    for (const who of [me, friend]) {
      expect(await shown(who)).toMatchObject({ content: "four", replyTo: { content: "two" } });
      await sameAsFresh(who);
    }

    // the message it replies to removed by SQL outside the app's code (an operator, another process)
    await server.app.db.deleteFrom("messages").where("conversation_id", "=", id).where("seq", "=", 2).execute();
    for (const who of [me, friend]) {
      expect(await shown(who)).toMatchObject({ content: "four", replyTo: null });
      await sameAsFresh(who);
    }

    // hidden too: the newest left for the viewer is the first
    expect((await me.client.delete(`/api/social/messages/${cid}/4`)).status).toBe(200);
    expect((await shown(me)).content).toBe("one");
    // the membership made again outside the app's code, over the hides that stayed
    const member = await server.app.db
      .selectFrom("conversation_members")
      .selectAll()
      .where("conversation_id", "=", id)
      .where("user_id", "=", me.user.id)
      .executeTakeFirstOrThrow();
    await server.app.db.deleteFrom("conversation_members").where("id", "=", member.id).execute();
    await server.app.db
      .insertInto("conversation_members")
      .values({
        conversation_id: id,
        user_id: me.user.id,
        role: "member",
        joined_at: member.joined_at,
        updated_at: member.updated_at,
      })
      .execute();
    expect((await shown(me)).content).toBe("one");
    await sameAsFresh(me);
    expect((await shown(friend)).content).toBe("four");
  });

  test("the role version migration: its trigger raises a chat's version on a member's role or rights change, and down takes it away", async () => {
    const app = server.app;
    const me = await person();
    const friend = await person();
    const group = await createGroup(app, me.user.id, "Roles", [friend.user.id]);
    const version = async () =>
      (await app.db.selectFrom("conversations").select("version").where("id", "=", group.id).executeTakeFirstOrThrow())
        .version;
    const setRole = (role: "administrator" | "member") =>
      app.db
        .updateTable("conversation_members")
        .set({ role })
        .where("conversation_id", "=", group.id)
        .where("user_id", "=", friend.user.id)
        .execute();
    const { migrations } = await import("../../db/migrations");
    const roleVersion = migrations["20261125031000_chat_member_role_version"]!;
    const before = await version();
    await app.db.transaction().execute((tx) => roleVersion.down!(tx));
    try {
      await setRole("administrator");
      expect(await version()).toBe(before);
    } finally {
      await app.db.transaction().execute((tx) => roleVersion.up(tx));
    }
    await setRole("member");
    expect(await version()).toBe(before + 1);
    const shown = ((await friend.client.get("/api/social/messages")).body.data.conversations as any[]).find(
      (c) => c.id === group.cuid,
    );
    expect(shown).toMatchObject({ myRole: "member", myRights: {} });
  });

  test("kept shapes: by what the page read of the message (its chat's message version, or its own and its replied-to message's) and its chat's version, at most as many as the bound", () => {
    const shapes = new MessageShapes(2);
    const ref = (id: number, version = "c0") => ({ id, version });
    shapes.keep(ref(1), 0, "one");
    expect(shapes.get(ref(1), 0)).toBe("one");
    // another message version of the chat, another chat version, or the same message read as
    // a hidden-aware search (its row's and replied-to message's versions) is not the kept one
    expect(shapes.get(ref(1, "c1"), 0)).toBeUndefined();
    expect(shapes.get(ref(1), 1)).toBeUndefined();
    expect(shapes.get(ref(1, "0:null"), 0)).toBeUndefined();
    shapes.keep(ref(2, "0:3"), 0, "reply");
    expect(shapes.get(ref(2, "0:3"), 0)).toBe("reply");
    expect(shapes.get(ref(2, "0:4"), 0)).toBeUndefined();
    shapes.keep(ref(3), 0, "three");
    // the oldest went first
    expect(shapes.size).toBe(2);
    expect(shapes.get(ref(1), 0)).toBeUndefined();
    expect(shapes.get(ref(3), 0)).toBe("three");
  });
});
