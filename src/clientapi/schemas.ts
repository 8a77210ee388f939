import { t, type Static, type TSchema } from "elysia";
import type { serializeAccount, serializePublicUser } from "./serializers/account";
import type { serializeProfile } from "./people/serialize";
import type { serializeComment } from "./posts/serialize";
import type { serializeStory } from "./stories/serialize";
import type { serializeUpload } from "./uploads/serialize";
import type { serializeNotification } from "./notifications/serialize";
import { NullableString, NullableTime, PageInfo, Resource, Time } from "./docs";

/*
 * The resources of Client API responses, for /api/openapi.json. The serializers stay the code that
 * makes them; the type checks at the end of this file make tsc fail when a serializer stops
 * sending a field listed here or changes its type.
 */

export const PublicUser = Resource({
  id: t.String(),
  username: t.String(),
  displayName: NullableString,
  avatarUrl: NullableString,
  isBot: t.Boolean(),
});

/** A person in a followers or following list. */
export const FollowUser = Resource({ ...PublicUser.properties, bio: NullableString, isFollowing: t.Boolean() });

export const Profile = Resource(
  {
    ...PublicUser.properties,
    bio: NullableString,
    coverUrl: NullableString,
    coverVideoUrl: NullableString,
    followersCount: t.Integer(),
    followingCount: t.Integer(),
    postsCount: t.Integer(),
    isFollowing: t.Boolean(),
    followsYou: t.Boolean(),
    isBlocked: t.Boolean(),
    isMuted: t.Boolean(),
    createdAt: Time,
  },
  "a person's profile as the viewer sees it",
);

export const Account = Resource(
  {
    id: t.String(),
    username: t.String(),
    email: NullableString,
    displayName: NullableString,
    bio: NullableString,
    avatarUrl: NullableString,
    coverUrl: NullableString,
    coverVideoUrl: NullableString,
    isBot: t.Boolean(),
    isAdmin: t.Boolean(),
    emailVerified: t.Boolean(),
    twoFactorMethod: t.String({ description: "none, totp, email or messenger" }),
    language: t.Union([t.String(), t.Null()], {
      description:
        "the language the server writes to the person in (mails, pushes, notices), such as en or ru; null: the instance's default (English)",
    }),
    createdAt: Time,
  },
  "the signed-in account",
);

/** A display copy of an image, for `srcset` (w descriptors: its width). */
const Rendition = Resource(
  { url: t.String(), width: t.Integer(), height: t.Integer() },
  "a smaller WebP copy of an image made for display",
);
const Renditions = t.Optional(
  t.Array(Rendition, {
    description:
      "display copies of an image (WebP, never larger than the original), smallest first: offer them in srcset and keep url (the original) for when the reader asks for it; absent for other media",
  }),
);
const Alt = t.Optional(
  t.String({
    description:
      "the image's description (alt text, up to 1,500 characters) as its author gave it; absent when none was given. Given on a post as imageAlts (by the index of imageUrls), on a comment or message as each attachment's alt",
  }),
);

const PostImage = Resource({
  url: t.String(),
  kind: t.String(),
  mime: NullableString,
  width: t.Union([t.Integer(), t.Null()]),
  height: t.Union([t.Integer(), t.Null()]),
  thumbUrl: NullableString,
  posterUrl: NullableString,
  renditions: Renditions,
  alt: Alt,
});

const Poll = Resource({
  id: t.String(),
  question: NullableString,
  multiple: t.Boolean(),
  options: t.Array(Resource({ id: t.String(), index: t.Integer(), text: t.String(), votes: t.Integer() })),
  totalVoters: t.Integer(),
  myVotes: t.Array(t.Integer()),
  voted: t.Boolean(),
});

export const LinkPreview = Resource(
  {
    url: t.String({ description: "the link the preview is for" }),
    title: NullableString,
    description: NullableString,
    imageUrl: t.Union([t.String(), t.Null()], {
      description: "the page's image as the page names it (on another site: load it only if you accept that)",
    }),
    siteName: NullableString,
  },
  "what the page of a post's or message's first link says of itself (OpenGraph, Twitter card, title and description tags), read by the server",
);

const PostFields = {
  id: t.String(),
  content: t.String({ description: "at most 2000 characters" }),
  contentWarning: t.Union([t.String(), t.Null()], {
    description:
      "a content warning (up to 200 characters) to show instead of the text and images until asked; null for none",
  }),
  author: PublicUser,
  images: t.Array(PostImage),
  linkPreview: t.Union([LinkPreview, t.Null()], {
    description:
      "the preview of the text's first link: null while the server reads the page, when the author removed it, or when the page gave nothing to show",
  }),
  poll: t.Union([Poll, t.Null()]),
  likeCount: t.Integer(),
  commentCount: t.Integer(),
  repostCount: t.Integer(),
  liked: t.Boolean(),
  bookmarked: t.Boolean(),
  reposted: t.Boolean(),
  isRepost: t.Boolean(),
  clientPostId: t.Optional(NullableString),
  createdAt: Time,
  editedAt: NullableTime,
};
export const Post = Resource(
  { ...PostFields, repostOf: t.Union([Resource(PostFields), t.Null()], { description: "the reposted post" }) },
  "a post as the viewer sees it",
);

export const Comment = Resource({
  id: t.String(),
  postId: t.String(),
  replyToId: NullableString,
  content: t.String(),
  contentWarning: t.Union([t.String(), t.Null()], {
    description:
      "a content warning (up to 200 characters) to show instead of the text and media until asked; null for none",
  }),
  media: t.Array(
    Resource({
      type: t.String({ description: "image, video or voice" }),
      url: t.String(),
      renditions: Renditions,
      alt: Alt,
    }),
  ),
  author: PublicUser,
  likeCount: t.Integer(),
  replyCount: t.Integer(),
  liked: t.Boolean(),
  createdAt: Time,
});

export const MessageMedia = Resource({
  type: t.String({ description: "image, video, voice, file or sticker" }),
  url: t.String(),
  renditions: Renditions,
  alt: Alt,
});

export const ChatPoll = Resource(
  {
    id: t.String(),
    question: t.String(),
    options: t.Array(Resource({ index: t.Integer(), text: t.String(), voterCount: t.Integer() })),
    totalVoterCount: t.Integer(),
    isClosed: t.Boolean(),
    isAnonymous: t.Boolean(),
    type: t.Union([t.Literal("regular"), t.Literal("quiz")]),
    allowsMultipleAnswers: t.Boolean(),
    allowsRevoting: t.Boolean(),
    correctOptionId: t.Union([t.Integer(), t.Null()], {
      description: "a quiz's correct option, once the viewer answered or the poll closed",
    }),
    explanation: NullableString,
    myVotes: t.Optional(
      t.Array(t.Integer(), { description: "the viewer's options: in history and vote answers, not in live events" }),
    ),
  },
  "a bot's poll in a chat, with the counts of the votes",
);

export const Message = Resource(
  {
    id: t.String(),
    messageId: t.Integer({ description: "the message's number in its chat (the Bot API's message_id)" }),
    conversationId: t.String(),
    kind: t.String(),
    content: t.String(),
    entities: t.Array(t.Unknown()),
    media: t.Array(MessageMedia),
    replyMarkup: t.Unknown({ description: "inline keyboard {inline_keyboard: [[button]]}, or null" }),
    invoice: t.Unknown({ description: "an invoice to pay in stars, or null" }),
    sender: Resource({ id: NullableString, username: t.String(), isBot: t.Boolean(), isSystem: t.Boolean() }),
    replyToId: NullableString,
    reactions: t.Array(t.Unknown()),
    pinned: t.Boolean(),
    clientMessageId: NullableString,
    createdAt: Time,
    editedAt: NullableTime,
    poll: t.Optional(ChatPoll),
    linkPreview: t.Optional(
      Resource(LinkPreview.properties, "the preview of the text's first link, once the server has read the page"),
    ),
  },
  "a chat message",
);

export const Conversation = Resource({
  id: t.String(),
  conversationId: t.String(),
  type: t.String({ description: "private or group" }),
  title: NullableString,
  description: NullableString,
  photoUrl: NullableString,
  otherUser: t.Union([PublicUser, t.Null()]),
  memberCount: t.Integer(),
  myRole: NullableString,
  lastReadMessageId: t.Integer(),
  createdAt: Time,
  lastMessageAt: NullableTime,
});

export const ChatListItem = Resource({
  ...Conversation.properties,
  lastMessage: t.Union([Message, t.Null()]),
  unreadCount: t.Integer(),
});

export const Member = Resource({ user: PublicUser, role: t.String(), rights: t.Unknown(), joinedAt: Time });

export const Story = Resource({
  id: t.String(),
  author: PublicUser,
  mediaUrl: t.String(),
  mediaType: t.Union([t.Literal("image"), t.Literal("video"), t.Literal("voice")]),
  thumbUrl: NullableString,
  width: t.Optional(t.Union([t.Integer(), t.Null()], { description: "an image story's width in pixels" })),
  height: t.Optional(t.Union([t.Integer(), t.Null()], { description: "an image story's height in pixels" })),
  renditions: Renditions,
  caption: NullableString,
  createdAt: Time,
  expiresAt: Time,
  seen: t.Boolean(),
  viewsCount: t.Optional(t.Integer({ description: "to the author only" })),
});

export const Notification = Resource({
  /** the group's id (mark read takes it) */
  id: t.String(),
  type: t.String(),
  /** the latest of the group's actors */
  actor: PublicUser,
  /** the group's latest actors, newest first (a few) */
  actors: t.Array(PublicUser),
  /** how many people the group counts ("12 people liked your post") */
  count: t.Integer(),
  postId: NullableString,
  commentId: NullableString,
  /** a "report" notification: the reporter's report, now resolved (GET /api/social/reports) */
  reportId: NullableString,
  read: t.Boolean(),
  /** the time of the group's latest event */
  createdAt: Time,
});

export const Upload = Resource({
  id: t.String(),
  url: t.String(),
  thumb: NullableString,
  posterUrl: NullableString,
  renditions: t.Array(Rendition, {
    description:
      "display copies of an image (WebP, never larger than the original), smallest first; empty for other files",
  }),
  kind: t.String(),
  mime: t.String(),
  sizeBytes: t.Integer(),
  width: t.Union([t.Integer(), t.Null()]),
  height: t.Union([t.Integer(), t.Null()]),
  durationMs: t.Union([t.Integer(), t.Null()]),
  name: NullableString,
  createdAt: Time,
});

export const Session = Resource({
  id: t.String(),
  userAgent: NullableString,
  ip: NullableString,
  createdAt: Time,
  lastSeenAt: Time,
  current: t.Boolean(),
});

export const OwnedBot = Resource(
  {
    id: t.String(),
    username: t.String(),
    name: NullableString,
    enabled: t.Boolean(),
    blocked: t.Boolean(),
    privacy: t.String({ description: "all or commands" }),
    description: NullableString,
    shortDescription: NullableString,
    commands: t.Array(Resource({ command: t.String(), description: t.String() })),
    webhookUrl: NullableString,
    startLink: t.String(),
    createdAt: Time,
  },
  "a bot as its owner sees it",
);

/** `{KEY: [ITEM], pageInfo}`: one page of a cursor-paged list. */
export const Page = <K extends string, S extends Parameters<typeof t.Array>[0]>(key: K, item: S) =>
  t.Object({ [key]: t.Array(item), pageInfo: PageInfo } as { [P in K]: ReturnType<typeof t.Array<S>> } & {
    pageInfo: typeof PageInfo;
  });

// a serializer that drops or retypes a documented field fails the type check here
type Serializes<F extends (...args: never[]) => unknown, S extends TSchema> =
  ReturnType<F> extends Static<S> ? true : never;
export const serializersMatchSchemas: [
  Serializes<typeof serializeAccount, typeof Account>,
  Serializes<typeof serializePublicUser, typeof PublicUser>,
  Serializes<typeof serializeProfile, typeof Profile>,
  Serializes<typeof serializeComment, typeof Comment>,
  Serializes<typeof serializeStory, typeof Story>,
  Serializes<typeof serializeUpload, typeof Upload>,
  Serializes<typeof serializeNotification, typeof Notification>,
] = [true, true, true, true, true, true, true];
