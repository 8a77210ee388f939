import type { Db } from "../db";
import type { BotRow } from "../domain/bots/table";
import type { ConversationRow, MemberRow, MessageRow, SendChat } from "../domain/chats/table";
import { findMessagesBySeqs, rightsOf } from "../domain/chats/access";
import { findUsersByCuids, findUsersByIds } from "../domain/users/service";
import { allowsRevoting, pollOf, pollTallies, type PollTally, type StoredPoll } from "../domain/chats/polls";
import type { MediaItem } from "../domain/chats/validate";
import type { UserRow } from "../domain/users/table";
import { botApiUserId } from "../domain/bots/ids";
import { toUnixSeconds } from "../lib/clock";
import { detectEntities } from "./formatting";
import { THUMB_SIZE } from "../media/image";
import { parsePreviewState } from "../domain/links/preview";
import type { LinkPreviewOptions } from "./link-preview";

/**
 * Bot API shapes (snake_case). Rows are turned into what the compatible API returns; absent
 * fields are left undefined and dropped by the transport (never null).
 */

/** Drops null and undefined fields everywhere: the Bot API omits absent fields. */
export function omitAbsent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(omitAbsent);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    // for…in, not Object.entries: every Bot API answer passes here, and the entry arrays cost more than the copy
    for (const k in value) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== null && v !== undefined) out[k] = omitAbsent(v);
    }
    return out;
  }
  return value;
}

/** User as the Bot API shows it. */
export function serializeUser(user: UserRow) {
  return {
    id: botApiUserId(user.id),
    is_bot: user.is_bot === 1,
    first_name: user.display_name,
    username: user.username,
    // a person's chosen language (IETF tag, as the compatible API's); left out when they chose none
    language_code: user.is_bot === 1 ? undefined : (user.language ?? undefined),
  };
}

/** getMe: the bot itself, with its capabilities (every field the compatible API requires, see types.test.ts). */
export function serializeBotSelf(user: UserRow, bot: BotRow) {
  return {
    ...serializeUser(user),
    is_bot: true as const,
    can_join_groups: true,
    can_read_all_group_messages: bot.privacy === "all",
    supports_inline_queries: false,
    // no business accounts, main mini-apps, forum topics, managed bots or join requests here
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  };
}

/** A group's Bot API chat id is the negative conversation id. */
export const groupChatId = (conversationId: number): number => -conversationId;

/** Chat as seen by the bot: a private chat is described by the other party. */
export function serializeChat(conversation: SendChat, other: UserRow | null) {
  if (conversation.type === "group")
    return { id: groupChatId(conversation.id), type: "group" as const, title: conversation.title ?? "" };
  return {
    id: other ? botApiUserId(other.id) : 0,
    type: "private" as const,
    username: other?.username,
    first_name: other?.display_name ?? "Deleted account",
  };
}

/** ChatMember: status and user; administrators carry their rights as can_* flags. */
export function serializeChatMember(member: Pick<MemberRow, "role" | "rights">, user: UserRow) {
  const u = serializeUser(user);
  switch (member.role) {
    case "creator":
      return { status: "creator" as const, user: u, is_anonymous: false };
    case "administrator":
      return {
        status: "administrator" as const,
        user: u,
        can_be_edited: false,
        is_anonymous: false,
        ...rightsFlags(member),
      };
    case "kicked":
      // removed, with no ban list: "banned" until nobody (until_date 0 is "forever" in the compatible API)
      return { status: "kicked" as const, user: u, until_date: 0 };
    default:
      return { status: member.role, user: u };
  }
}

function rightsFlags(member: Pick<MemberRow, "role" | "rights">) {
  const rights = rightsOf(member);
  return {
    can_manage_chat: rights.can_manage_chat === true,
    can_delete_messages: rights.can_delete_messages === true,
    can_restrict_members: rights.can_restrict_members === true,
    can_invite_users: rights.can_invite_users === true,
    can_pin_messages: rights.can_pin_messages === true,
    can_promote_members: rights.can_promote_members === true,
    can_change_info: rights.can_change_info === true,
    // rights of things groups here do not have (video chats, stories, welcome messages)
    can_manage_video_chats: false,
    can_post_stories: false,
    can_edit_stories: false,
    can_delete_stories: false,
    can_send_welcome_messages: false,
  };
}

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const seconds = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms / 1000));

/** Dimensions of a picture scaled to fit inside MAX×MAX, never enlarged (how thumbnails and posters are made). */
function fitted(width: number | undefined, height: number | undefined, max: number): { width: number; height: number } {
  if (!width || !height) return { width: 0, height: 0 };
  const scale = Math.min(1, max / width, max / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

export interface PhotoSizeShape {
  file_id: string;
  file_unique_id: string;
  width: number;
  height: number;
  file_size?: number;
}

/** The stored thumbnail (images: THUMB_SIZE box) or poster frame (videos: 640 px wide) as a PhotoSize. */
export function thumbnailOf(item: MediaItem): PhotoSizeShape | undefined {
  const url = item.thumb ?? item.posterUrl;
  if (!url) return undefined;
  const size = item.thumb
    ? fitted(item.width, item.height, THUMB_SIZE)
    : fitted(item.width, item.height && item.width ? Math.round((item.height * 640) / item.width) : 0, 640);
  return { file_id: url, file_unique_id: url, ...size };
}

/**
 * PhotoSizes of a picture, smallest first, as the compatible API's size ladder: its thumbnail
 * and display renditions (those smaller than the original, each a file of its own) and the
 * original.
 */
export function photoSizes(item: MediaItem): PhotoSizeShape[] {
  const original: PhotoSizeShape = {
    file_id: item.url,
    file_unique_id: item.url,
    file_size: item.sizeBytes,
    width: item.width ?? 0,
    height: item.height ?? 0,
  };
  const smaller = (s: { width: number; height: number }) => s.width < original.width || s.height < original.height;
  const ladder: PhotoSizeShape[] = [];
  const thumb = thumbnailOf(item);
  if (thumb && smaller(thumb)) ladder.push(thumb);
  for (const r of item.renditions ?? []) {
    const last = ladder.at(-1);
    if (smaller(r) && (!last || r.width > last.width))
      ladder.push({ file_id: r.url, file_unique_id: r.url, file_size: r.size, width: r.width, height: r.height });
  }
  ladder.push(original);
  return ladder;
}

interface FileShape {
  file_id: string;
  file_unique_id: string;
  file_size?: number;
}
interface DocumentShape extends FileShape {
  file_name?: string;
  mime_type?: string;
  thumbnail?: PhotoSizeShape;
}
interface VideoShape extends DocumentShape {
  width: number;
  height: number;
  duration: number;
}

/** A stored entity as the Bot API shows it (stored entities were checked to be of these types). */
type EntityShape = { offset: number; length: number } & (
  | {
      type:
        | "mention"
        | "hashtag"
        | "cashtag"
        | "bot_command"
        | "url"
        | "email"
        | "phone_number"
        | "bold"
        | "italic"
        | "underline"
        | "strikethrough"
        | "spoiler"
        | "blockquote"
        | "expandable_blockquote"
        | "code";
    }
  | { type: "pre"; language?: string }
  | { type: "text_link"; url: string }
  | { type: "text_mention"; user: ReturnType<typeof serializeUser> }
  | { type: "custom_emoji"; custom_emoji_id: string }
);

/** An inline keyboard button as stored (parseReplyMarkup let through exactly one action). */
type InlineButtonShape = { text: string } & (
  | { callback_data: string }
  | { url: string }
  | { web_app: { url: string } }
  | { copy_text: { text: string } }
  | { switch_inline_query_current_chat: string }
  | { pay: boolean }
);

type MediaFields = {
  photo?: PhotoSizeShape[];
  animation?: VideoShape;
  document?: DocumentShape;
  audio?: DocumentShape & { duration: number; performer?: string; title?: string };
  video?: VideoShape;
  video_note?: FileShape & { length: number; duration: number };
  voice?: FileShape & { duration: number; mime_type?: string };
  sticker?: FileShape & {
    width: number;
    height: number;
    is_animated: boolean;
    is_video: boolean;
    type: "regular";
  };
};

type Origin =
  | { type: "user"; sender_user: ReturnType<typeof serializeUser>; date: number }
  | { type: "hidden_user"; sender_user_name: string; date: number };

/** A message's extra JSON, as the sending methods stored it. */
interface StoredExtra extends Record<string, unknown> {
  location?: BotMessage["location"];
  venue?: BotMessage["venue"];
  dice?: BotMessage["dice"];
  contact?: BotMessage["contact"];
  poll?: StoredPoll;
  media_group_id?: string;
  has_spoiler?: boolean;
}

/** Message as the Bot API shows it (types.test.ts holds it to the reference typings). */
export interface BotMessage extends MediaFields {
  message_id: number;
  date: number;
  chat: ReturnType<typeof serializeChat>;
  from?: ReturnType<typeof serializeUser>;
  edit_date?: number;
  text?: string;
  entities?: EntityShape[];
  caption?: string;
  caption_entities?: EntityShape[];
  has_media_spoiler?: true;
  media_group_id?: string;
  location?: { latitude: number; longitude: number };
  venue?: { location: { latitude: number; longitude: number }; title: string; address: string };
  dice?: { emoji: string; value: number };
  contact?: { phone_number: string; first_name: string; last_name?: string; vcard?: string };
  has_protected_content?: true;
  poll?: ReturnType<typeof serializePoll>;
  reply_markup?: { inline_keyboard: InlineButtonShape[][] };
  invoice?: { title: string; description: string; start_parameter: string; currency: string; total_amount: number };
  /** one level deep: the message replied to carries no reply_to_message of its own */
  reply_to_message?: Omit<BotMessage, "reply_to_message"> & { reply_to_message: undefined };
  forward_origin?: Origin;
  forward_from?: ReturnType<typeof serializeUser>;
  forward_date?: number;
  /** the options the bot gave for the message's link preview, answered back as the compatible API does */
  link_preview_options?: LinkPreviewOptions;
}

/** Bot API objects for one attachment, keyed by the Message field they go into. */
function mediaFields(item: MediaItem, extra: Record<string, unknown>): MediaFields {
  const file = { file_id: item.url, file_unique_id: item.url, file_size: item.sizeBytes };
  const thumbnail = thumbnailOf(item);
  switch (item.type) {
    case "image": {
      if (extra.animation) {
        const animation = {
          ...file,
          width: item.width ?? 0,
          height: item.height ?? 0,
          duration: 0,
          mime_type: item.mime,
          file_name: item.name,
        };
        return { animation, document: { ...file, file_name: item.name, mime_type: item.mime } };
      }
      return { photo: photoSizes(item) };
    }
    case "sticker":
      return {
        sticker: {
          ...file,
          width: item.width ?? 512,
          height: item.height ?? 512,
          is_animated: false,
          is_video: false,
          type: "regular" as const,
        },
      };
    case "voice":
      return { voice: { ...file, duration: seconds(item.durationMs) ?? 0, mime_type: item.mime } };
    case "video": {
      if (item.name === "circle")
        return { video_note: { ...file, length: item.width ?? 0, duration: seconds(item.durationMs) ?? 0 } };
      const video = {
        ...file,
        width: item.width ?? 0,
        height: item.height ?? 0,
        duration: seconds(item.durationMs) ?? 0,
        mime_type: item.mime,
        file_name: item.name,
        thumbnail,
      };
      if (extra.animation)
        return { animation: video, document: { ...file, file_name: item.name, mime_type: item.mime, thumbnail } };
      return { video };
    }
    case "file": {
      const document = { ...file, file_name: item.name, mime_type: item.mime, thumbnail };
      if (extra.audio) {
        // sendAudio's performer, title and duration (when the server could not measure it)
        const given =
          typeof extra.audio === "object"
            ? (extra.audio as {
                performer?: string;
                title?: string;
                duration?: number;
                thumbnail?: { url: string; width?: number; height?: number; sizeBytes?: number };
              })
            : {};
        const cover = given.thumbnail;
        const audio = {
          ...document,
          thumbnail: cover
            ? {
                file_id: cover.url,
                file_unique_id: cover.url,
                width: cover.width ?? 0,
                height: cover.height ?? 0,
                file_size: cover.sizeBytes,
              }
            : document.thumbnail,
          duration: seconds(item.durationMs) ?? given.duration ?? 0,
          performer: given.performer,
          title: given.title,
        };
        return { audio, document };
      }
      return { document };
    }
  }
}

/** An option's persistent_id: options are never added or removed here, so its position is stable. */
export const optionPersistentId = (index: number): string => String(index);

/** Poll: the poll as the bot sent it, with the counts of the stored votes. */
export function serializePoll(poll: StoredPoll, tally: PollTally | undefined) {
  // entities were checked by sendPoll's formatting before they were stored
  const entities = (list: unknown[] | undefined) => list as EntityShape[] | undefined;
  return {
    ...poll,
    question_entities: entities(poll.question_entities),
    explanation_entities: entities(poll.explanation_entities),
    options: poll.options.map((o, i) => ({
      persistent_id: optionPersistentId(i),
      text: o.text,
      text_entities: entities(o.text_entities),
      voter_count: tally?.counts[i] ?? 0,
    })),
    total_voter_count: tally?.voters ?? 0,
    allows_revoting: allowsRevoting(poll),
    // no membership age is kept: any member may vote
    members_only: false,
    correct_option_ids: poll.correct_option_id === undefined ? undefined : [poll.correct_option_id],
  };
}

/** Context needed to serialize messages of one chat for a bot. */
export interface ChatView {
  conversation: SendChat;
  /** the other party of a private chat (from the bot's side) */
  other: UserRow | null;
  /** the bot's own account, when at hand (saves loading it again as an author) */
  self?: UserRow;
}

/** The authors of a set of messages; those the view already holds are not loaded again. */
async function usersFor(db: Db, view: ChatView, ids: number[]): Promise<Map<number, UserRow>> {
  const known = new Map<number, UserRow>();
  for (const u of [view.other, view.self]) if (u) known.set(u.id, u);
  const missing = [...new Set(ids)].filter((id) => !known.has(id));
  if (missing.length === 0) return known;
  for (const u of await findUsersByIds(db, missing)) known.set(u.id, u);
  return known;
}

/** What a message's shape may need read besides its row: the messages replied to, forwarded authors, poll counts. */
interface MessageLookups {
  replies: Map<number, NonNullable<BotMessage["reply_to_message"]>>;
  forwardedAuthors: Map<string, UserRow>;
  tallies: Map<number, PollTally>;
}

const NOTHING_LOOKED_UP: MessageLookups = { replies: new Map(), forwardedAuthors: new Map(), tallies: new Map() };

/** Message objects for a bot, with reply_to_message one level deep. */
export async function serializeMessages(db: Db, view: ChatView, rows: MessageRow[], depth = 0): Promise<BotMessage[]> {
  if (rows.length === 0) return [];
  const users = await usersFor(
    db,
    view,
    rows.map((r) => r.sender_id),
  );
  const chat = serializeChat(view.conversation, view.other);
  const replySeqs =
    depth === 0 ? [...new Set(rows.flatMap((r) => (r.reply_to_seq === null ? [] : [r.reply_to_seq])))] : [];
  const replies = await findMessagesBySeqs(db, view.conversation.id, replySeqs);
  const replyObjects = new Map<number, NonNullable<BotMessage["reply_to_message"]>>();
  const serializedReplies = await serializeMessages(db, view, replies, depth + 1);
  replies.forEach((r, i) => replyObjects.set(r.seq, { ...serializedReplies[i]!, reply_to_message: undefined }));
  const forwardCuids = rows.flatMap((r) => {
    const f = json<{ sender?: { id?: string } }>(r.forwarded_from);
    return f?.sender?.id ? [f.sender.id] : [];
  });
  const forwardUsers = await findUsersByCuids(db, forwardCuids);
  const lookups: MessageLookups = {
    replies: replyObjects,
    forwardedAuthors: new Map(forwardUsers.map((u) => [u.cuid, u])),
    tallies: await pollTallies(db, rows),
  };
  return rows.map((m) => messageShape(m, users.get(m.sender_id), chat, lookups));
}

/**
 * ROW as serializeMessages shapes it, at once (no statement, no promise) when nothing about it
 * must be read: its author is the view's bot or other party, and it replies to nothing, is no
 * forward and holds no poll (a message a bot has just sent, mostly); undefined otherwise.
 */
export function messageShapeNow(view: ChatView, row: MessageRow): BotMessage | undefined {
  if (row.reply_to_seq !== null || row.forwarded_from !== null || pollOf(row)) return undefined;
  const author =
    row.sender_id === view.self?.id ? view.self : row.sender_id === view.other?.id ? view.other : undefined;
  if (!author) return undefined;
  return messageShape(row, author, serializeChat(view.conversation, view.other), NOTHING_LOOKED_UP);
}

/** One message's shape, from its row, its author (when live) and what was read for it. */
function messageShape(
  m: MessageRow,
  author: UserRow | undefined,
  chat: ReturnType<typeof serializeChat>,
  lookups: MessageLookups,
): BotMessage {
  const out: BotMessage = {
    message_id: m.seq,
    from: author ? serializeUser(author) : undefined,
    date: toUnixSeconds(m.created_at),
    chat,
  };
  if (m.edited_at !== null) out.edit_date = toUnixSeconds(m.edited_at);
  const extra = json<StoredExtra>(m.extra) ?? {};
  const media = json<MediaItem[]>(m.media) ?? [];
  // people's messages carry no markup of their own: commands, mentions and links are detected
  const entities = (json<EntityShape[]>(m.entities) ?? (m.content ? detectEntities(m.content) : [])) as EntityShape[];
  for (const item of media.slice(0, 1)) Object.assign(out, mediaFields(item, extra));
  const hasAttachment = media.length > 0;
  if (hasAttachment) {
    if (m.content) out.caption = m.content;
    if (entities.length) out.caption_entities = entities;
    if (extra.has_spoiler) out.has_media_spoiler = true;
  } else if (m.content) {
    out.text = m.content;
    if (entities.length) out.entities = entities;
    if (m.link_preview !== null) {
      const options = parsePreviewState(m.link_preview)?.options;
      if (options) out.link_preview_options = options as LinkPreviewOptions;
    }
  }
  if (typeof extra.media_group_id === "string") out.media_group_id = extra.media_group_id;
  if (extra.location) out.location = extra.location;
  if (extra.venue) out.venue = extra.venue;
  if (extra.contact) out.contact = extra.contact;
  if (extra.protect_content === true) out.has_protected_content = true;
  if (extra.dice) out.dice = extra.dice;
  if (extra.poll) out.poll = serializePoll(extra.poll, lookups.tallies.get(m.id));
  const markup = json<{ inline_keyboard?: InlineButtonShape[][] }>(m.reply_markup);
  if (markup && Array.isArray(markup.inline_keyboard)) out.reply_markup = { inline_keyboard: markup.inline_keyboard };
  const invoice = json<{ title?: string; description?: string; currency?: string; totalAmount?: number }>(m.invoice);
  if (invoice?.title !== undefined) {
    out.invoice = {
      title: invoice.title,
      description: invoice.description ?? "",
      start_parameter: "",
      currency: invoice.currency ?? "XTR",
      total_amount: invoice.totalAmount ?? 0,
    };
  }
  if (m.reply_to_seq !== null && lookups.replies.has(m.reply_to_seq))
    out.reply_to_message = lookups.replies.get(m.reply_to_seq);
  const forwarded = json<{ sender?: { id?: string }; date?: string }>(m.forwarded_from);
  if (forwarded) {
    const origin = forwarded.sender?.id ? lookups.forwardedAuthors.get(forwarded.sender.id) : undefined;
    const date = forwarded.date ? toUnixSeconds(Date.parse(forwarded.date)) : toUnixSeconds(m.created_at);
    if (origin) {
      out.forward_origin = { type: "user", sender_user: serializeUser(origin), date };
      out.forward_from = serializeUser(origin);
    } else {
      out.forward_origin = { type: "hidden_user", sender_user_name: "Deleted account", date };
    }
    out.forward_date = date;
  }
  return out;
}

export async function serializeMessage(db: Db, view: ChatView, row: MessageRow): Promise<BotMessage> {
  return (await serializeMessages(db, view, [row]))[0]!;
}
