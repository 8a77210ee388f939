/**
 * Every cache the server keeps of database rows, in one list: what it holds, what it is read
 * from, how big it may grow, how a stale entry is told apart, and the benchmark row (by its
 * name in scripts/bench.ts, counts written N) that justifies keeping it. A cache built on this
 * folder's classes must be named here (src/architecture.test.ts), docs/architecture.md shows
 * this table (src/cache/registry.test.ts keeps the two equal), and src/cache/oracle.test.ts
 * checks, for each cache kept by stamp, that every write to its sources that may change an entry
 * moves the stamp, and for each cache the feed, comment and profile answers are made of, that
 * those answers equal a fresh read after every kind of write to its sources.
 *
 * The invalidation rules, from the default down:
 * - `row version`: entries are kept by the version a trigger raises on every change of the
 *   row (or of what it shows), whoever makes it: this process, the CLI, another node, an
 *   operator's SQL. A read names the version it found, and an entry of another version misses.
 *   Nothing is told of writes; works on PostgreSQL.
 * - `cache stamp`: entries are kept under the stamp of their cache in the cache_stamps table,
 *   which triggers on the source tables raise (CacheStamps in stamps.ts): a write by anyone
 *   misses every entry of that cache from then on. Nothing is told of writes; works on
 *   PostgreSQL.
 * - `reader stamp` (an exception): entries are kept per reader under that reader's stamp, which
 *   triggers raise on every write to the source rows that reader is shown (chat-list-stamps.ts):
 *   a hit reads one row (on SQLite through a connection of its own, no statement on the
 *   writer's), where a page's read would cost many. Nothing is told of writes; works on
 *   PostgreSQL; but its triggers add a write per member to every send, so it stays only where a
 *   benchmark target needs it.
 */

import { USER_COUNTER_COLUMNS, USER_ROW_COLUMNS } from "../domain/users/table";

export type Invalidation = "row version" | "cache stamp" | "reader stamp";

export interface RegisteredCache {
  /** unique; what the docs, the oracle tests and the cache stamps name it by */
  name: string;
  /** the file that makes it */
  home: string;
  /** what an entry is found by */
  key: string;
  /** the tables its entries are read from */
  sources: readonly string[];
  /** the most it holds */
  bound: string;
  /** what goes when it is full */
  eviction: string;
  invalidation: Invalidation;
  /** how a stale entry is told apart, in a sentence */
  rule: string;
  /** the scripts/bench.ts rows it serves, counts written N */
  bench: readonly string[];
  /**
   * For a cache kept by stamp (a cache's or a reader's): columns of its sources whose writes
   * cannot change an entry (the stamp's UPDATE triggers leave them out); every other column
   * raises the stamp.
   */
  ignores?: Readonly<Record<string, readonly string[]>>;
  /** for an exception to the default rules (a reader stamp): why it stays, with the figure that needs it */
  exception?: string;
}

/**
 * What lists show of an account: a write to one raises its profile_version (the
 * profile_version_shown migration) and so the version of each of its chats.
 */
const PROFILE_SHOWN_COLUMNS = [
  "cuid",
  "username",
  "display_name",
  "avatar_url",
  "is_bot",
  "is_system",
  "bio",
  "cover_url",
  "cover_video_url",
  "created_at",
];

const FEED = "GET /api/social/feed (N posts)";
const CHATS = "GET /api/social/messages (N of N chats)";
const COMMENTS = "GET /api/social/posts/{id}/comments (N)";
const PROFILE = "GET /api/social/users/{username} (profile)";
const FOLLOWING = "GET /api/social/users/{username}/following (N)";
const NOTIFICATIONS = "GET /api/social/notifications (N groups)";
const HISTORY = "GET /api/social/messages/{cid} (newest 30 of N)";

export const CACHES: readonly RegisteredCache[] = [
  {
    name: "sessions",
    home: "src/domain/sessions/service.ts",
    key: "session cuid",
    sources: ["sessions", "users", "banned_devices"],
    bound: "10,000 sessions",
    eviction: "emptied when full",
    invalidation: "cache stamp",
    rule: "stamp `sessions`: any write to its sources but a session's last-seen time and address and an account's counters",
    ignores: { sessions: ["last_seen_at", "ip"], users: USER_COUNTER_COLUMNS },
    bench: ["GET /api/auth/me"],
  },
  {
    name: "send-access",
    home: "src/domain/chats/send-access.ts",
    key: "sender and chat",
    sources: ["conversations", "conversation_members", "users", "blocks"],
    bound: "10,000 checks",
    eviction: "emptied when full",
    invalidation: "cache stamp",
    rule: "stamp `send-access`: any write to its sources but the columns every send moves and an account's counters",
    ignores: {
      conversations: [
        "last_seq",
        "last_message_at",
        "activity_at",
        "updated_at",
        "last_message_id",
        "last_message_version",
        "history_version",
      ],
      conversation_members: ["last_read_seq", "unread_count", "activity_at", "has_hidden", "updated_at"],
      users: USER_COUNTER_COLUMNS,
    },
    bench: ["POST /api/social/messages/{cid}", "Bot API sendMessage"],
  },
  {
    name: "bot-identities",
    home: "src/domain/bots/service.ts",
    key: "bot account id",
    sources: ["bots", "users"],
    bound: "10,000 bots",
    eviction: "emptied when full",
    invalidation: "cache stamp",
    rule: "stamp `bot-identities`: any write to bots, or to an account but its counters",
    ignores: { users: USER_COUNTER_COLUMNS },
    bench: ["Bot API getMe", "Bot API sendMessage"],
  },
  {
    name: "chat-list-answers",
    home: "src/clientapi/chats/list-answers.ts",
    key: "viewer, limit and cursor",
    sources: [
      "conversations",
      "conversation_members",
      "messages",
      "message_hidden",
      "message_reactions",
      "message_poll_votes",
      "users",
    ],
    bound: "64 answers",
    eviction: "oldest kept first",
    invalidation: "reader stamp",
    rule: "the viewer's stamp in chat_list_stamps: any write to their memberships, to their chats (a message's change, reaction and vote raise its chat's last_message_version; a profile in the chat its version) and to their hides, but the columns a list does not show (a chat's activity is copied to every member's row)",
    ignores: {
      conversations: [
        "invite_code",
        "created_by",
        "invite_by",
        "last_seq",
        "activity_at",
        "updated_at",
        "history_version",
      ],
      conversation_members: ["joined_at", "start_label", "updated_at", "promoted_by"],
      users: [...USER_ROW_COLUMNS.filter((c) => !PROFILE_SHOWN_COLUMNS.includes(c)), ...USER_COUNTER_COLUMNS],
    },
    bench: [CHATS],
    exception:
      "a page asked again is its kept text after reading its stamp: the chat list's target needs it (20 of 50 chats: 0.28–0.40× the PK-SELECT reference with every page read, load 9–15; 0.62–0.65× with it, load 6–9)",
  },
  {
    name: "chat-list-messages",
    home: "src/clientapi/chats/serialize.ts",
    key: "message id",
    sources: ["messages", "message_reactions", "message_poll_votes", "conversations", "users"],
    bound: "5,000 messages",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "the message's version (or its chat's last_message_version) with its chat's conversations.version",
    bench: [CHATS],
  },
  {
    name: "chat-list-heads",
    home: "src/clientapi/chats/serialize.ts",
    key: "membership id",
    sources: ["conversations", "conversation_members", "users"],
    bound: "10,000 chats",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "conversations.version (a member's role and rights and anyone's profile in the chat raise it)",
    bench: [CHATS],
  },
  {
    name: "post-cores",
    home: "src/domain/posts/view.ts",
    key: "post id",
    sources: ["posts", "polls"],
    bound: "5,000 posts",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "posts.version",
    bench: [FEED],
  },
  {
    name: "authors",
    home: "src/domain/posts/view.ts",
    key: "account id",
    sources: ["users"],
    bound: "5,000 accounts",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "users.profile_version",
    bench: [FEED, COMMENTS],
  },
  {
    name: "feed-pages",
    home: "src/clientapi/posts/feed-answers.ts",
    key: "reader, list (the home feed, following or all; bookmarks; a hashtag's posts; a post's likers), limit and cursor",
    sources: [
      "feed_entries",
      "hashtags",
      "post_hashtags",
      "blocks",
      "mutes",
      "posts",
      "post_likes",
      "post_bookmarks",
      "users",
      "polls",
      "poll_options",
      "poll_votes",
    ],
    bound: "1,000 answers of at most 32 KB",
    eviction: "oldest kept first",
    invalidation: "cache stamp",
    rule: "stamp `feed-pages`: any write to its sources but an account's and a hashtag's counters",
    ignores: { users: USER_COUNTER_COLUMNS, hashtags: ["post_count"] },
    bench: [FEED],
  },
  {
    name: "follow-pages",
    home: "src/clientapi/people/follow-answers.ts",
    key: "reader, account, followers or following, limit and cursor",
    sources: ["follows", "blocks", "users"],
    bound: "1,000 answers of at most 32 KB",
    eviction: "oldest kept first",
    invalidation: "cache stamp",
    rule: "stamp `follow-pages`: any write to its sources but an account's counters",
    ignores: { users: USER_COUNTER_COLUMNS },
    bench: [FOLLOWING],
  },
  {
    name: "comment-cores",
    home: "src/domain/comments/service.ts",
    key: "comment id",
    sources: ["comments"],
    bound: "5,000 comments",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "comments.version",
    bench: [COMMENTS],
  },
  {
    name: "comment-pages",
    home: "src/clientapi/posts/comment-pages.ts",
    key: "thread, limit and cursor",
    sources: ["comment_threads", "comments", "posts", "users"],
    bound: "500 pages of at most 32 KB",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "comment_threads.version with the post's or comment's id",
    bench: [COMMENTS],
  },
  {
    name: "history-pages",
    home: "src/clientapi/chats/history-answers.ts",
    key: "reader, chat, limit and cursor",
    sources: ["conversations", "messages", "message_reactions", "message_poll_votes", "message_hidden", "users"],
    bound: "1,000 pages of at most 32 KB",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "the chat's version (its members' profiles), last_seq, last_message_version (any message's change or removal) and history_version (a message stored below the newest), for a reader who hid none of its messages; a page with a poll that closes by time only until then",
    bench: [HISTORY],
  },
  {
    name: "notification-pages",
    home: "src/clientapi/notifications/page-answers.ts",
    key: "recipient, unread only or all, limit and cursor",
    sources: ["notification_counts", "notification_groups", "notifications", "users", "posts", "comments", "reports"],
    bound: "1,000 pages of at most 32 KB",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "the recipient's notification_counts: its version (triggers raise it on every change of their groups, of their groups' events, of the profile of anyone who notified them and of the public id of what a group is about) with the unread and unseen counts",
    bench: [NOTIFICATIONS],
  },
  {
    name: "profiles",
    home: "src/domain/profiles/service.ts",
    key: "account id",
    sources: ["users"],
    bound: "5,000 profiles",
    eviction: "oldest kept first",
    invalidation: "row version",
    rule: "users.profile_version",
    bench: [PROFILE],
  },
];

/** The registry as a markdown table: docs/architecture.md's section "Caches" holds it as it is. */
export function cacheTable(caches: readonly RegisteredCache[] = CACHES): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const lines = [
    "| cache | key | read from | bound | eviction | invalidation | benchmark rows | home |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const c of caches) {
    const rule = `${c.invalidation}: ${c.rule}${c.exception ? ` (exception: ${c.exception})` : ""}`;
    lines.push(
      `| ${[c.name, c.key, c.sources.join(", "), c.bound, c.eviction, rule, c.bench.join("; "), `\`${c.home}\``]
        .map(cell)
        .join(" | ")} |`,
    );
  }
  return lines.join("\n");
}
