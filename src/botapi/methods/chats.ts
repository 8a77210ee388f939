import {
  ADMIN_RIGHTS,
  findMessageBySeq,
  getMember,
  isActive,
  pinnedSeqs,
  rightsOf,
  type Rights,
} from "../../domain/chats/access";
import { listAdministrators, memberCount } from "../../domain/chats/conversations";
import {
  createInvite,
  currentInviteLink,
  leaveGroup,
  promoteMember,
  removeMember,
  renameGroup,
  describeGroup,
  MAX_GROUP_DESCRIPTION,
  setGroupPhoto,
} from "../../domain/chats/members";
import { findUploadByUrl } from "../../media/uploads";
import { findUserById } from "../../domain/users/service";
import type { UserRow } from "../../domain/users/table";
import { findPerson, resolveChat } from "../chats";
import type { BotContext, MethodTable } from "../context";
import { asBot, badRequest, forbiddenBot } from "../errors";
import { inputFile } from "../files";
import {
  photoSizes,
  serializeChat,
  serializeChatMember,
  serializeMessage,
  serializeUser,
  type ChatView,
} from "../serializers";

/** The group's current invite link, which invite_link must name. */
async function namedInviteLink(ctx: BotContext): Promise<{ view: ChatView; link: string }> {
  const view = await groupChat(ctx);
  const given = ctx.params.str("invite_link", { required: true, empty: "invite link is empty" })!;
  // read now: the chat the view holds may be a cached copy from before the last new link
  const link = await currentInviteLink(ctx.app, view.conversation.id);
  if (link === null || given !== link) throw badRequest("INVITE_HASH_EXPIRED");
  return { view, link };
}

/** Only members who may invite see or change the link. */
async function requireInviteRight(ctx: BotContext, view: ChatView): Promise<void> {
  const member = await getMember(ctx.app.db, view.conversation.id, ctx.me.id);
  if (!member || rightsOf(member).can_invite_users !== true) throw forbiddenBot("not enough rights to invite users");
}

const inviteLinkShape = (ctx: BotContext, link: string, fields: { name?: string; is_revoked: boolean }) => ({
  invite_link: link,
  creator: serializeUser(ctx.me),
  creates_join_request: false,
  is_primary: true,
  ...fields,
});

/** A group chat from chat_id; private chats have no members to manage. */
async function groupChat(ctx: BotContext): Promise<ChatView> {
  const view = await resolveChat(ctx, "chat_id", false);
  if (view.conversation.type !== "group") throw badRequest("chat member status can't be changed in private chats");
  return view;
}

/** `user_id` as an integer id or @username; anyone with an account (bots included). */
async function userParam(ctx: BotContext): Promise<UserRow> {
  const ref = ctx.params.chatRef("user_id")!;
  const user = typeof ref === "number" && ref < 0 ? undefined : await findPerson(ctx.app, ref);
  if (!user) throw badRequest("user not found");
  return user;
}

const noRights = (what: string) => ({
  403: () => forbiddenBot(`not enough rights to ${what}`),
  404: () => badRequest("user not found"),
});

export const chatMethods = {
  async getChat(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    const { conversation, other } = view;
    const photoUrl = conversation.type === "group" ? conversation.photo_url : other?.avatar_url;
    // the most recently pinned message, as the compatible API gives it
    const [pinnedSeq] = await pinnedSeqs(ctx.app.db, conversation.id);
    const pinned = pinnedSeq === undefined ? undefined : await findMessageBySeq(ctx.app.db, conversation.id, pinnedSeq);
    const common = {
      pinned_message: pinned ? await serializeMessage(ctx.app.db, view, pinned) : undefined,
      accent_color_id: 0,
      max_reaction_count: 1,
      // no gifts here: none are accepted
      accepted_gift_types: {
        unlimited_gifts: false,
        limited_gifts: false,
        unique_gifts: false,
        premium_subscription: false,
        gifts_from_channels: false,
      },
      photo: photoUrl
        ? {
            small_file_id: photoUrl,
            small_file_unique_id: photoUrl,
            big_file_id: photoUrl,
            big_file_unique_id: photoUrl,
          }
        : undefined,
    };
    const chat = serializeChat(conversation, other);
    // a group has a description, a person a bio
    return chat.type === "group"
      ? { ...chat, ...common, description: conversation.description ?? undefined }
      : { ...chat, ...common, bio: other?.bio || undefined };
  },

  async getChatMemberCount(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    return memberCount(ctx.app.db, view.conversation.id);
  },

  async getChatMember(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    const user = await userParam(ctx);
    const member = await getMember(ctx.app.db, view.conversation.id, user.id);
    return serializeChatMember(member ?? { role: "left", rights: null }, user);
  },

  async getChatAdministrators(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    if (view.conversation.type === "private") {
      // both sides of a private chat, as the compatible API answers
      return [view.other, ctx.me].flatMap((u) => (u ? [serializeChatMember({ role: "member", rights: null }, u)] : []));
    }
    const admins = await listAdministrators(ctx.app.db, view.conversation.id);
    const out = [];
    for (const a of admins) {
      const user = await findUserById(ctx.app.db, a.user_id);
      if (user) out.push(serializeChatMember(a, user));
    }
    return out;
  },

  async banChatMember(ctx) {
    const view = await groupChat(ctx);
    const user = await userParam(ctx);
    ctx.params.int("until_date");
    ctx.params.bool("revoke_messages");
    if (user.id === ctx.me.id) throw badRequest("can't remove chat owner or yourself");
    const member = await getMember(ctx.app.db, view.conversation.id, user.id);
    if (!isActive(member)) return true;
    if (member!.role === "creator") throw badRequest("can't remove chat owner");
    await asBot(
      () => removeMember(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id, userId: user.id }),
      noRights("restrict/ban chat member"),
    );
    return true;
  },

  // there is no ban list: a removed member returns by invitation, so unbanning has nothing to undo
  async unbanChatMember(ctx) {
    await groupChat(ctx);
    await userParam(ctx);
    ctx.params.bool("only_if_banned");
    return true;
  },

  async promoteChatMember(ctx) {
    const view = await groupChat(ctx);
    const user = await userParam(ctx);
    const rights: Rights = {};
    for (const right of ADMIN_RIGHTS) if (ctx.params.bool(right)) rights[right] = true;
    const member = await getMember(ctx.app.db, view.conversation.id, user.id);
    if (!isActive(member)) throw badRequest("user is not a member of the chat");
    if (member!.role === "creator") throw badRequest("can't change the rights of the chat owner");
    await asBot(
      () =>
        promoteMember(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id, userId: user.id, rights }),
      noRights("promote chat member"),
    );
    return true;
  },

  async setChatTitle(ctx) {
    const view = await groupChat(ctx);
    const title = ctx.params.str("title", { required: true, max: 128, empty: "chat title is empty" })!;
    if (title.trim() === "") throw badRequest("chat title is empty");
    if (title.trim() === view.conversation.title) throw badRequest("chat title is not modified");
    await asBot(
      () => renameGroup(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id, title }),
      noRights("change chat info"),
    );
    return true;
  },

  async setChatDescription(ctx) {
    const view = await groupChat(ctx);
    const description = ctx.params.str("description") ?? "";
    if ([...description].length > MAX_GROUP_DESCRIPTION) throw badRequest("chat description is too long");
    if ((description.trim() || null) === view.conversation.description)
      throw badRequest("chat description is not modified");
    await asBot(
      () => describeGroup(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id, description }),
      noRights("change chat info"),
    );
    return true;
  },

  async setChatPhoto(ctx) {
    const view = await groupChat(ctx);
    const member = await getMember(ctx.app.db, view.conversation.id, ctx.me.id);
    if (member?.role !== "creator" && member?.role !== "administrator")
      throw forbiddenBot("not enough rights to change chat photo");
    const photo = await inputFile(ctx, "photo", ctx.params.values.photo);
    await asBot(
      () => setGroupPhoto(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id, photoUrl: photo.url }),
      noRights("change chat photo"),
    );
    return true;
  },

  async deleteChatPhoto(ctx) {
    const view = await groupChat(ctx);
    if (!view.conversation.photo_url) throw badRequest("CHAT_NOT_MODIFIED");
    await asBot(
      () => setGroupPhoto(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id, photoUrl: null }),
      noRights("change chat photo"),
    );
    return true;
  },

  /** The group's one link keeps working; the name given is echoed (links carry no name, expiry or limit here). */
  async editChatInviteLink(ctx) {
    const { view, link } = await namedInviteLink(ctx);
    const name = ctx.params.str("name", { max: 32 });
    if (ctx.params.bool("creates_join_request"))
      throw badRequest("join requests are not supported: groups have no approval queue");
    ctx.params.int("expire_date");
    ctx.params.int("member_limit", { min: 1, max: 99999 });
    await requireInviteRight(ctx, view);
    return inviteLinkShape(ctx, link, { name, is_revoked: false });
  },

  /** Revoking the group's link replaces it with a new one, as revoking a primary link does. */
  async revokeChatInviteLink(ctx) {
    const { view, link } = await namedInviteLink(ctx);
    await asBot(
      () => createInvite(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id }),
      noRights("invite users"),
    );
    return inviteLinkShape(ctx, link, { is_revoked: true });
  },

  /** A group has one invite link: a new one replaces (revokes) the previous, as exportChatInviteLink does. */
  async exportChatInviteLink(ctx) {
    const view = await groupChat(ctx);
    return (
      await asBot(
        () => createInvite(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id }),
        noRights("invite users"),
      )
    ).inviteLink;
  },
  async createChatInviteLink(ctx) {
    const view = await groupChat(ctx);
    const name = ctx.params.str("name", { max: 32 });
    if (ctx.params.bool("creates_join_request"))
      throw badRequest("join requests are not supported: groups have no approval queue");
    ctx.params.int("expire_date");
    ctx.params.int("member_limit", { min: 1, max: 99999 });
    const { inviteLink } = await asBot(
      () => createInvite(ctx.app, { conversationId: view.conversation.id, actorId: ctx.me.id }),
      noRights("invite users"),
    );
    return {
      invite_link: inviteLink,
      creator: serializeUser(ctx.me),
      creates_join_request: false,
      is_primary: true,
      is_revoked: false,
      name,
    };
  },

  /** A person's avatar as their one profile photo (PhotoSizes: thumbnail and original). */
  async getUserProfilePhotos(ctx) {
    const user = await userParam(ctx);
    const offset = ctx.params.int("offset", { min: 0 }) ?? 0;
    const limit = ctx.params.int("limit", { min: 1, max: 100 }) ?? 100;
    const avatar = user.avatar_url ? await findUploadByUrl(ctx.app, user.avatar_url) : undefined;
    if (!avatar) return { total_count: 0, photos: [] };
    const item = {
      type: "image" as const,
      url: avatar.url,
      mime: avatar.mime,
      sizeBytes: avatar.size_bytes,
      width: avatar.width ?? undefined,
      height: avatar.height ?? undefined,
      thumb: avatar.thumb_url,
    };
    return { total_count: 1, photos: offset === 0 && limit > 0 ? [photoSizes(item)] : [] };
  },

  async leaveChat(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    if (view.conversation.type !== "group") throw badRequest("chat not found");
    await leaveGroup(ctx.app, { conversationId: view.conversation.id, userId: ctx.me.id });
    return true;
  },
} satisfies MethodTable;
