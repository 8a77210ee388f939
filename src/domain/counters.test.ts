import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { sql, type Kysely } from "kysely";
import { startTestServer, type TestServer } from "../testing/server";
import { insertPeople } from "../testing/fixtures";
import { countingDb } from "../testing/statements";
import { rerunMigrations } from "../testing/migrations";
import { AppError } from "../lib/errors";
import { deleteAccount } from "./account/delete";
import {
  commentsPage,
  createComment,
  deleteComment,
  cachedCommentViewsOf,
  toggleCommentLike,
} from "./comments/service";
import { createPost, deletePost, toggleLike, toggleRepost } from "./posts/service";
import { cachedPostViewsOf, loadPostViews } from "./posts/view";
import { cachedProfilesOf, loadProfile, requireVisibleUser } from "./profiles/service";
import { toggleBlock, toggleFollow } from "./relations/actions";
import type { UserRow } from "./users/table";
import {
  addMember,
  createGroup,
  deleteMessage,
  leaveGroup,
  markRead,
  openPrivateChat,
  removeMember,
  sendMessage,
} from "./chats";
import { listChats } from "./chats/chat-list";

/**
 * Property: after any mix of likes, comments and replies, comment and post deletions (with
 * their cascades), reposts, follows, blocks and account removals, every counter column equals
 * the count of its rows (followers and following counting live accounts only, as the reads
 * used to), and the views that show them (post views, profiles) read the same numbers.
 */

const PASSWORD = "counter property";
let server: TestServer;
let passwordHash: string;

beforeAll(async () => {
  server = await startTestServer({ "limits.followsPerHour": 1_000_000, "limits.commentsPerHour": 1_000_000 });
  // one cheap hash for every account of the property (account removal checks the password)
  passwordHash = await Bun.password.hash(PASSWORD, { algorithm: "bcrypt", cost: 4 });
});
afterAll(() => server.stop());

const makePeople = (n: number) => insertPeople(server.app, n, passwordHash);

/** Counters that differ from the rows they count: empty when all agree. */
async function mismatches(): Promise<unknown[]> {
  const { rows: posts } = await sql<{
    id: number;
    like_count: number;
    comment_count: number;
    repost_count: number;
    likes: number;
    comments: number;
    reposts: number;
  }>`
    SELECT id, like_count, comment_count, repost_count,
      (SELECT count(*) FROM post_likes l WHERE l.post_id = posts.id) AS likes,
      (SELECT count(*) FROM comments c WHERE c.post_id = posts.id) AS comments,
      (SELECT count(*) FROM posts r WHERE r.repost_of_id = posts.id) AS reposts
    FROM posts`.execute(server.app.db);
  const { rows: users } = await sql<{
    id: number;
    followers_count: number;
    following_count: number;
    posts_count: number;
    followers: number;
    following: number;
    posts: number;
  }>`
    SELECT id, followers_count, following_count, posts_count,
      (SELECT count(*) FROM posts p WHERE p.author_id = users.id) AS posts,
      (SELECT count(*) FROM follows f JOIN users u ON u.id = f.follower_id WHERE f.followee_id = users.id AND u.deleted_at IS NULL) AS followers,
      (SELECT count(*) FROM follows f JOIN users u ON u.id = f.followee_id WHERE f.follower_id = users.id AND u.deleted_at IS NULL) AS following
    FROM users WHERE deleted_at IS NULL`.execute(server.app.db);
  const { rows: comments } = await sql<{
    id: number;
    like_count: number;
    reply_count: number;
    likes: number;
    replies: number;
  }>`
    SELECT id, like_count, reply_count,
      (SELECT count(*) FROM comment_likes l WHERE l.comment_id = comments.id) AS likes,
      (SELECT count(*) FROM comments r WHERE r.reply_to_id = comments.id) AS replies
    FROM comments`.execute(server.app.db);
  return [
    ...posts.filter((p) => p.like_count !== p.likes || p.comment_count !== p.comments || p.repost_count !== p.reposts),
    ...comments.filter((c) => c.like_count !== c.likes || c.reply_count !== c.replies),
    ...users.filter(
      (u) => u.followers_count !== u.followers || u.following_count !== u.following || u.posts_count !== u.posts,
    ),
  ];
}

type Op =
  | { kind: "like" | "repost" | "comment" | "deletePost"; who: number; post: number }
  | { kind: "reply" | "likeComment"; who: number; comment: number }
  | { kind: "deleteComment"; comment: number }
  | { kind: "follow" | "block"; who: number; whom: number }
  | { kind: "removeAccount"; who: number }
  // in the group (people[0] created it: they add and remove)
  | { kind: "leave"; who: number }
  | { kind: "add"; who: number }
  | { kind: "remove"; who: number };

const PEOPLE = 5;
const person = fc.integer({ min: 0, max: PEOPLE - 1 });
const index = fc.nat({ max: 30 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constantFrom("like", "repost", "comment", "deletePost"),
      who: person,
      post: index,
    }),
    weight: 6,
  },
  { arbitrary: fc.record({ kind: fc.constantFrom("reply", "likeComment"), who: person, comment: index }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("deleteComment"), comment: index }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constantFrom("follow", "block"), who: person, whom: person }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant("removeAccount"), who: person }), weight: 1 },
) as fc.Arbitrary<Op>;

test("counter columns equal the rows they count after random operations", async () => {
  const app = server.app;
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), async (ops) => {
      const people = await makePeople(PEOPLE);
      const posts: string[] = [];
      const comments: Array<{ cuid: string; author: UserRow; post: string }> = [];
      for (const p of people.slice(0, 3))
        posts.push((await createPost(app, p, { content: `post of ${p.username}` })).post.cuid);
      const removed = new Set<number>();
      for (const o of ops) {
        // a removed account has no session left: it acts no more
        const actor = "who" in o ? o.who : null;
        if (actor !== null && removed.has(actor)) continue;
        try {
          if (o.kind === "follow" || o.kind === "block") {
            if (o.who === o.whom) continue;
            const who = people[o.who]!;
            // as the route does: the other account by username, which a removed account no longer has
            const whom = await requireVisibleUser(app.db, who.id, people[o.whom]!.username);
            if (o.kind === "follow") await toggleFollow(app, who.id, whom.id);
            else await toggleBlock(app, who.id, whom.id);
          } else if (o.kind === "removeAccount") {
            await deleteAccount(app, people[o.who]!, PASSWORD);
            removed.add(o.who);
          } else if (o.kind === "deleteComment") {
            const c = comments[o.comment % Math.max(1, comments.length)];
            if (c && !removed.has(people.indexOf(c.author))) await deleteComment(app, c.author, c.cuid);
          } else if (o.kind === "likeComment") {
            const c = comments[o.comment % Math.max(1, comments.length)];
            if (c) await toggleCommentLike(app, people[o.who]!, c.cuid);
          } else if (o.kind === "reply") {
            const c = comments[o.comment % Math.max(1, comments.length)];
            if (!c) continue;
            const made = await createComment(app, people[o.who]!, c.post, { content: "a reply", replyToId: c.cuid });
            comments.push({ cuid: made.cuid, author: people[o.who]!, post: c.post });
          } else {
            const who = people[o.who]!;
            const post = posts[(o as { post: number }).post % posts.length]!;
            if (o.kind === "like") await toggleLike(app, who, post);
            else if (o.kind === "repost") await toggleRepost(app, who, post);
            else if (o.kind === "deletePost") await deletePost(app, who, post);
            else
              comments.push({
                cuid: (await createComment(app, who, post, { content: "a comment" })).cuid,
                author: who,
                post,
              });
          }
        } catch (err) {
          // refusals (a block, a deleted account or post, someone else's post) change nothing
          if (!(err instanceof AppError)) throw err;
        }
      }
      expect(await mismatches()).toEqual([]);
      // the reads show the columns: post views and profiles agree with counting
      const viewer = people[0]!;
      const rows = await app.db
        .selectFrom("posts")
        .selectAll()
        .where(
          "author_id",
          "in",
          people.map((p) => p.id),
        )
        .execute();
      // through the views the App keeps by post and profile version, as the routes read them
      for (const view of await loadPostViews(app.db, cachedPostViewsOf(app), viewer.id, rows)) {
        const likes = await app.db
          .selectFrom("post_likes")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("post_id", "=", view.row.id)
          .executeTakeFirstOrThrow();
        const replies = await app.db
          .selectFrom("comments")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("post_id", "=", view.row.id)
          .executeTakeFirstOrThrow();
        const reposts = await app.db
          .selectFrom("posts")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("repost_of_id", "=", view.row.id)
          .executeTakeFirstOrThrow();
        expect([view.likeCount, view.commentCount, view.repostCount]).toEqual([
          Number(likes.n),
          Number(replies.n),
          Number(reposts.n),
        ]);
      }
      // comment pages: likes from the column, replies from the column unless the viewer has blocks,
      // when the replies of accounts blocked either way are left out of the count
      for (const post of rows) {
        const page = await commentsPage(
          app.db,
          cachedCommentViewsOf(app),
          viewer.id,
          { post, replyTo: null },
          {
            cursor: null,
            limit: 100,
          },
        );
        for (const view of page.items) {
          const { rows: counted } = await sql<{ likes: number; replies: number }>`
            SELECT (SELECT count(*) FROM comment_likes l WHERE l.comment_id = ${view.row.id}) AS likes,
              (SELECT count(*) FROM comments r WHERE r.reply_to_id = ${view.row.id} AND NOT EXISTS (
                SELECT 1 FROM blocks b WHERE (b.blocker_id = ${viewer.id} AND b.blocked_id = r.author_id)
                  OR (b.blocked_id = ${viewer.id} AND b.blocker_id = r.author_id))) AS replies`.execute(app.db);
          expect([view.likeCount, view.replyCount]).toEqual([Number(counted[0]!.likes), Number(counted[0]!.replies)]);
        }
      }
      for (const p of people) {
        const fresh = await app.db.selectFrom("users").selectAll().where("id", "=", p.id).executeTakeFirstOrThrow();
        if (fresh.deleted_at !== null) continue;
        const profile = await loadProfile(app.db, cachedProfilesOf(app), viewer.id, fresh);
        const followers = await sql<{
          n: number;
        }>`SELECT count(*) AS n FROM follows f JOIN users u ON u.id = f.follower_id WHERE f.followee_id = ${p.id} AND u.deleted_at IS NULL`.execute(
          app.db,
        );
        expect(profile.followersCount).toBe(Number(followers.rows[0]!.n));
      }
    }),
    { numRuns: 25 },
  );
}, 240_000);

test("the migrations backfill the counters from existing rows", async () => {
  const app = server.app;
  // rows written past the triggers (as before the migrations) are what the backfill statements count
  await sql`UPDATE posts SET like_count = 0, comment_count = 0`.execute(app.db);
  await sql`UPDATE users SET followers_count = 0, following_count = 0`.execute(app.db);
  await sql`UPDATE comments SET like_count = 0, reply_count = 0`.execute(app.db);
  for (const name of ["20261124100000_counters", "20261124190000_comment_counters"])
    await rerunMigrations(app.db, [name]);
  expect(await mismatches()).toEqual([]);
});

test("a profile takes its follow counts from the account row: no statement counts follows", async () => {
  const [viewer, shown, fan] = await makePeople(3);
  await toggleFollow(server.app, fan!.id, shown!.id);
  await toggleFollow(server.app, shown!.id, viewer!.id);
  const fresh = await server.app.db
    .selectFrom("users")
    .selectAll()
    .where("id", "=", shown!.id)
    .executeTakeFirstOrThrow();
  const kept = cachedProfilesOf(server.app);
  const { db, counter } = countingDb(server.app.db);
  expect((await loadProfile(db, kept, viewer!.id, fresh)).user.username).toBe(fresh.username);
  // the first read also reads the shown columns, which are kept
  expect(counter.statements).toBe(2);
  counter.statements = 0;
  const profile = await loadProfile(db, kept, viewer!.id, fresh);
  expect([profile.followersCount, profile.followingCount, profile.followsYou]).toEqual([1, 1, true]);
  // one statement: the counters and the relations as EXISTS probes, the shown columns kept
  expect(counter.statements).toBe(1);
  // the counts are the columns: a column set apart from the rows shows as it is
  const setFollowers = (n: number) =>
    server.app.db.updateTable("users").set({ followers_count: n }).where("id", "=", shown!.id).execute();
  await setFollowers(7);
  expect((await loadProfile(db, kept, viewer!.id, fresh)).followersCount).toBe(7);
  await setFollowers(1);
});

/** Members whose unread counter differs from counting the messages they see after their marker. */
async function unreadMismatches(): Promise<unknown[]> {
  const { rows } = await sql<{ id: number; unread_count: number; counted: number }>`
    SELECT m.id, m.unread_count, (
      SELECT count(*) FROM messages x
      WHERE x.conversation_id = m.conversation_id AND x.seq > m.last_read_seq AND x.sender_id <> m.user_id
        AND x.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.message_id = x.id AND h.user_id = m.user_id)
    ) AS counted
    FROM conversation_members m`.execute(server.app.db);
  return rows.filter((r) => r.unread_count !== r.counted);
}

/** Chats whose member counter differs from counting the people in them now. */
async function memberCountMismatches(): Promise<unknown[]> {
  const { rows } = await sql<{ id: number; member_count: number; counted: number }>`
    SELECT c.id, c.member_count, (
      SELECT count(*) FROM conversation_members m
      WHERE m.conversation_id = c.id AND m.role IN ('creator', 'administrator', 'member')
    ) AS counted
    FROM conversations c`.execute(server.app.db);
  return rows.filter((r) => Number(r.member_count) !== Number(r.counted));
}

/** Chats whose kept last message differs from their newest message not deleted for everyone. */
async function lastMessageMismatches(): Promise<unknown[]> {
  const { rows } = await sql<{ id: number; last_message_id: number | null; newest: number | null }>`
    SELECT c.id, c.last_message_id, (
      SELECT x.id FROM messages x WHERE x.conversation_id = c.id AND x.deleted_at IS NULL ORDER BY x.seq DESC LIMIT 1
    ) AS newest
    FROM conversations c`.execute(server.app.db);
  return rows.filter((r) => r.last_message_id !== r.newest);
}

/** Memberships whose copy of their chat's activity (the chat list's order) differs from the chat's. */
async function activityMismatches(): Promise<unknown[]> {
  const { rows } = await sql<{ id: number; activity_at: number; chat: number }>`
    SELECT m.id, m.activity_at, c.activity_at AS chat
    FROM conversation_members m JOIN conversations c ON c.id = m.conversation_id`.execute(server.app.db);
  return rows.filter((r) => Number(r.activity_at) !== Number(r.chat));
}

/** Memberships with messages they hid in their chat whose hint (has_hidden, which the chat list trusts when 0) says none. */
async function hiddenFlagMismatches(): Promise<unknown[]> {
  const { rows } = await sql<{ id: number }>`
    SELECT m.id FROM conversation_members m
    WHERE m.has_hidden = 0 AND EXISTS (SELECT 1 FROM message_hidden h JOIN messages x ON x.id = h.message_id
      WHERE h.user_id = m.user_id AND x.conversation_id = m.conversation_id)`.execute(server.app.db);
  return rows;
}

/** The newest message of each of VIEWER's chats that they see (not deleted, not hidden for them), by chat. */
async function newestSeenBy(viewer: number): Promise<Map<number, number | null>> {
  const { rows } = await sql<{ conversation_id: number; newest: number | null }>`
    SELECT m.conversation_id, (
      SELECT x.id FROM messages x WHERE x.conversation_id = m.conversation_id AND x.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.message_id = x.id AND h.user_id = ${viewer})
      ORDER BY x.seq DESC LIMIT 1
    ) AS newest
    FROM conversation_members m WHERE m.user_id = ${viewer}`.execute(server.app.db);
  return new Map(rows.map((r) => [r.conversation_id, r.newest]));
}

type ChatOp =
  | { kind: "send"; who: number; chat: number }
  | { kind: "read"; who: number; chat: number; back: number }
  | { kind: "deleteForEveryone" | "hide"; who: number; chat: number; back: number }
  | { kind: "removeAccount"; who: number }
  // in the group (people[0] created it: they add and remove)
  | { kind: "leave"; who: number }
  | { kind: "add"; who: number }
  | { kind: "remove"; who: number };

const chatOp: fc.Arbitrary<ChatOp> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("send"), who: person, chat: fc.nat({ max: 2 }) }), weight: 6 },
  {
    arbitrary: fc.record({
      kind: fc.constant("read"),
      who: person,
      chat: fc.nat({ max: 2 }),
      back: fc.nat({ max: 4 }),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom("deleteForEveryone", "hide"),
      who: person,
      chat: fc.nat({ max: 2 }),
      back: fc.nat({ max: 4 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant("removeAccount"), who: person }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constantFrom("leave", "add", "remove"), who: person }), weight: 2 },
) as fc.Arbitrary<ChatOp>;

test("each member's unread counter equals the messages they have not read, and each chat's member counter its members, after random chat operations", async () => {
  const app = server.app;
  await fc.assert(
    fc.asyncProperty(fc.array(chatOp, { minLength: 5, maxLength: 40 }), async (ops) => {
      const people = await makePeople(PEOPLE);
      // a group of everyone and two private chats
      const chats = [
        (
          await createGroup(
            app,
            people[0]!.id,
            "counters",
            people.slice(1).map((p) => p.id),
          )
        ).id,
        (await openPrivateChat(app, people[0]!.id, people[1]!.id)).id,
        (await openPrivateChat(app, people[2]!.id, people[1]!.id)).id,
      ];
      const removed = new Set<number>();
      for (const o of ops) {
        if (removed.has(o.who)) continue;
        const who = people[o.who]!;
        try {
          if (o.kind === "removeAccount") {
            await deleteAccount(app, who, PASSWORD);
            removed.add(o.who);
            continue;
          }
          if (o.kind === "leave" || o.kind === "add" || o.kind === "remove") {
            const input = { conversationId: chats[0]!, actorId: people[0]!.id, userId: who.id };
            if (o.kind === "leave") await leaveGroup(app, input);
            else if (o.kind === "add") await addMember(app, input);
            else await removeMember(app, input);
            continue;
          }
          const conversationId = chats[o.chat]!;
          if (o.kind === "send") {
            await sendMessage(app, { conversationId, senderId: who.id, content: `from ${who.username}` });
            continue;
          }
          const { last_seq } = await app.db
            .selectFrom("conversations")
            .select("last_seq")
            .where("id", "=", conversationId)
            .executeTakeFirstOrThrow();
          const seq = Math.max(1, last_seq - o.back);
          if (o.kind === "read") await markRead(app, { conversationId, userId: who.id, seq });
          else
            await deleteMessage(app, {
              conversationId,
              seq,
              actorId: who.id,
              forEveryone: o.kind === "deleteForEveryone",
            });
        } catch (err) {
          // not a member, not one's own message, a removed account: refused, nothing changed
          if (!(err instanceof AppError)) throw err;
        }
      }
      expect(await unreadMismatches()).toEqual([]);
      expect(await memberCountMismatches()).toEqual([]);
      expect(await lastMessageMismatches()).toEqual([]);
      expect(await activityMismatches()).toEqual([]);
      expect(await hiddenFlagMismatches()).toEqual([]);
      // the chat list shows the counters (each equal to counting, checked above) and the newest
      // message each viewer sees
      for (const p of people) {
        if (removed.has(people.indexOf(p))) continue;
        const page = await listChats(app.db, p.id, undefined, 50);
        const counters = await app.db
          .selectFrom("conversation_members")
          .innerJoin("conversations", "conversations.id", "conversation_members.conversation_id")
          .select(["conversation_id", "unread_count", "member_count"])
          .where("user_id", "=", p.id)
          .execute();
        const byChat = new Map(counters.map((c) => [c.conversation_id, c]));
        const newest = await newestSeenBy(p.id);
        for (const item of page.items) {
          expect(item.lastMessage?.id ?? null).toBe(newest.get(item.conversationId) ?? null);
          expect(item.unreadCount).toBe(Number(byChat.get(item.conversationId)!.unread_count));
          expect(item.memberCount).toBe(Number(byChat.get(item.conversationId)!.member_count));
        }
      }
    }),
    { numRuns: 25 },
  );
}, 240_000);

test("the last message migration fills each chat's newest message not deleted for everyone", async () => {
  const app = server.app;
  const [a, b] = await makePeople(2);
  const chat = await openPrivateChat(app, a!.id, b!.id);
  for (const content of ["one", "two", "three"])
    await sendMessage(app, { conversationId: chat.id, senderId: a!.id, content });
  await deleteMessage(app, { conversationId: chat.id, seq: 3, actorId: a!.id, forEveryone: true });
  await rerunMigrations(app.db, [
    "20261124214100_chat_last_message",
    // the later columns of conversations, and the one trigger of a stored message, which reads the column
    "20261125002100_chat_list_last_message_version",
    "20261125040000_send_one_trigger",
    "20261128140100_invite_maker",
    "20261205100400_chat_history_version",
    // which makes it again, writing the memberships in one UPDATE
    "20261207100000_send_one_member_update",
    // and which makes it (on PostgreSQL) once per statement
    "20261208100000_send_statement_triggers",
  ]);
  expect(await lastMessageMismatches()).toEqual([]);
  const row = await app.db
    .selectFrom("conversations")
    .select("last_message_id")
    .where("id", "=", chat.id)
    .executeTakeFirstOrThrow();
  const two = await app.db
    .selectFrom("messages")
    .select("id")
    .where("conversation_id", "=", chat.id)
    .where("seq", "=", 2)
    .executeTakeFirstOrThrow();
  expect(row.last_message_id).toBe(two.id);
});

test("the member activity migration copies each chat's activity to its memberships", async () => {
  const app = server.app;
  const [a, b, c] = await makePeople(3);
  await createGroup(app, a!.id, "activity", [b!.id, c!.id]);
  const chat = await openPrivateChat(app, a!.id, b!.id);
  server.clock.advance(1_000);
  await sendMessage(app, { conversationId: chat.id, senderId: a!.id, content: "later" });
  await rerunMigrations(app.db, [
    "20261125002000_chat_member_activity",
    // the later columns of the same tables; the one that moved a send's activity copy into the
    // unread counter's trigger, and the one that folded that trigger into a stored message's only one
    "20261125002100_chat_list_last_message_version",
    "20261125010000_send_member_activity",
    "20261125040000_send_one_trigger",
    "20261128140100_invite_maker",
    "20261205100400_chat_history_version",
    // which makes it again, writing the memberships in one UPDATE
    "20261207100000_send_one_member_update",
    // and which makes it (on PostgreSQL) once per statement
    "20261208100000_send_statement_triggers",
  ]);
  expect(await activityMismatches()).toEqual([]);
  const mine = await listChats(app.db, a!.id, undefined, 50);
  expect(mine.items.map((i) => i.conversationId)[0]).toBe(chat.id);
});

test("the last message version migration marks the memberships with hidden messages", async () => {
  const app = server.app;
  const [a, b] = await makePeople(2);
  const chat = await openPrivateChat(app, a!.id, b!.id);
  for (const content of ["one", "two"]) await sendMessage(app, { conversationId: chat.id, senderId: a!.id, content });
  await deleteMessage(app, { conversationId: chat.id, seq: 2, actorId: b!.id, forEveryone: false });
  // with the later columns of conversations (the last also flags hides)
  await rerunMigrations(app.db, [
    "20261125002100_chat_list_last_message_version",
    "20261128140100_invite_maker",
    "20261205100400_chat_history_version",
    // which makes it again, writing the memberships in one UPDATE
    "20261207100000_send_one_member_update",
    // and which makes it (on PostgreSQL) once per statement
    "20261208100000_send_statement_triggers",
  ]);
  expect(await hiddenFlagMismatches()).toEqual([]);
  const flags = await app.db
    .selectFrom("conversation_members")
    .select(["user_id", "has_hidden"])
    .where("conversation_id", "=", chat.id)
    .orderBy("user_id")
    .execute();
  expect(flags.map((f) => [f.user_id, Number(f.has_hidden)])).toEqual([
    [a!.id, 0],
    [b!.id, 1],
  ]);
  const page = await listChats(app.db, b!.id, undefined, 50);
  const one = await app.db
    .selectFrom("messages")
    .select("id")
    .where("conversation_id", "=", chat.id)
    .where("seq", "=", 1)
    .executeTakeFirstOrThrow();
  expect(page.items.find((i) => i.conversationId === chat.id)!.lastMessage?.id).toBe(one.id);
});

test("the member counter migration backfills each chat's count from its members", async () => {
  const app = server.app;
  const [a, b, c] = await makePeople(3);
  await createGroup(app, a!.id, "backfill", [b!.id, c!.id]);
  await openPrivateChat(app, a!.id, b!.id);
  await rerunMigrations(app.db, ["20261124194000_chat_member_count"]);
  expect(await memberCountMismatches()).toEqual([]);
  const counts = await app.db.selectFrom("conversations").select("member_count").execute();
  expect(counts.some((r) => Number(r.member_count) === 3)).toBe(true);
});
