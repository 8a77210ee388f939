import type { ExpressionBuilder } from "kysely";
import type { App } from "../../app";
import type { Database, Db } from "../../db";
import { fieldError, forbidden, notFound } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { decodeCursor, pageOf } from "../../lib/paging";
import { canMessage } from "../settings/service";
import { findUserById } from "../users/service";
import type { UserRow } from "../users/table";
import {
  ADMIN_RIGHTS,
  getMember,
  isActive,
  permissionDenied,
  requireGroup,
  requireMembership,
  requireRight,
  rightsOf,
  type Membership,
  type Rights,
} from "./access";
import { assertMayAdd, postSystemMessage, requireLiveUser } from "./conversations";
import { publishChatUpdated } from "./notify";
import type { ConversationRow, MemberRole } from "./table";
import { checkTitle } from "./validate";
import { wipedMessage } from "./message-row";

async function setRole(
  app: App,
  conversationId: number,
  userId: number,
  role: MemberRole,
  rights: Rights | null,
  joined: boolean,
) {
  const now = app.clock.now();
  await app.db
    .insertInto("conversation_members")
    .values({
      conversation_id: conversationId,
      user_id: userId,
      role,
      rights: rights ? JSON.stringify(rights) : null,
      joined_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["conversation_id", "user_id"]).doUpdateSet({
        role,
        rights: rights ? JSON.stringify(rights) : null,
        updated_at: now,
        ...(joined ? { joined_at: now } : {}),
      }),
    )
    .execute();
}

async function groupMembership(app: App, conversationId: number, actorId: number): Promise<Membership> {
  const membership = await requireMembership(app.db, conversationId, actorId);
  requireGroup(membership.conversation);
  return membership;
}

async function changed(
  app: App,
  conversationId: number,
  userId: number,
  actorId: number,
  oldRole: string | null,
  newRole: MemberRole,
) {
  await app.hooks.emit("member:changed", { conversationId, userId, actorId, oldRole, newRole });
  await publishChatUpdated(app, conversationId, [userId]);
}

/**
 * An administrator (can_invite_users) adds a person or a bot. Someone removed by an
 * administrator returns only by invitation link.
 */
export async function addMember(
  app: App,
  input: { conversationId: number; actorId: number; userId: number },
): Promise<void> {
  const membership = await groupMembership(app, input.conversationId, input.actorId);
  requireRight(membership, "can_invite_users", "Only administrators may add members");
  const [actor, target] = await Promise.all([
    requireLiveUser(app.db, input.actorId),
    findUserById(app.db, input.userId),
  ]);
  if (!target || target.disabled_at || target.is_system === 1) throw notFound("User not found");
  const existing = await getMember(app.db, input.conversationId, input.userId);
  if (isActive(existing)) throw fieldError("username", "is already a member");
  if (existing?.role === "kicked") throw forbidden("A removed member can return only by invitation link");
  await assertMayAdd(app.db, actor, target);
  await setRole(app, input.conversationId, target.id, "member", null, true);
  await postSystemMessage(app, input.conversationId, actor.id, {
    action: "member_added",
    actor: actor.username,
    user: target.username,
  });
  await changed(app, input.conversationId, target.id, actor.id, existing?.role ?? null, "member");
}

/** An administrator (can_restrict_members) removes a member; only the creator removes administrators. */
export async function removeMember(
  app: App,
  input: { conversationId: number; actorId: number; userId: number },
): Promise<void> {
  const membership = await groupMembership(app, input.conversationId, input.actorId);
  requireRight(membership, "can_restrict_members", "Only administrators may remove members");
  if (input.userId === input.actorId) throw fieldError("username", "use leave to leave the group");
  const target = await getMember(app.db, input.conversationId, input.userId);
  if (!target || !isActive(target)) throw notFound("Not a member of this group");
  if (target.role === "creator") throw permissionDenied("The creator cannot be removed");
  if (target.role === "administrator" && membership.member.role !== "creator")
    throw permissionDenied("Only the creator may remove administrators");
  await setRole(app, input.conversationId, input.userId, "kicked", null, false);
  const [actor, user] = await Promise.all([findUserById(app.db, input.actorId), findUserById(app.db, input.userId)]);
  await postSystemMessage(app, input.conversationId, input.actorId, {
    action: "member_removed",
    actor: actor?.username ?? "",
    user: user?.username ?? "",
  });
  await changed(app, input.conversationId, input.userId, input.actorId, target.role, "kicked");
}

/** A member leaves. A leaving creator hands the group to the longest-serving administrator, else member. */
export async function leaveGroup(app: App, input: { conversationId: number; userId: number }): Promise<void> {
  const membership = await groupMembership(app, input.conversationId, input.userId);
  const user = await findUserById(app.db, input.userId);
  await postSystemMessage(app, input.conversationId, input.userId, {
    action: "member_left",
    user: user?.username ?? "",
  });
  await departGroup(app, input.conversationId, input.userId, membership.member.role);
}

/** Marks USER as gone from a group and, when they created it, hands the group on. */
async function departGroup(app: App, conversationId: number, userId: number, oldRole: MemberRole): Promise<void> {
  await setRole(app, conversationId, userId, "left", null, false);
  if (oldRole === "creator") {
    const heir = await app.db
      .selectFrom("conversation_members")
      .selectAll()
      .where("conversation_id", "=", conversationId)
      .where("role", "in", ["administrator", "member"])
      .orderBy(({ case: c }) => c().when("role", "=", "administrator").then(0).else(1).end())
      .orderBy("joined_at")
      .orderBy("id")
      .executeTakeFirst();
    if (heir) {
      await setRole(app, conversationId, heir.user_id, "creator", null, false);
      await app.hooks.emit("member:changed", {
        conversationId,
        userId: heir.user_id,
        actorId: userId,
        oldRole: heir.role,
        newRole: "creator",
      });
    }
  }
  await changed(app, conversationId, userId, userId, oldRole, "left");
}

/**
 * A deleted account leaves its groups (handing on the ones it created) and its messages and
 * reactions are wiped; private chats stay, showing the other person's own messages.
 */
export async function forgetDeletedAccount(app: App, userId: number): Promise<void> {
  const groups = await app.db
    .selectFrom("conversation_members as m")
    .innerJoin("conversations as c", "c.id", "m.conversation_id")
    .select(["m.conversation_id", "m.role"])
    .where("m.user_id", "=", userId)
    .where("c.type", "=", "group")
    .where("m.role", "in", ["creator", "administrator", "member"])
    .execute();
  for (const g of groups) await departGroup(app, g.conversation_id, userId, g.role);
  await app.db
    .updateTable("messages")
    // a removed account's invoices go with its words
    .set({ ...wipedMessage(app.clock.now()), invoice: null })
    .where("sender_id", "=", userId)
    .where("deleted_at", "is", null)
    .execute();
  await app.db.deleteFrom("message_reactions").where("user_id", "=", userId).execute();
}

/**
 * Makes a member an administrator with RIGHTS (any true right) or an ordinary member (none).
 * Needs can_promote_members; nobody grants a right they lack; only the creator changes
 * another administrator.
 */
export async function promoteMember(
  app: App,
  input: { conversationId: number; actorId: number; userId: number; rights: Rights },
): Promise<MemberRole> {
  const membership = await groupMembership(app, input.conversationId, input.actorId);
  requireRight(membership, "can_promote_members", "Only administrators may promote members");
  const target = await getMember(app.db, input.conversationId, input.userId);
  if (!target || !isActive(target)) throw notFound("Not a member of this group");
  if (target.role === "creator") throw permissionDenied("The creator's role cannot be changed");
  if (input.userId === input.actorId) throw fieldError("username", "you cannot change your own rights");
  if (target.role === "administrator" && membership.member.role !== "creator" && target.promoted_by !== input.actorId) {
    throw permissionDenied("Only the creator or whoever promoted them may change administrators");
  }
  const mine = rightsOf(membership.member);
  const rights: Rights = {};
  for (const key of Object.keys(input.rights)) {
    if (!(ADMIN_RIGHTS as readonly string[]).includes(key)) throw fieldError(`rights.${key}`, "is not a known right");
    if (input.rights[key as keyof Rights] === true) {
      if (!mine[key as keyof Rights]) throw permissionDenied(`You cannot grant ${key}`);
      rights[key as keyof Rights] = true;
    }
  }
  const role: MemberRole = Object.keys(rights).length > 0 ? "administrator" : "member";
  await setRole(app, input.conversationId, input.userId, role, role === "administrator" ? rights : null, false);
  await app.db
    .updateTable("conversation_members")
    .set({ promoted_by: role === "administrator" ? input.actorId : null })
    .where("conversation_id", "=", input.conversationId)
    .where("user_id", "=", input.userId)
    .execute();
  await changed(app, input.conversationId, input.userId, input.actorId, target.role, role);
  return role;
}

/** Every right the actor may grant except promoting others: what "make administrator" means without a list. */
export function defaultAdminRights(membership: Membership): Rights {
  const mine = rightsOf(membership.member);
  return Object.fromEntries(ADMIN_RIGHTS.filter((r) => r !== "can_promote_members" && mine[r]).map((r) => [r, true]));
}

/** Renames a group (can_change_info) with a system message. */
export async function renameGroup(
  app: App,
  input: { conversationId: number; actorId: number; title: string },
): Promise<ConversationRow> {
  const membership = await groupMembership(app, input.conversationId, input.actorId);
  requireRight(membership, "can_change_info", "Only administrators may change the group");
  const title = checkTitle(input.title);
  const now = app.clock.now();
  const conv = await app.db
    .updateTable("conversations")
    .set({ title, updated_at: now })
    .where("id", "=", input.conversationId)
    .returningAll()
    .executeTakeFirstOrThrow();
  const actor = await findUserById(app.db, input.actorId);
  await postSystemMessage(app, input.conversationId, input.actorId, {
    action: "title_changed",
    actor: actor?.username ?? "",
    title,
    oldTitle: membership.conversation.title,
  });
  await publishChatUpdated(app, input.conversationId);
  return conv;
}

/** Longest group description, in characters (the compatible API's setChatDescription limit). */
export const MAX_GROUP_DESCRIPTION = 255;

/** Sets a group's description (can_change_info); empty removes it. Members see it change; no system message. */
export async function describeGroup(
  app: App,
  input: { conversationId: number; actorId: number; description: string },
): Promise<ConversationRow> {
  const membership = await groupMembership(app, input.conversationId, input.actorId);
  requireRight(membership, "can_change_info", "Only administrators may change the group");
  const description = input.description.trim();
  if ([...description].length > MAX_GROUP_DESCRIPTION)
    throw fieldError("description", `must be at most ${MAX_GROUP_DESCRIPTION} characters`);
  const conv = await app.db
    .updateTable("conversations")
    .set({ description: description === "" ? null : description, updated_at: app.clock.now() })
    .where("id", "=", input.conversationId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await publishChatUpdated(app, input.conversationId);
  return conv;
}

/** Sets or (null) removes a group's photo (can_change_info); the URL is checked by the surface. */
export async function setGroupPhoto(
  app: App,
  input: { conversationId: number; actorId: number; photoUrl: string | null },
): Promise<ConversationRow> {
  const membership = await groupMembership(app, input.conversationId, input.actorId);
  requireRight(membership, "can_change_info", "Only administrators may change the group");
  const conv = await app.db
    .updateTable("conversations")
    .set({ photo_url: input.photoUrl, updated_at: app.clock.now() })
    .where("id", "=", input.conversationId)
    .returningAll()
    .executeTakeFirstOrThrow();
  const actor = await findUserById(app.db, input.actorId);
  await postSystemMessage(app, input.conversationId, input.actorId, {
    action: input.photoUrl ? "photo_changed" : "photo_removed",
    actor: actor?.username ?? "",
    photoUrl: input.photoUrl,
  });
  await publishChatUpdated(app, input.conversationId);
  return conv;
}

/** The group's invite link now, or null when it has none. */
export async function currentInviteLink(app: App, conversationId: number): Promise<string | null> {
  const row = await app.db
    .selectFrom("conversations")
    .select("invite_code")
    .where("id", "=", conversationId)
    .executeTakeFirst();
  return row?.invite_code ? inviteLinkFor(app, row.invite_code) : null;
}

/** Link anyone can join by; a new link replaces (revokes) the previous one. */
export const inviteLinkFor = (app: App, code: string) =>
  `${app.config.baseUrl.replace(/\/$/, "")}/dashboard/messages?join=${code}`;

export async function createInvite(
  app: App,
  input: { conversationId: number; actorId: number },
): Promise<{ code: string; inviteLink: string }> {
  const membership = await groupMembership(app, input.conversationId, input.actorId);
  requireRight(membership, "can_invite_users", "Only administrators may create invite links");
  const code = randomToken(12);
  await app.db
    .updateTable("conversations")
    .set({ invite_code: code, invite_by: input.actorId, updated_at: app.clock.now() })
    .where("id", "=", input.conversationId)
    .execute();
  return { code, inviteLink: inviteLinkFor(app, code) };
}

/** The group an invite CODE opens; NOT_FOUND when the link was revoked or never was. */
export async function groupByInvite(db: Db, code: string): Promise<ConversationRow> {
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(code)) throw fieldError("code", "is not a valid invite code");
  const conv = await db
    .selectFrom("conversations")
    .selectAll()
    .where("invite_code", "=", code)
    .where("type", "=", "group")
    .executeTakeFirst();
  if (!conv) throw notFound("Invite link not found or revoked");
  return conv;
}

/**
 * Joins by an invite code; the way back for removed members. Joining twice is harmless. A
 * join is a direct add by the link's maker (the group's creator for links made before makers
 * were kept): the joiner's "who may message me" must let that person add them, as
 * assertMayAdd asks of a direct add, so a link cannot put a person who allows nobody (or only
 * people they follow) where strangers write to them.
 */
export async function joinByInvite(app: App, input: { code: string; userId: number }): Promise<ConversationRow> {
  const conv = await groupByInvite(app.db, input.code);
  const user = await requireLiveUser(app.db, input.userId);
  const existing = await getMember(app.db, conv.id, user.id);
  if (isActive(existing)) return conv;
  const inviter = conv.invite_by ?? conv.created_by;
  if (inviter !== null && inviter !== user.id && !(await canMessage(app.db, inviter, user.id)))
    throw forbidden(
      "Your setting of who may message you does not let this group's inviter add you, so you cannot join by this link",
    );
  await setRole(app, conv.id, user.id, "member", null, true);
  await postSystemMessage(app, conv.id, user.id, {
    action: "member_joined",
    user: user.username,
  });
  await changed(app, conv.id, user.id, user.id, existing?.role ?? null, "member");
  return conv;
}

/** Current members, creator and administrators first, cursor paged. */
export async function listMembers(
  app: App,
  input: { conversationId: number; viewerId: number; cursor?: string; limit: number },
) {
  await requireMembership(app.db, input.conversationId, input.viewerId);
  const cursor = decodeCursor(input.cursor);
  // sort key: rank (creator 0, admin 1, member 2) as the cursor's t, member id as the tie-breaker
  const rank = (eb: ExpressionBuilder<Database, "conversation_members">) =>
    eb
      .case()
      .when("conversation_members.role", "=", "creator")
      .then(0)
      .when("conversation_members.role", "=", "administrator")
      .then(1)
      .else(2)
      .end();
  let q = app.db
    .selectFrom("conversation_members")
    .innerJoin("users", "users.id", "conversation_members.user_id")
    .selectAll("users")
    .select([
      "conversation_members.id as memberId",
      "conversation_members.role",
      "conversation_members.rights",
      "conversation_members.joined_at",
      (eb) => rank(eb).as("rank"),
    ])
    .where("conversation_members.conversation_id", "=", input.conversationId)
    .where("conversation_members.role", "in", ["creator", "administrator", "member"])
    .orderBy("rank")
    .orderBy("conversation_members.id")
    .limit(input.limit + 1);
  if (cursor) {
    q = q.where((eb) =>
      eb.or([
        eb(rank(eb), ">", cursor.t),
        eb.and([eb(rank(eb), "=", cursor.t), eb("conversation_members.id", ">", cursor.id)]),
      ]),
    );
  }
  const rows = await q.execute();
  const page = pageOf(rows, input.limit, (r) => ({ t: Number(r.rank), id: r.memberId }));
  return {
    items: page.items.map((r) => ({
      user: r as unknown as UserRow,
      member: { role: r.role, rights: r.rights, joined_at: r.joined_at },
    })),
    nextCursor: page.nextCursor,
  };
}
