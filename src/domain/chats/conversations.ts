import type { App } from "../../app";
import type { SystemMessage } from "../../locales/system-messages";
import { systemMessageIn, textFor } from "../users/language";
import type { Db } from "../../db";
import { fieldError, forbidden, notFound } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import { hasBlocked, isBlockedEitherWay } from "../relations/service";
import { canMessage } from "../settings/service";
import { findUserById } from "../users/service";
import type { UserRow } from "../users/table";
import { findConversationById, findPrivateChat, privateKey } from "./access";
import { sendMessage } from "./messages";
import type { ConversationRow } from "./table";
import { checkStartLabel, checkTitle } from "./validate";
import { isUniqueViolation } from "../../db/errors";
import { inTransaction } from "../../db/transaction";

export const MAX_GROUP_MEMBERS_ON_CREATE = 200;

/** A usable account by id, or NOT_FOUND. */
export async function requireLiveUser(db: Db, userId: number): Promise<UserRow> {
  const user = await findUserById(db, userId);
  if (!user || user.disabled_at) throw notFound("User not found");
  return user;
}

/** The private chat of two accounts, created on first use, without any privacy check. */
export async function ensurePrivateChat(
  app: App,
  aId: number,
  bId: number,
): Promise<{ conversation: ConversationRow; created: boolean }> {
  const existing = await findPrivateChat(app.db, aId, bId);
  if (existing) return { conversation: existing, created: false };
  const now = app.clock.now();
  try {
    const conversation = await inTransaction(app.storage, async ({ db: trx }) => {
      const conv = await trx
        .insertInto("conversations")
        .values({
          cuid: newCuid(),
          type: "private",
          private_key: privateKey(aId, bId),
          created_by: aId,
          activity_at: now,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto("conversation_members")
        .values(
          [aId, bId].map((user_id) => ({
            conversation_id: conv.id,
            user_id,
            role: "member" as const,
            joined_at: now,
            updated_at: now,
          })),
        )
        .execute();
      return conv;
    });
    return { conversation, created: true };
  } catch (err) {
    // the other side opened the same chat at the same moment
    if (!isUniqueViolation(err)) throw err;
    const again = await findPrivateChat(app.db, aId, bId);
    if (!again) throw err;
    return { conversation: again, created: false };
  }
}

/**
 * Opens (or finds) the private chat of A with B; the same chat every time. People respect B's
 * "who may message me" setting and blocks; a bot never starts a chat, it only answers in one a
 * person opened. A `startLabel` to a bot posts "/start <label>" from A (the bot's deep link).
 * Emits `chat:opened`.
 */
export async function openPrivateChat(
  app: App,
  aId: number,
  bId: number,
  opts: { startLabel?: string } = {},
): Promise<ConversationRow> {
  if (aId === bId) throw fieldError("username", "you cannot open a chat with yourself");
  const [a, b] = await Promise.all([requireLiveUser(app.db, aId), requireLiveUser(app.db, bId)]);
  if (opts.startLabel !== undefined) checkStartLabel(opts.startLabel);
  // someone who blocked you is not there for you, as on their profile
  if (await hasBlocked(app.db, bId, aId)) throw notFound("User not found");
  const existing = await findPrivateChat(app.db, aId, bId);
  if (a.is_bot === 1) {
    if (!existing) throw forbidden("A bot can't initiate a conversation with a user");
    if (await isBlockedEitherWay(app.db, aId, bId)) throw forbidden("You cannot message this person");
  } else if (b.is_bot === 1 || b.is_system === 1) {
    if (await isBlockedEitherWay(app.db, aId, bId)) throw forbidden("You cannot message this person");
  } else if (!(await canMessage(app.db, aId, bId))) {
    // B already wrote in this chat: the conversation is theirs too, only a block stops it
    const bWrote = existing
      ? await app.db
          .selectFrom("messages")
          .select("id")
          .where("conversation_id", "=", existing.id)
          .where("sender_id", "=", bId)
          .limit(1)
          .executeTakeFirst()
      : undefined;
    if (!bWrote || (await isBlockedEitherWay(app.db, aId, bId)))
      throw forbidden("This person does not accept messages from you");
  }
  const { conversation } = existing ? { conversation: existing } : await ensurePrivateChat(app, aId, bId);
  const startLabel = b.is_bot === 1 ? opts.startLabel : undefined;
  if (startLabel !== undefined) {
    await app.db
      .updateTable("conversation_members")
      .set({ start_label: startLabel, updated_at: app.clock.now() })
      .where("conversation_id", "=", conversation.id)
      .where("user_id", "=", aId)
      .execute();
  }
  await app.hooks.emit("chat:opened", {
    conversationId: conversation.id,
    userId: aId,
    otherUserId: bId,
    ...(startLabel !== undefined ? { startLabel } : {}),
  });
  if (startLabel !== undefined) {
    await sendMessage(app, {
      conversationId: conversation.id,
      senderId: aId,
      content: `/start ${startLabel}`,
      entities: [{ type: "bot_command", offset: 0, length: 6 }],
    });
  }
  return (await findConversationById(app.db, conversation.id))!;
}

/**
 * System message of a group (member added, title changed...): kind "system", sent by the
 * actor. Its structure lets each reader word it in their language; its content is the text in
 * the instance's default language.
 */
export async function postSystemMessage(app: App, conversationId: number, actorId: number, system: SystemMessage) {
  const content = systemMessageIn(await textFor(null), system, "");
  return sendMessage(app, { conversationId, senderId: actorId, kind: "system", content, system });
}

/** May ACTOR put TARGET into a group? Bots always (unless blocked); people by their message setting. */
export async function assertMayAdd(db: Db, actor: UserRow, target: UserRow): Promise<void> {
  if (await isBlockedEitherWay(db, actor.id, target.id)) throw forbidden(`${target.username} cannot be added by you`);
  if (target.is_bot !== 1 && !(await canMessage(db, actor.id, target.id)))
    throw forbidden(`${target.username} does not accept invitations from you`);
}

/** Creates a group with CREATOR as its creator and MEMBERS as ordinary members. Emits `member:changed` for each member. */
export async function createGroup(
  app: App,
  creatorId: number,
  title: string,
  memberIds: number[],
): Promise<ConversationRow> {
  const cleanTitle = checkTitle(title);
  const creator = await requireLiveUser(app.db, creatorId);
  if (creator.is_bot === 1) throw forbidden("Bots cannot create groups");
  const ids = [...new Set(memberIds)].filter((id) => id !== creatorId);
  if (ids.length > MAX_GROUP_MEMBERS_ON_CREATE)
    throw fieldError("members", `must have at most ${MAX_GROUP_MEMBERS_ON_CREATE} people`);
  const members: UserRow[] = [];
  for (const id of ids) {
    const user = await findUserById(app.db, id);
    if (!user || user.disabled_at || user.is_system === 1) throw fieldError("members", "contains an unknown account");
    await assertMayAdd(app.db, creator, user);
    members.push(user);
  }
  const now = app.clock.now();
  const conversation = await inTransaction(app.storage, async ({ db: trx }) => {
    const conv = await trx
      .insertInto("conversations")
      .values({
        cuid: newCuid(),
        type: "group",
        title: cleanTitle,
        created_by: creatorId,
        activity_at: now,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto("conversation_members")
      .values([
        { conversation_id: conv.id, user_id: creatorId, role: "creator" as const, joined_at: now, updated_at: now },
        ...members.map((m) => ({
          conversation_id: conv.id,
          user_id: m.id,
          role: "member" as const,
          joined_at: now,
          updated_at: now,
        })),
      ])
      .execute();
    return conv;
  });
  await postSystemMessage(app, conversation.id, creatorId, {
    action: "group_created",
    title: cleanTitle,
    actor: creator.username,
  });
  for (const m of members) {
    await app.hooks.emit("member:changed", {
      conversationId: conversation.id,
      userId: m.id,
      actorId: creatorId,
      oldRole: null,
      newRole: "member",
    });
  }
  return (await findConversationById(app.db, conversation.id))!;
}

// kept importable from here: the Bot API imports it from this module
export { memberCount } from "./access";

/** The creator and the administrators, creator first. */
export async function listAdministrators(db: Db, conversationId: number) {
  return db
    .selectFrom("conversation_members")
    .innerJoin("users", "users.id", "conversation_members.user_id")
    .selectAll("conversation_members")
    .select(["users.username", "users.cuid as userCuid"])
    .where("conversation_id", "=", conversationId)
    .where("role", "in", ["creator", "administrator"])
    .orderBy(({ case: c }) => c().when("role", "=", "creator").then(0).else(1).end())
    .orderBy("conversation_members.joined_at")
    .execute();
}
