import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { openOtherConnection } from "../../testing/sql";
import { botCall, createBotViaApi, openChat } from "../../testing/botapi";
import type { TestClient } from "../../testing/client";
import { inTransaction } from "../../db/transaction";
import { createGroup } from "./conversations";
import { fewestStatements } from "../../testing/statements";

/*
 * A Client API send's access check (the chat, the sender's membership, in a private chat the
 * other party and a block between them) is kept between a person's sends to a chat
 * (send-access.ts). Each kind of write that changes its answer, through the API, by SQL on the
 * server's connection or by another connection (the CLI beside the server), is seen by the
 * very next send; a write rolled back is not. The same tests run on PostgreSQL, where a plain
 * send on a kept check is the row's INSERT alone, writing only while the check's stamp holds.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const send = async (client: TestClient, cid: string, content = "hello") =>
  (await client.post(`/api/social/messages/${cid}`, { content })).status;

const userIdOf = async (username: string) =>
  (await server.app.db.selectFrom("users").select("id").where("username", "=", username).executeTakeFirstOrThrow()).id;

test("a block, made through the API or by another connection, refuses the next send; an unblock lets it through", async () => {
  const me = await quickPerson(server);
  const friend = await quickPerson(server);
  const cid = await openChat(me.client, friend.user.username);
  expect([await send(me.client, cid), await send(me.client, cid)]).toEqual([200, 200]);

  const toggleBlock = () => friend.client.post(`/api/social/users/${me.user.username}/block`, {});
  expect((await toggleBlock()).body.data).toEqual({ blocked: true });
  expect(await send(me.client, cid)).toBe(403);
  expect((await toggleBlock()).body.data).toEqual({ blocked: false });
  expect([await send(me.client, cid), await send(me.client, cid)]).toEqual([200, 200]);

  const other = openOtherConnection(server.dataDir);
  try {
    await other.db
      .insertInto("blocks")
      .values({ blocker_id: friend.user.id, blocked_id: me.user.id, created_at: Date.now() })
      .execute();
  } finally {
    await other.close();
  }
  expect(await send(me.client, cid)).toBe(403);
});

test("leaving a group, or a membership deleted by SQL on the server's connection, refuses the next send", async () => {
  const me = await quickPerson(server);
  const friend = await quickPerson(server);
  const group = await createGroup(server.app, me.user.id, "Kept checks", [friend.user.id]);
  expect([await send(friend.client, group.cuid), await send(friend.client, group.cuid)]).toEqual([200, 200]);
  expect((await friend.client.post(`/api/social/groups/${group.cuid}/leave`, {})).status).toBe(200);
  expect(await send(friend.client, group.cuid)).toBe(404);

  expect([await send(me.client, group.cuid), await send(me.client, group.cuid)]).toEqual([200, 200]);
  await server.app.db
    .deleteFrom("conversation_members")
    .where("conversation_id", "=", group.id)
    .where("user_id", "=", me.user.id)
    .execute();
  expect(await send(me.client, group.cuid)).toBe(404);
});

test("a membership change rolled back changes nothing: the next send goes through on the kept check", async () => {
  const me = await quickPerson(server);
  const friend = await quickPerson(server);
  const cid = await openChat(me.client, friend.user.username);
  expect([await send(me.client, cid), await send(me.client, cid)]).toEqual([200, 200]);
  const rolledBack = async () => {
    const undone = inTransaction(server.app.storage, async (scope) => {
      await scope.db.deleteFrom("conversation_members").where("user_id", "=", me.user.id).execute();
      throw new Error("undone");
    });
    await expect(undone).rejects.toThrow("undone");
  };
  const statements = await fewestStatements(
    server.app.storage,
    async () => expect(await send(me.client, cid)).toBe(200),
    {
      before: rolledBack,
    },
  );
  // the rollback took its count back with it, so the check kept before it is used (BEGIN, the
  // row, COMMIT); on PostgreSQL the session's stamp is read, and the row's INSERT, on its own,
  // writes while the check's stamp is the one it was kept under
  expect(statements).toBe(server.app.storage.engine === "postgres" ? 2 : 3);
});

test("on a kept check a repeated clientMessageId answers the stored message; a link or a reply goes the usual way", async () => {
  const me = await quickPerson(server);
  const friend = await quickPerson(server);
  const cid = await openChat(me.client, friend.user.username);
  expect(await send(me.client, cid)).toBe(200);
  const post = (body: Record<string, unknown>) => me.client.post(`/api/social/messages/${cid}`, body);
  const first = await post({ content: "once", clientMessageId: "kept-repeat" });
  const again = await post({ content: "once", clientMessageId: "kept-repeat" });
  expect([first.status, again.status]).toEqual([200, 200]);
  expect(again.body.data.message.id).toBe(first.body.data.message.id);
  const linked = await post({ content: "see https://example.test/page", linkPreview: false });
  expect(linked.status).toBe(200);
  const reply = await post({ content: "a reply", replyToId: first.body.data.message.id });
  expect(reply.status).toBe(200);
  expect(reply.body.data.message.replyTo).toMatchObject({ id: first.body.data.message.id });
  const history = (await friend.client.get(`/api/social/messages/${cid}`)).body.data.messages as {
    content: string;
  }[];
  expect(history.map((m) => m.content)).toEqual(["a reply", "see https://example.test/page", "once", "hello"]);
});

test("a group renamed after its check was kept: the bot's next update carries the new title", async () => {
  const owner = await quickPerson(server);
  const me = await quickPerson(server);
  const token = await createBotViaApi(owner.client, "kept_check_bot", "Kept");
  const botId = await userIdOf("kept_check_bot");
  const group = await createGroup(server.app, me.user.id, "Before", [botId]);
  await botCall(server.url, token, "getUpdates", { offset: -1 });
  const titlesSeen = async () => {
    const res = await botCall(server.url, token, "getUpdates", { timeout: 0 });
    const updates = res.body.result as Array<{ update_id: number; message?: { chat: { title?: string } } }>;
    if (updates.length) await botCall(server.url, token, "getUpdates", { offset: updates.at(-1)!.update_id + 1 });
    return updates.flatMap((u) => (u.message ? [u.message.chat.title] : []));
  };
  // commands reach a bot in a group whatever its privacy setting
  expect([await send(me.client, group.cuid, "/start"), await send(me.client, group.cuid, "/start")]).toEqual([
    200, 200,
  ]);
  expect(await titlesSeen()).toEqual(["Before", "Before"]);
  expect((await me.client.patch(`/api/social/groups/${group.cuid}`, { title: "After" })).status).toBe(200);
  expect(await send(me.client, group.cuid, "/start")).toBe(200);
  expect(await titlesSeen()).toEqual(["After"]);
});

test("a bot's sends to a person: a block, the person renamed, or disabled by another connection, is seen by the next send", async () => {
  const owner = await quickPerson(server);
  const me = await quickPerson(server);
  const token = await createBotViaApi(owner.client, "kept_send_bot", "Kept sends");
  await openChat(me.client, "kept_send_bot");
  const send = async () => {
    const res = await botCall(server.url, token, "sendMessage", { chat_id: me.user.id, text: "hi" });
    return res.body.ok ? "sent" : res.body.description;
  };
  expect([await send(), await send()]).toEqual(["sent", "sent"]);

  const toggleBlock = () => me.client.post(`/api/social/users/kept_send_bot/block`, {});
  expect((await toggleBlock()).body.data).toEqual({ blocked: true });
  expect(await send()).toBe("Forbidden: bot was blocked by the user");
  expect((await toggleBlock()).body.data).toEqual({ blocked: false });
  expect([await send(), await send()]).toEqual(["sent", "sent"]);

  // the person's display name, as the bot's next message shows their chat
  expect((await me.client.patch("/api/account/profile", { displayName: "Renamed" })).status).toBe(200);
  const res = await botCall(server.url, token, "sendMessage", { chat_id: me.user.id, text: "hi" });
  expect(res.body.result.chat.first_name).toBe("Renamed");

  const other = openOtherConnection(server.dataDir);
  try {
    await other.db.updateTable("users").set({ disabled_at: Date.now() }).where("id", "=", me.user.id).execute();
  } finally {
    await other.close();
  }
  expect(await send()).toBe("Bad Request: chat not found");
});
