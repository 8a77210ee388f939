import { t } from "elysia";
import { NOTIFICATION_TYPES } from "../domain/notifications/table";
import { LANGUAGES } from "../locales/languages";
import { NullableInteger, NullableString, NullableTime, Resource, Time } from "./schema";

/*
 * The resources of Client API responses: /api/openapi.json documents the answers with them and
 * the web app derives its types from them (src/web/lib/types.ts, type imports only, so nothing
 * of this reaches the browser bundle). The serializers stay the code that makes them; the type
 * checks in src/clientapi/schemas.ts make tsc fail when a serializer stops sending a field listed
 * here or changes its type, and src/clientapi/openapi.test.ts checks real answers against them.
 */

export const PublicUser = Resource({
  id: t.String(),
  username: t.String(),
  displayName: t.String(),
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

export const TwoFactorMethod = t.UnionEnum(["none", "totp", "email", "messenger"]);

export const Account = Resource(
  {
    id: t.String(),
    username: t.String(),
    email: NullableString,
    displayName: t.String(),
    bio: NullableString,
    avatarUrl: NullableString,
    coverUrl: NullableString,
    coverVideoUrl: NullableString,
    isBot: t.Boolean(),
    isAdmin: t.Boolean(),
    emailVerified: t.Boolean(),
    twoFactorMethod: TwoFactorMethod,
    language: t.Union([t.String(), t.Null()], {
      description:
        "the language the server writes to the person in (mails, pushes, notices), such as en or ru; null: the instance's default (English)",
    }),
    createdAt: Time,
  },
  "the signed-in account",
);

/** A display copy of an image, for `srcset` (w descriptors: its width). */
export const Rendition = Resource(
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

export const PostImage = Resource({
  url: t.String(),
  kind: t.String(),
  mime: NullableString,
  width: NullableInteger,
  height: NullableInteger,
  thumbUrl: NullableString,
  posterUrl: NullableString,
  renditions: Renditions,
  alt: Alt,
});

export const Poll = Resource({
  id: t.String(),
  question: NullableString,
  multiple: t.Boolean(),
  options: t.Array(Resource({ id: t.String(), index: t.Integer(), text: t.String(), votes: t.Integer() })),
  totalVoters: t.Integer(),
  myVotes: t.Array(t.String(), { description: "the ids of the options the viewer voted for" }),
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
  {
    ...PostFields,
    repostOf: t.Union(
      [
        Resource({ ...PostFields, repostOf: t.Null({ description: "an original is never itself a repost" }) }),
        t.Null(),
      ],
      { description: "the reposted post" },
    ),
  },
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
      type: t.UnionEnum(["image", "video", "voice"]),
      url: t.String(),
      mime: NullableString,
      width: NullableInteger,
      height: NullableInteger,
      durationMs: NullableInteger,
      thumbUrl: NullableString,
      posterUrl: NullableString,
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

/** A formatting entity of a message's text, as the Bot API names it. */
export const MessageEntity = Resource({
  type: t.String({ description: "bold, italic, code, pre, text_link, mention, … (the Bot API's MessageEntity types)" }),
  offset: t.Integer({ description: "in UTF-16 code units" }),
  length: t.Integer(),
  url: t.Optional(t.String()),
  language: t.Optional(t.String()),
  user: t.Optional(Resource({ id: t.Integer(), username: t.Optional(t.String()) })),
});

/** A button of an inline keyboard, with the Bot API's field names. */
export const InlineButton = Resource({
  text: t.String(),
  callback_data: t.Optional(t.String()),
  url: t.Optional(t.String()),
  web_app: t.Optional(Resource({ url: t.String() })),
  copy_text: t.Optional(Resource({ text: t.String() })),
  switch_inline_query_current_chat: t.Optional(t.String()),
  pay: t.Optional(t.Boolean()),
});

export const ReplyButton = Resource({ text: t.String() });

/** A message's reply_markup as the bot sent it (Bot API field names). */
export const ReplyMarkup = Resource(
  {
    inline_keyboard: t.Optional(t.Array(t.Array(InlineButton))),
    keyboard: t.Optional(t.Array(t.Array(t.Union([ReplyButton, t.String()])))),
    resize_keyboard: t.Optional(t.Boolean()),
    one_time_keyboard: t.Optional(t.Boolean()),
    input_field_placeholder: t.Optional(t.String()),
    is_persistent: t.Optional(t.Boolean()),
    remove_keyboard: t.Optional(t.Boolean()),
    force_reply: t.Optional(t.Boolean()),
  },
  "the bot's keyboard: inline buttons under the message, or reply buttons that replace the input",
);

export const MessageMedia = Resource({
  type: t.String({ description: "image, video, voice, file or sticker" }),
  url: t.String(),
  name: t.Optional(NullableString),
  durationMs: t.Optional(NullableInteger),
  waveform: t.Optional(t.Union([t.Array(t.Integer()), t.Null()])),
  width: t.Optional(NullableInteger),
  height: t.Optional(NullableInteger),
  thumb: t.Optional(NullableString),
  thumbUrl: t.Optional(NullableString),
  posterUrl: t.Optional(NullableString),
  sizeBytes: t.Optional(NullableInteger),
  mime: t.Optional(NullableString),
  renditions: Renditions,
  alt: Alt,
});

export const Invoice = Resource(
  {
    title: t.String(),
    description: t.String(),
    currency: t.String(),
    totalAmount: t.Integer(),
    prices: t.Optional(t.Array(Resource({ label: t.String(), amount: t.Integer() }))),
    status: t.String({ description: "open, paid or refunded" }),
  },
  "an invoice to pay in stars",
);

export const Reaction = Resource({ emoji: t.String(), count: t.Integer(), userIds: t.Array(t.String()) });

export const ChatPoll = Resource(
  {
    id: t.String(),
    question: t.String(),
    options: t.Array(Resource({ index: t.Integer(), text: t.String(), voterCount: t.Integer() })),
    totalVoterCount: t.Integer(),
    isClosed: t.Boolean(),
    isAnonymous: t.Boolean(),
    type: t.UnionEnum(["regular", "quiz"]),
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

const Location = Resource({ latitude: t.Number(), longitude: t.Number() });

export const Message = Resource(
  {
    id: t.String(),
    messageId: t.Integer({ description: "the message's number in its chat (the Bot API's message_id)" }),
    conversationId: t.String(),
    kind: t.UnionEnum(["user", "system"]),
    content: t.String(),
    entities: t.Array(MessageEntity),
    media: t.Array(MessageMedia),
    replyMarkup: t.Union([ReplyMarkup, t.Null()]),
    invoice: t.Union([Invoice, t.Null()]),
    system: t.Union([Resource({ action: t.Optional(t.String()) }), t.Null()], {
      description: "a system message's event (a member joined, the title changed, …)",
    }),
    sender: Resource({
      id: NullableString,
      username: t.String(),
      displayName: t.String(),
      avatarUrl: NullableString,
      isBot: t.Boolean(),
      isSystem: t.Boolean(),
    }),
    replyToId: NullableString,
    replyTo: t.Union([
      Resource({
        id: t.String(),
        messageId: t.Integer(),
        content: t.String({ description: "the start of its text" }),
        sender: Resource({ username: t.String() }),
      }),
      t.Null(),
    ]),
    forwardedFrom: t.Union([
      Resource({ username: t.Optional(t.String()), displayName: t.Optional(t.String()) }),
      t.Null(),
    ]),
    reactions: t.Array(Reaction),
    pinned: t.Boolean(),
    clientMessageId: NullableString,
    createdAt: Time,
    editedAt: NullableTime,
    caption: t.Optional(t.String()),
    location: t.Optional(Location),
    venue: t.Optional(
      Resource({
        location: t.Optional(Location),
        latitude: t.Optional(t.Number()),
        longitude: t.Optional(t.Number()),
        title: t.String(),
        address: t.String(),
      }),
    ),
    dice: t.Optional(Resource({ emoji: t.String(), value: t.Integer() })),
    contact: t.Optional(
      Resource({ phone_number: t.String(), first_name: t.String(), last_name: t.Optional(t.String()) }),
    ),
    poll: t.Optional(ChatPoll),
    linkPreview: t.Optional(
      Resource(LinkPreview.properties, "the preview of the text's first link, once the server has read the page"),
    ),
    protectedContent: t.Optional(
      t.Literal(true, {
        description: "its sender (a bot's protect_content) forbids forwarding, copying and saving it",
      }),
    ),
  },
  "a chat message",
);

export const Conversation = Resource({
  id: t.String(),
  conversationId: t.String(),
  type: t.UnionEnum(["private", "group"]),
  title: NullableString,
  description: NullableString,
  photoUrl: NullableString,
  otherUser: t.Union([PublicUser, t.Null()]),
  memberCount: t.Integer(),
  myRole: NullableString,
  myRights: t.Record(t.String(), t.Boolean(), { description: "what the viewer may do in a group" }),
  lastReadMessageId: t.Integer(),
  othersReadMessageId: t.Optional(
    t.Integer({
      description: "the furthest another member has read (the opened chat only; the chat list leaves it out)",
    }),
  ),
  createdAt: Time,
  lastMessageAt: NullableTime,
});

export const ChatListItem = Resource({
  ...Conversation.properties,
  lastMessage: t.Union([Message, t.Null()]),
  unreadCount: t.Integer(),
});

/** A hashtag found, with how many posts use it. */
export const Hashtag = Resource({ tag: t.String(), postCount: t.Integer() });

/** What a search finds: with `type`, one list and its cursor; without, the first page of each and a cursor per list. */
export const SearchAnswer = t.Object({
  query: t.String(),
  type: t.String(),
  users: t.Array(PublicUser),
  posts: t.Array(Post),
  hashtags: t.Array(Hashtag),
  messages: t.Array(Message),
  chats: t.Array(Conversation, { description: "the chats of the messages found" }),
  nextCursor: NullableString,
  cursors: t.Record(t.String(), NullableString),
});

export const Member = Resource({
  user: PublicUser,
  role: t.UnionEnum(["creator", "administrator", "member"]),
  rights: t.Record(t.String(), t.Boolean()),
  joinedAt: Time,
});

/** The group an invite code opens, shown before joining it. */
export const GroupInvite = t.Object({
  group: t.Object({
    title: t.String(),
    description: NullableString,
    photoUrl: NullableString,
    memberCount: t.Integer(),
  }),
  isMember: t.Boolean(),
});

/** A bot's answer to a pressed inline button (answerCallbackQuery), or null when it did not answer in time. */
export const CallbackAnswer = t.Union([
  Resource({ text: NullableString, showAlert: t.Boolean(), url: NullableString }),
  t.Null(),
]);

/** An invoice a bot made as a link (createInvoiceLink), to pay in stars. */
export const LinkInvoice = Resource({
  title: t.String(),
  description: t.String(),
  currency: t.Literal("XTR"),
  totalAmount: t.Integer(),
  prices: t.Array(t.Object({ label: t.String(), amount: t.Integer() })),
});

/** An invoice link: the invoice and the bot that takes the payment. */
export const InvoiceLink = t.Object({ invoice: LinkInvoice, bot: PublicUser });

/** What a bot set with setChatMenuButton; a web_app one is a button beside the input. */
export const MenuButton = t.Union([
  Resource({ type: t.Literal("commands") }),
  Resource({ type: t.Literal("default") }),
  Resource({ type: t.Literal("web_app"), text: t.String(), web_app: Resource({ url: t.String() }) }),
]);

export const BotCommand = Resource({ command: t.String(), description: t.String() });

export const BotCard = Resource(
  {
    ...PublicUser.properties,
    description: NullableString,
    shortDescription: NullableString,
    commands: t.Array(BotCommand),
    enabled: t.Boolean(),
    menuButton: MenuButton,
  },
  "a bot's public card",
);

export const Story = Resource({
  id: t.String(),
  author: PublicUser,
  mediaUrl: t.String(),
  mediaType: t.UnionEnum(["image", "video", "voice"]),
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

/** Who saw a story, and when (to its author). */
export const StoryViewer = Resource({ user: PublicUser, viewedAt: Time });

/** One followed account's stories of the last day. */
export const StoryGroup = Resource({
  author: PublicUser,
  stories: t.Array(Story),
  hasUnseen: t.Boolean(),
  latestAt: Time,
});

export const Notification = Resource(
  {
    id: t.String({ description: "the group's id (mark read takes it)" }),
    type: t.UnionEnum(NOTIFICATION_TYPES),
    actor: Resource(PublicUser.properties, "the latest of the group's people"),
    actors: t.Array(PublicUser, { description: "the group's latest people, newest first (a few)" }),
    count: t.Integer({ description: 'how many people the group counts ("12 people liked your post")' }),
    postId: NullableString,
    commentId: NullableString,
    reportId: t.Union([t.String(), t.Null()], {
      description: 'a "report" notification: the person\'s report, now resolved (GET /api/social/reports)',
    }),
    read: t.Boolean(),
    createdAt: t.String({ format: "date-time", description: "the time of the group's latest event" }),
  },
  "a notification group: likes, reposts and poll votes of one post, or follows, gathered while unread; other kinds are a group of one",
);

/** unreadCount: unread groups; unseenCount: those with an event since the list was last opened (the badge). */
export const NotificationCounts = t.Object({
  unreadCount: t.Integer({ description: "unread groups" }),
  unseenCount: t.Integer({ description: "groups with an event since the list was last opened (the badge)" }),
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
  width: NullableInteger,
  height: NullableInteger,
  durationMs: NullableInteger,
  name: NullableString,
  createdAt: Time,
});

/** A movement of stars on the person's balance. */
export const StarTransaction = Resource({
  id: t.String(),
  kind: t.UnionEnum(["grant", "payment", "refund", "hold_release", "withdrawal", "gift"]),
  amount: t.Integer({ description: "negative when stars left the balance" }),
  balanceAfter: t.Integer(),
  reference: NullableString,
  note: NullableString,
  counterparty: t.Union([
    Resource({ id: t.String(), username: NullableString, displayName: NullableString, isBot: t.Boolean() }),
    t.Null(),
  ]),
  createdAt: Time,
});

/** A browser that gets pushes for the person. */
export const PushDevice = Resource({
  id: t.String(),
  userAgent: t.String({ description: "the subscribing browser's User-Agent (the app names the device from it)" }),
  createdAt: Time,
  lastUsedAt: NullableTime,
  current: t.Boolean({ description: "made by this session (this browser)" }),
});

export const PushSettings = t.Object({
  messages: t.Boolean(),
  mentions: t.Boolean(),
  replies: t.Boolean(),
  follows: t.Boolean(),
  reactions: t.Boolean(),
  payments: t.Boolean(),
});
export const EmailSettings = t.Object({ digest: t.Boolean() });
/** Which kinds of push the person gets, and whether a digest is mailed when away. */
export const NotificationSettings = t.Object({ push: PushSettings, email: EmailSettings });

export const Session = Resource({
  id: t.String(),
  userAgent: NullableString,
  ip: NullableString,
  createdAt: Time,
  lastSeenAt: Time,
  current: t.Boolean(),
});

/** One entry of a bot's developer log: a call it made, or an update it was given. */
export const BotLogEntry = Resource({
  id: t.Integer({ description: "pass as ?after= (or Last-Event-ID) to continue" }),
  at: Time,
  kind: t.UnionEnum(["call", "update"]),
  method: t.String({ description: "call: the method; update: getUpdates or webhook" }),
  params: t.Optional(t.Record(t.String(), t.Unknown(), { description: "files elided, long values cut" })),
  ok: t.Boolean(),
  result: t.Optional(t.Unknown()),
  error: t.Optional(t.Object({ code: t.Integer(), description: t.String() })),
  ms: t.Optional(t.Number({ description: "latency" })),
  update: t.Optional(t.Object({ updateId: t.Integer(), type: t.String() })),
});

/** A bot's income from payments: held for a while, then withdrawable to its owner's balance. */
export const BotIncome = Resource({
  held: t.Integer(),
  withdrawable: t.Integer(),
  nextReleaseAt: NullableTime,
  recentPayments: t.Array(t.Unknown()),
});

export const OwnedBot = Resource(
  {
    id: t.String(),
    username: t.String(),
    name: t.String(),
    enabled: t.Boolean(),
    blocked: t.Boolean(),
    privacy: t.UnionEnum(["all", "commands"], { description: "the messages of groups it gets: all, or commands only" }),
    description: NullableString,
    shortDescription: NullableString,
    commands: t.Array(BotCommand),
    webhookUrl: NullableString,
    startLink: t.String(),
    apiRoot: t.String({ description: "what to give a bot library as its server setting" }),
    libraries: t.Record(t.String(), t.String(), {
      description: "the server setting per bot library, where it differs",
    }),
    createdAt: Time,
  },
  "a bot as its owner sees it",
);

/** A captcha for registration: a picture of a code and a text question; either answer passes. */
export const Captcha = t.Object({
  captchaId: t.String(),
  image: t.String({ description: "a PNG data: URL of a code (letters and digits; case does not matter)" }),
  question: t.String({ description: "the non-visual alternative: a question in plain text" }),
});

/** The start of TOTP enrolment: a secret and its otpauth:// URL for an authenticator app. */
export const TotpSetup = t.Object({ secret: t.String(), otpauthUrl: t.String() });

export const LANGUAGE_DESCRIPTION = `the language the server writes to you in (e-mails, push notifications, notices): ${Object.keys(LANGUAGES).join(", ")}; null: the instance's default (English)`;

/** Who may start a chat with the person, whether bots may write first, and the language the server writes in. */
export const MessageSettings = Resource({
  whoCanMessage: t.UnionEnum(["everyone", "followed", "nobody"]),
  botsMayWriteFirst: t.Boolean({
    description: "whether a bot may open a chat by writing first (within whoCanMessage); false: only after you write",
  }),
  language: t.Union([t.String(), t.Null()], { description: LANGUAGE_DESCRIPTION }),
});

/** A sign-in by QR code: the code a program shows, and how to poll for its state. */
export const QrStart = t.Object({ token: t.String(), expiresAt: Time, pollIntervalMs: t.Integer(), link: t.String() });

export const QrStatus = t.UnionEnum(["PENDING", "APPROVED", "CLAIMED", "EXPIRED", "REFUSED"]);

/** A QR sign-in's state, and the device that showed the code. */
export const QrRequest = t.Object({
  status: QrStatus,
  device: Resource({ userAgent: t.String(), ip: t.String(), requestedAt: Time }),
});

/** Who may register: anyone, anyone who solves the captcha, holders of an invite, or nobody. */
export const Registration = t.UnionEnum(["open", "captcha", "invite", "closed"]);

/** What the instance says about itself to anyone (config instance.*, changed live by administrators). */
export const Instance = Resource({
  name: t.String(),
  description: t.String(),
  rules: t.Array(t.String(), { description: "registering means accepting these (register's acceptRules)" }),
  contact: t.String({ description: "how to reach the administrators: an e-mail address, a link, or empty" }),
  registration: Registration,
});

/** A new CSRF token and the sign-up mode (GET /api/auth/csrf, GET /api/start). */
export const CsrfAnswer = t.Object({
  csrfToken: t.String(),
  captchaRequired: t.Boolean(),
  registration: Registration,
});

/** What the app's shell needs before its first screen (GET /api/start). */
export const StartAnswer = t.Composite([
  CsrfAnswer,
  t.Object({
    instance: Instance,
    account: t.Union([Account, t.Null()], { description: "null: nobody is signed in (or the session is over)" }),
    unread: t.Union(
      [
        t.Object({
          chats: t.Integer({ description: "chats with unread messages (GET /api/social/messages/unread)" }),
          notifications: t.Integer({
            description:
              "the notifications badge: unread groups since the list was last opened (unseenCount of notifications)",
          }),
        }),
        t.Null(),
      ],
      { description: "the header's badges; null when signed out" },
    ),
  }),
]);
