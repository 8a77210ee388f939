import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { quickPerson } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { fewestStatements } from "../../testing/statements";
import { TestClient } from "../../testing/client";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);
type Person = Awaited<ReturnType<typeof person>>;

async function say(from: Person, cid: string, content: string): Promise<string> {
  const res = await from.client.post(`/api/social/messages/${cid}`, { content });
  expect(res.status).toBe(200);
  return res.body.data.message.id as string;
}

/** The counts, checked against the chat list's own unread counts (the same kept column, summed). */
async function unread(p: Person) {
  const res = await p.client.get("/api/social/messages/unread");
  expect(res.status).toBe(200);
  const chats = (await p.client.get("/api/social/messages?limit=50")).body.data.conversations as any[];
  expect(res.body.data).toEqual({
    unreadChats: chats.filter((c) => c.unreadCount > 0).length,
    unreadMessages: chats.reduce((sum, c) => sum + c.unreadCount, 0),
  });
  return res.body.data as { unreadChats: number; unreadMessages: number };
}

describe("GET /api/social/messages/unread", () => {
  test("counts the chats and messages I have not read, follows reads, deletes and leaving", async () => {
    const [me, ann, bob] = [await person(), await person(), await person()];
    expect(await unread(me)).toEqual({ unreadChats: 0, unreadMessages: 0 });

    const withAnn = (await ann.client.post(`/api/social/users/${me.user.username}/message`, {})).body.data
      .conversationId as string;
    await say(ann, withAnn, "one");
    const second = await say(ann, withAnn, "two");
    const group = (await bob.client.post("/api/social/groups", { title: "Club", members: [me.user.username] })).body
      .data.conversationId as string;
    await say(bob, group, "welcome");
    // the group's "created" line counts as well, as it does in the chat list
    expect(await unread(me)).toEqual({ unreadChats: 2, unreadMessages: 4 });
    // the senders have nothing unread
    expect(await unread(ann)).toEqual({ unreadChats: 0, unreadMessages: 0 });
    expect(await unread(bob)).toEqual({ unreadChats: 0, unreadMessages: 0 });

    // deleted for everyone: no longer unread
    expect((await ann.client.delete(`/api/social/messages/${withAnn}/${second}?forEveryone=true`)).status).toBe(200);
    expect(await unread(me)).toEqual({ unreadChats: 2, unreadMessages: 3 });

    const first = (await me.client.get(`/api/social/messages/${withAnn}`)).body.data.messages.at(-1).id;
    expect((await me.client.post(`/api/social/messages/${withAnn}/read`, { messageId: first })).status).toBe(200);
    expect(await unread(me)).toEqual({ unreadChats: 1, unreadMessages: 2 });

    // my own message moves my read marker past what came before it; then Bob has one unread
    await say(me, group, "thanks");
    expect(await unread(me)).toEqual({ unreadChats: 0, unreadMessages: 0 });
    expect(await unread(bob)).toEqual({ unreadChats: 1, unreadMessages: 1 });

    // a chat I left counts no more
    await say(bob, group, "anyone?");
    expect(await unread(me)).toEqual({ unreadChats: 1, unreadMessages: 1 });
    expect((await me.client.post(`/api/social/groups/${group}/leave`)).status).toBe(200);
    expect(await unread(me)).toEqual({ unreadChats: 0, unreadMessages: 0 });
  });

  test("is one statement, needs a session, and is not taken for a chat id", async () => {
    const me = await person();
    await me.client.get("/api/auth/me");
    // on SQLite the session stays kept between requests; PostgreSQL reads it on each (other nodes write unseen)
    const sessionRead = server.app.storage.engine === "sqlite" ? 0 : 1;
    const statements = await fewestStatements(server.app.storage, () => me.client.get("/api/social/messages/unread"));
    expect(statements).toBe(1 + sessionRead);
    const anonymous = await new TestClient(server.url).get("/api/social/messages/unread");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("UNAUTHORIZED");
    // a conversation id still reaches the chat routes
    const missing = await me.client.get("/api/social/messages/a000missing");
    expect(missing.status).toBe(404);
  });
});
