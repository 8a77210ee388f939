import type { Db } from "../../db";
import { AppError, notFound } from "../../lib/errors";
import { looksLikeCuid } from "../../lib/ids";
import { fromJson } from "./validate";
import { ACTIVE_ROLES, type ConversationRow, type MemberRow, type MessageRow } from "./table";

/** Administrator rights, named as the compatible bot API names them. */
export const ADMIN_RIGHTS = [
  "can_manage_chat",
  "can_delete_messages",
  "can_restrict_members",
  "can_invite_users",
  "can_pin_messages",
  "can_promote_members",
  "can_change_info",
] as const;
export type AdminRight = (typeof ADMIN_RIGHTS)[number];
export type Rights = Partial<Record<AdminRight, boolean>>;

export const chatNotFound = () => notFound("Conversation not found");
export const messageNotFound = () => notFound("Message not found");
export const permissionDenied = (message: string) => new AppError(403, "PERMISSION_DENIED", message);

export const isActive = (member: Pick<MemberRow, "role"> | undefined | null): boolean =>
  !!member && (ACTIVE_ROLES as readonly string[]).includes(member.role);

/** Rights a member holds: all for the creator, the stored set for administrators, none otherwise. */
export function rightsOf(member: Pick<MemberRow, "role" | "rights">): Rights {
  if (member.role === "creator") return Object.fromEntries(ADMIN_RIGHTS.map((r) => [r, true]));
  if (member.role !== "administrator") return {};
  return fromJson<Rights>(member.rights) ?? {};
}

export const hasRight = (member: Pick<MemberRow, "role" | "rights">, right: AdminRight): boolean => rightsOf(member)[right] === true;

export const findConversationById = (db: Db, id: number) =>
  db.selectFrom("conversations").selectAll().where("id", "=", id).executeTakeFirst();

export const findConversationByCuid = (db: Db, cuid: string) =>
  db.selectFrom("conversations").selectAll().where("cuid", "=", cuid).executeTakeFirst();

export const getMember = (db: Db, conversationId: number, userId: number) =>
  db.selectFrom("conversation_members").selectAll().where("conversation_id", "=", conversationId).where("user_id", "=", userId).executeTakeFirst();

export interface Membership {
  conversation: ConversationRow;
  member: MemberRow;
}

/** The conversation with USER as a current member; anyone else gets NOT_FOUND, never its contents. */
export async function requireMembership(db: Db, conversationId: number, userId: number): Promise<Membership> {
  const conversation = await findConversationById(db, conversationId);
  if (!conversation) throw chatNotFound();
  const member = await getMember(db, conversationId, userId);
  if (!isActive(member)) throw chatNotFound();
  return { conversation, member: member! };
}

/** Same as requireMembership, by the cuid the Client API shows. */
export async function requireMembershipByCuid(db: Db, cuid: string, userId: number): Promise<Membership> {
  const conversation = looksLikeCuid(cuid) ? await findConversationByCuid(db, cuid) : undefined;
  if (!conversation) throw chatNotFound();
  return requireMembership(db, conversation.id, userId);
}

export function requireGroup(conversation: ConversationRow): void {
  if (conversation.type !== "group") throw new AppError(400, "VALIDATION_ERROR", "This is not a group", { fieldErrors: { conversationId: ["is not a group"] } });
}

export function requireRight(membership: Membership, right: AdminRight, what: string): void {
  if (!hasRight(membership.member, right)) throw permissionDenied(`Only administrators may ${what}`);
}

/** A message of the conversation by its seq (the Bot API message_id); deleted ones are gone. */
export const findMessageBySeq = (db: Db, conversationId: number, seq: number): Promise<MessageRow | undefined> =>
  db
    .selectFrom("messages")
    .selectAll()
    .where("conversation_id", "=", conversationId)
    .where("seq", "=", seq)
    .where("deleted_at", "is", null)
    .executeTakeFirst();

/** A visible message by the id the Client API shows (cuid) or its integer messageId. */
export async function requireVisibleMessage(db: Db, conversationId: number, ref: string | number, viewerId: number): Promise<MessageRow> {
  let message: MessageRow | undefined;
  if (typeof ref === "number" || /^[0-9]{1,15}$/.test(ref)) message = await findMessageBySeq(db, conversationId, Number(ref));
  else if (looksLikeCuid(ref))
    message = await db
      .selectFrom("messages")
      .selectAll()
      .where("conversation_id", "=", conversationId)
      .where("cuid", "=", ref)
      .where("deleted_at", "is", null)
      .executeTakeFirst();
  if (!message) throw messageNotFound();
  const hidden = await db.selectFrom("message_hidden").select("message_id").where("message_id", "=", message.id).where("user_id", "=", viewerId).executeTakeFirst();
  if (hidden) throw messageNotFound();
  return message;
}

/** User ids of the people currently in the conversation. */
export async function activeMemberIds(db: Db, conversationId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("conversation_members")
    .select("user_id")
    .where("conversation_id", "=", conversationId)
    .where("role", "in", ACTIVE_ROLES)
    .execute();
  return rows.map((r) => r.user_id);
}
