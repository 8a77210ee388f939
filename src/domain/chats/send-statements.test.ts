import { afterAll, beforeAll, expect, test } from "bun:test";
import { botWorld, botCall, createBotViaApi, openChat, type BotWorld } from "../../testing/botapi";
import { quickPerson } from "../../testing/fixtures";
import { fewestStatements } from "../../testing/statements";
import { requireMembershipByCuid } from "./access";
import { createGroup } from "./conversations";
import { sendMessageIn } from "./messages";

/*
 * The statements a send runs, pinned per request (BEGIN and COMMIT included). A send is
 * the membership check (a plain Client API send: inside its transaction, and on SQLite kept
 * between a person's sends to the chat while nothing it is read from is written), then in one
 * transaction the members to notify with the block check (one statement), the row (its insert
 * takes the chat's next seq and moves the sender's read mark) and the bots' updates; the chat,
 * the sender and the bots are never read twice, and a chat without bots asks for none.
 */

let world: BotWorld;
let token: string;
let botChat: string;
let friendChat: string;
let friendName: string;
let groupChat: string;
beforeAll(async () => {
  world = await botWorld();
  token = await createBotViaApi(world.owner, "pinned_send_bot");
  botChat = await openChat(world.person, "pinned_send_bot");
  const friend = await quickPerson(world.server);
  friendName = friend.user.username;
  friendChat = await openChat(world.person, friendName);
  groupChat = (await createGroup(world.server.app, world.personUser.id, "pinned sends", [friend.user.id])).cuid;
  await botCall(world.server.url, token, "getUpdates", { offset: -1 });
});
afterAll(() => world.server.stop());

/**
 * PostgreSQL runs more statements where noted: it keeps no sessions or tokens in memory, and it
 * orders a bot's updates with a lock; a message's seq is read from the chat in the INSERT, as on
 * SQLite, with the chat's row locked (the lock orders concurrent sends)
 */
const onPostgres = (n: number) => (world.server.app.storage.engine === "postgres" ? n : 0);

/** The statements of RUN (each try a send), BEFORE run ahead of each try. */
const counted = (run: () => Promise<{ status: number }>, before?: () => Promise<unknown>) =>
  fewestStatements(world.server.app.storage, async () => expect((await run()).status).toBe(200), { before });

test("Bot API sendMessage to a person: 4 statements, 3 while its access check is kept", async () => {
  const send = () => botCall(world.server.url, token, "sendMessage", { chat_id: world.personUser.id, text: "hi" });
  await send(); // the first call resolves the token; later ones find it in process
  // BEGIN, row (its seq and read mark), COMMIT: the person with their chat, both memberships and
  // the block check (one statement) were kept by the send before (send-access.ts); a bot's own
  // message reaches no bot: no bot query. PostgreSQL reads the stamps of the token's bot and of
  // the check (one statement), and the row's INSERT is a transaction of its own that writes while
  // the kept check's stamp holds
  expect(await counted(send)).toBe(onPostgres(2) || 3);
  // the person blocks the bot and takes it back: the next send reads the check again, in its
  // transaction; on PostgreSQL after the INSERT that found the stamp moved
  const blockedAndBack = async () => {
    for (let i = 0; i < 2; i++)
      expect((await world.person.post(`/api/social/users/pinned_send_bot/block`, {})).status).toBe(200);
  };
  expect(await counted(send, blockedAndBack)).toBe(4 + onPostgres(3));
});

test("Client API send to a person: 4 statements, 3 while its access check is kept", async () => {
  const send = () => world.person.post(`/api/social/messages/${friendChat}`, { content: "hello" });
  await send(); // the session is read once, then kept: a send writes no session, account or ban
  // BEGIN, row (its seq and read mark), COMMIT: the access check (the chat with the sender's
  // membership, the other party's and the block check) was kept by the send before, which wrote
  // nothing it is read from (send-access.ts); neither is a bot: no query for the chat's bots;
  // the sender comes from the session. PostgreSQL reads the session's stamp, and the row's
  // INSERT is a transaction of its own that writes while the kept check's stamp holds
  expect(await counted(send)).toBe(onPostgres(2) || 3);
  // a write the check is read from (a block, taken back): the next send reads it again, in its
  // transaction, in one statement; on PostgreSQL after the INSERT that found the stamp moved
  const blockedAndBack = async () => {
    for (let i = 0; i < 2; i++)
      expect((await world.person.post(`/api/social/users/${friendName}/block`, {})).status).toBe(200);
  };
  expect(await counted(send, blockedAndBack)).toBe(4 + onPostgres(3));
});

test("Client API send to a group: 4 statements while its access check is kept", async () => {
  const send = () => world.person.post(`/api/social/messages/${groupChat}`, { content: "hello all" });
  await send();
  // BEGIN, the members to notify (a group's are read on their own), row (its seq and read mark),
  // COMMIT; the chat with the sender's membership read once more on PostgreSQL
  expect(await counted(send)).toBe(4 + onPostgres(2));
});

test("a person's message to a bot: 6 statements in the domain, the bot's update in the same transaction", async () => {
  const { app } = world.server;
  const membership = await requireMembershipByCuid(app.db, botChat, world.personUser.id);
  // counted in the domain, the fewest of three sends: the webhook worker's look at the queues (a
  // timer the new update sets off) may fall inside the window
  const statements = await fewestStatements(app.storage, () =>
    sendMessageIn(app, membership, { content: "to the bot" }, { sender: world.personUser }),
  );
  // BEGIN, the members (one of them a bot) with the block check, row (its seq and read mark),
  // the chat's bots with their accounts (one statement), the update, COMMIT; PostgreSQL takes
  // the bot's queue lock before the update (update ids in commit order)
  expect(statements).toBe(6 + onPostgres(1));
  const updates = await botCall(world.server.url, token, "getUpdates", { timeout: 0 });
  expect(updates.body.result.map((u: { message: { text: string } }) => u.message.text)).toEqual([
    "to the bot",
    "to the bot",
    "to the bot",
  ]);
});
