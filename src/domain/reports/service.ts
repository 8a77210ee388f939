import { sql } from "kysely";
import { defineService, type App } from "../../app";
import type { Db } from "../../db";
import { rateLimiter } from "../../cluster/counters";
import { AppError, fieldError, notFound, rateLimited } from "../../lib/errors";
import { looksLikeCuid, newCuid } from "../../lib/ids";
import { pageOf, type Cursor } from "../../lib/paging";
import { newestFirstPage } from "../posts/keyset";
import { findVisiblePost } from "../posts/service";
import { findVisibleComment } from "../comments/service";
import { requireVisibleStory, STORY_TTL_MS } from "../stories/service";
import { findBotByUsername } from "../bots/service";
import { findUserByUsername } from "../users/service";
import { requireMembership, requireVisibleMessage } from "../chats/access";
import type { UserRow } from "../users/table";
import {
  REPORT_TARGET_TYPES,
  type ReportReason,
  type ReportRow,
  type ReportStatus,
  type ReportTargetType,
} from "./table";

const HOUR_MS = 3_600_000;
const reportLimiter = defineService("reports:limiter", (app) => rateLimiter(app, "reports"));

/** A target as a report names it: a cuid, or a username for a user or a bot. */
export interface ReportTargetRef {
  type: ReportTargetType;
  id: string;
}

/** What a report copies of its target when it is made. */
interface ReportedTarget {
  targetId: string;
  rowId: number;
  subjectId: number;
  /** the account that may not report the target: its author, or a bot's owner */
  ownerIds: number[];
  text: string | null;
  media: string | null;
  context: Record<string, unknown> | null;
}

const profileText = (u: Pick<UserRow, "display_name" | "bio">) =>
  u.bio ? `${u.display_name}\n${u.bio}` : u.display_name;

/**
 * The target REPORTER names, as they can see it; NOT_FOUND when they cannot (a blocked
 * author's post, a chat they are not in, a message hidden for them).
 */
const targetReaders: Record<ReportTargetType, (app: App, reporter: UserRow, id: string) => Promise<ReportedTarget>> = {
  post: async (app, reporter, id) => {
    const post = await findVisiblePost(app.db, reporter.id, id);
    return {
      targetId: post.cuid,
      rowId: post.id,
      subjectId: post.author_id,
      ownerIds: [post.author_id],
      text: post.content,
      media: post.images,
      context: null,
    };
  },
  comment: async (app, reporter, id) => {
    const { comment, post } = await findVisibleComment(app.db, reporter.id, id);
    return {
      targetId: comment.cuid,
      rowId: comment.id,
      subjectId: comment.author_id,
      ownerIds: [comment.author_id],
      text: comment.content,
      media: comment.media,
      context: { postId: post.cuid },
    };
  },
  story: async (app, reporter, id) => {
    const story = await requireVisibleStory(app.db, app.clock.now(), reporter.id, id);
    return {
      targetId: story.cuid,
      rowId: story.id,
      subjectId: story.author_id,
      ownerIds: [story.author_id],
      text: story.caption,
      media: JSON.stringify([{ url: story.media_url, kind: story.media_kind }]),
      context: null,
    };
  },
  message: async (app, reporter, id) => {
    const found = looksLikeCuid(id)
      ? await app.db
          .selectFrom("messages")
          .innerJoin("conversations", "conversations.id", "messages.conversation_id")
          .select(["messages.conversation_id", "conversations.cuid as conversationCuid", "conversations.type"])
          .where("messages.cuid", "=", id)
          .where("messages.deleted_at", "is", null)
          .executeTakeFirst()
      : undefined;
    if (!found) throw notFound("Message not found");
    let message;
    try {
      // a member of the chat, and the message not hidden for them: what they could read
      await requireMembership(app.db, found.conversation_id, reporter.id);
      message = await requireVisibleMessage(app.db, found.conversation_id, id, reporter.id);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) throw notFound("Message not found");
      throw err;
    }
    return {
      targetId: message.cuid,
      rowId: message.id,
      subjectId: message.sender_id,
      ownerIds: [message.sender_id],
      text: message.content,
      media: message.media,
      context: { conversationId: found.conversationCuid, chatType: found.type, messageId: message.seq },
    };
  },
  user: async (app, _reporter, username) => {
    const user = await findUserByUsername(app.db, username);
    if (!user || user.is_system) throw notFound(`User ${username} not found`);
    return {
      targetId: user.cuid,
      rowId: user.id,
      subjectId: user.id,
      ownerIds: [user.id],
      text: profileText(user),
      media: JSON.stringify([user.avatar_url, user.cover_url].filter((u) => u !== null).map((url) => ({ url }))),
      context: null,
    };
  },
  bot: async (app, _reporter, username) => {
    const found = await findBotByUsername(app.db, username);
    // as the bot's public profile: a bot blocked by moderation is not there
    if (!found || found.bot.blocked_at !== null) throw notFound("Bot not found");
    const { bot, user } = found;
    return {
      targetId: user.cuid,
      rowId: user.id,
      subjectId: user.id,
      ownerIds: [user.id, bot.owner_id],
      text: bot.description ? `${user.display_name}\n${bot.description}` : user.display_name,
      media: JSON.stringify(user.avatar_url ? [{ url: user.avatar_url }] : []),
      context: null,
    };
  },
};

export interface NewReport {
  target: ReportTargetRef;
  reason: ReportReason;
  comment?: string | null;
}

/**
 * Files REPORTER's report of a target they can see, copying what it shows now. The same
 * person reporting the same target again while it is open gets the same report back (and
 * spends none of their hourly budget, `limits.reportsPerHour`). Nobody reports themselves
 * or their own bot.
 */
export async function fileReport(app: App, reporter: UserRow, input: NewReport): Promise<ReportRow> {
  const target = await targetReaders[input.target.type](app, reporter, input.target.id);
  if (target.ownerIds.includes(reporter.id)) throw fieldError("target", "is your own: nobody reports themselves");
  const open = () =>
    app.db
      .selectFrom("reports")
      .selectAll()
      .where("reporter_id", "=", reporter.id)
      .where("target_type", "=", input.target.type)
      .where("target_row_id", "=", target.rowId)
      .where("status", "=", "open")
      .executeTakeFirst();
  const existing = await open();
  if (existing) return existing;
  const now = app.clock.now();
  const budget = await app.services
    .get(reportLimiter)
    .check(`report:${reporter.id}`, app.config["limits.reportsPerHour"], HOUR_MS, now);
  if (!budget.allowed) throw rateLimited(budget.retryAfter);
  const comment = input.comment?.trim() || null;
  const inserted = await app.db
    .insertInto("reports")
    .values({
      cuid: newCuid(),
      reporter_id: reporter.id,
      target_type: input.target.type,
      target_id: target.targetId,
      target_row_id: target.rowId,
      subject_id: target.subjectId,
      reason: input.reason,
      comment,
      snapshot_text: target.text,
      snapshot_media: target.media,
      context: target.context ? JSON.stringify(target.context) : null,
      created_at: now,
    })
    // the same report filed twice at once: the index of open reports keeps one, both get it
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted ?? (await open())!;
}

/** One page of REPORTER's own reports, newest first. */
export const reportsOfReporter = (db: Db, reporterId: number, page: { cursor: Cursor | null; limit: number }) =>
  newestFirstPage(db.selectFrom("reports").selectAll().where("reporter_id", "=", reporterId), page);

/** A report by its public id. */
export const findReportByCuid = (db: Db, cuid: string) =>
  db.selectFrom("reports").selectAll().where("cuid", "=", cuid).executeTakeFirst();

/**
 * The reports of one target taken up together: while open, every open report of it; once
 * resolved, the reports one resolution closed. Newest first.
 */
export interface ReportGroup {
  reports: ReportRow[];
}

/**
 * One page of report groups with STATUS, the group with the newest report first: an
 * administrator sees each target once, with all its reports.
 */
export async function reportGroupsPage(
  db: Db,
  status: ReportStatus,
  page: { cursor: Cursor | null; limit: number },
): Promise<{ items: ReportGroup[]; nextCursor: string | null }> {
  let q = db
    .selectFrom("reports")
    .select((eb) => [
      "target_type",
      "target_row_id",
      "resolved_at",
      eb.fn.max("created_at").as("t"),
      eb.fn.max("id").as("last_id"),
    ])
    .where("status", "=", status)
    .groupBy(["target_type", "target_row_id", "resolved_at"]);
  const c = page.cursor;
  if (c)
    q = q.having((eb) =>
      eb.or([
        eb(eb.fn.max("created_at"), "<", c.t),
        eb.and([eb(eb.fn.max("created_at"), "=", c.t), eb(eb.fn.max("id"), "<", c.id)]),
      ]),
    );
  const keys = await q
    .orderBy("t", "desc")
    .orderBy("last_id", "desc")
    .limit(page.limit + 1)
    .execute();
  const { items, nextCursor } = pageOf(keys, page.limit, (k) => ({ t: Number(k.t), id: Number(k.last_id) }));
  if (items.length === 0) return { items: [], nextCursor };
  const rows = await db
    .selectFrom("reports")
    .selectAll()
    .where("status", "=", status)
    .where((eb) =>
      eb.or(
        items.map((k) =>
          eb.and([
            eb("target_type", "=", k.target_type),
            eb("target_row_id", "=", k.target_row_id),
            eb("resolved_at", "is not distinct from", k.resolved_at),
          ]),
        ),
      ),
    )
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  const groupKey = (r: Pick<ReportRow, "target_type" | "target_row_id" | "resolved_at">) =>
    `${r.target_type}:${r.target_row_id}:${r.resolved_at ?? ""}`;
  const byKey = new Map<string, ReportRow[]>();
  for (const r of rows) {
    const list = byKey.get(groupKey(r));
    if (list) list.push(r);
    else byKey.set(groupKey(r), [r]);
  }
  return { items: items.map((k) => ({ reports: byKey.get(groupKey(k)) ?? [] })), nextCursor };
}

/** How many reports are open, and of how many targets (the admin area's badge). */
export async function countOpenReports(db: Db): Promise<{ reports: number; targets: number }> {
  const row = await db
    .selectFrom("reports")
    .select((eb) => [
      eb.fn.countAll<number>().as("reports"),
      // a target is its type and row: their pair, counted once
      sql<number>`count(distinct target_type || ':' || target_row_id)`.as("targets"),
    ])
    .where("status", "=", "open")
    .executeTakeFirstOrThrow();
  return { reports: Number(row.reports), targets: Number(row.targets) };
}

/** The accounts ROWS name (reporters, answerable accounts, resolvers), by id. */
export async function accountsOfReports(db: Db, rows: ReportRow[]): Promise<Map<number, UserRow>> {
  const ids = [
    ...new Set(rows.flatMap((r) => [r.reporter_id, r.subject_id, ...(r.resolver_id === null ? [] : [r.resolver_id])])),
  ];
  if (ids.length === 0) return new Map();
  const users = await db.selectFrom("users").selectAll().where("id", "in", ids).execute();
  return new Map(users.map((u) => [u.id, u]));
}

/** The key of a report's target: its type and row. */
export const targetKey = (r: Pick<ReportRow, "target_type" | "target_row_id">) => `${r.target_type}:${r.target_row_id}`;

/** Of IDS (rows of one target type), those still there: not removed, deleted, expired or blocked. */
const stillThere: Record<ReportTargetType, (app: App, ids: number[]) => Promise<Array<{ id: number }>>> = {
  post: (app, ids) => app.db.selectFrom("posts").select("id").where("id", "in", ids).execute(),
  comment: (app, ids) => app.db.selectFrom("comments").select("id").where("id", "in", ids).execute(),
  story: (app, ids) =>
    app.db
      .selectFrom("stories")
      .select("id")
      .where("id", "in", ids)
      .where("deleted_at", "is", null)
      .where("created_at", ">", app.clock.now() - STORY_TTL_MS)
      .execute(),
  message: (app, ids) =>
    app.db.selectFrom("messages").select("id").where("id", "in", ids).where("deleted_at", "is", null).execute(),
  user: (app, ids) =>
    app.db.selectFrom("users").select("id").where("id", "in", ids).where("deleted_at", "is", null).execute(),
  bot: (app, ids) =>
    app.db
      .selectFrom("bots")
      .select("user_id as id")
      .where("user_id", "in", ids)
      .where("blocked_at", "is", null)
      .execute(),
};

/** Which of the targets ROWS report are still there, by targetKey (one statement per target type). */
export async function presentTargets(app: App, rows: ReportRow[]): Promise<Set<string>> {
  const present = new Set<string>();
  for (const type of REPORT_TARGET_TYPES) {
    const ids = [...new Set(rows.filter((r) => r.target_type === type).map((r) => r.target_row_id))];
    if (ids.length === 0) continue;
    for (const found of await stillThere[type](app, ids)) present.add(`${type}:${found.id}`);
  }
  return present;
}
