import type { App } from "../../app";
import type { Db } from "../../db";
import { inTransaction } from "../../db/transaction";
import { PermanentJobError, enqueueJob, type JobHandler } from "../../jobs/queue";
import { mailerFor, sendMail } from "../auth/notify";
import { isActiveRole } from "../chats/table";
import { storeNotificationSettings } from "../push/service";
import { MAIL_DATE, textFor, type ServerText } from "../users/language";

/*
 * "E-mail when away": a person who switched it on and has not been seen (no request from any
 * of their sessions) for mail.digestAfterHours gets one mail of the messages and mentions they
 * have not read since they were last seen. Housekeeping looks for such people on every node
 * and queues one digest job per person (keyed, so nodes looking at once queue one); the job
 * marks the absence as told and queues the mail in one transaction, under a condition only one
 * run can meet, so however many nodes or retries there are one absence gets one digest.
 */

/** The job kind of one person's digest (its payload: {userId}). */
export const EMAIL_DIGEST_JOB = "mail:digest";

const HOUR_MS = 3_600_000;
/** People looked at per housekeeping run; the rest wait for the next. */
const SCAN_BATCH = 500;
/** Chats and mentions a mail lists; the rest are counted. */
const LISTED = 10;
const EXCERPT_CHARS = 120;
const SENDERS_NAMED = 3;

export interface EmailSettings {
  digest: boolean;
}

/** The account's e-mail settings (the digest is off until switched on). */
export async function getEmailSettings(db: Db, userId: number): Promise<EmailSettings> {
  const row = await db
    .selectFrom("notification_settings")
    .select("email_digest")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return { digest: row?.email_digest === 1 };
}

/** Stores the changed e-mail settings (absent ones keep their value) and returns the result. */
export async function updateEmailSettings(
  db: Db,
  now: number,
  userId: number,
  patch: Partial<EmailSettings>,
): Promise<EmailSettings> {
  const next = { ...(await getEmailSettings(db, userId)), ...patch };
  await storeNotificationSettings(db, now, userId, { email_digest: next.digest ? 1 : 0 });
  return next;
}

export interface DigestChat {
  title: string;
  /** display names of those who wrote, the most recent first */
  senders: string[];
  count: number;
  /** the latest message's text, cut short ("" when it has none) */
  excerpt: string;
  /** the latest message has no text, only an attachment */
  attachmentOnly: boolean;
}

export interface DigestMention {
  actor: string;
  excerpt: string;
}

export interface Digest {
  chats: DigestChat[];
  /** unread messages in all chats, the unlisted ones included */
  messageCount: number;
  chatCount: number;
  mentions: DigestMention[];
  mentionCount: number;
}

const excerptOf = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS - 1)}…` : flat;
};

/** When USERID was last seen: the latest request of any of their sessions, or null for never. */
async function lastSeenAt(db: Db, userId: number): Promise<number | null> {
  const row = await db
    .selectFrom("sessions")
    .select((eb) => eb.fn.max("last_seen_at").as("seen"))
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.seen === null || row?.seen === undefined ? null : Number(row.seen);
}

/**
 * What USERID has not read of what came after SINCE: messages of others in their chats (past
 * their read mark, not hidden from them, not deleted) and mentions whose notification they
 * have not opened.
 */
export async function collectDigest(db: Db, userId: number, since: number): Promise<Digest> {
  const unreadByChat = await db
    .selectFrom("conversation_members as cm")
    .innerJoin("messages as m", (j) =>
      j.onRef("m.conversation_id", "=", "cm.conversation_id").onRef("m.seq", ">", "cm.last_read_seq"),
    )
    .innerJoin("conversations as c", "c.id", "cm.conversation_id")
    .select((eb) => [
      "c.id as conversationId",
      "c.title",
      eb.fn.countAll<number>().as("count"),
      eb.fn.max("m.created_at").as("latest"),
    ])
    .where("cm.user_id", "=", userId)
    .where(isActiveRole("cm.role"))
    .where("m.sender_id", "!=", userId)
    .where("m.kind", "=", "user")
    .where("m.deleted_at", "is", null)
    .where("m.created_at", ">", since)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("message_hidden as h")
            .select("h.message_id")
            .whereRef("h.message_id", "=", "m.id")
            .where("h.user_id", "=", userId),
        ),
      ),
    )
    .groupBy(["c.id", "c.title"])
    .orderBy("latest", "desc")
    .execute();

  const chats: DigestChat[] = [];
  for (const chat of unreadByChat.slice(0, LISTED)) {
    const recent = await db
      .selectFrom("conversation_members as cm")
      .innerJoin("messages as m", (j) =>
        j.onRef("m.conversation_id", "=", "cm.conversation_id").onRef("m.seq", ">", "cm.last_read_seq"),
      )
      .innerJoin("users as u", "u.id", "m.sender_id")
      .select(["u.display_name", "u.username", "m.content", "m.media"])
      .where("cm.user_id", "=", userId)
      .where("cm.conversation_id", "=", chat.conversationId)
      .where("m.sender_id", "!=", userId)
      .where("m.kind", "=", "user")
      .where("m.deleted_at", "is", null)
      .where("m.created_at", ">", since)
      .orderBy("m.seq", "desc")
      .limit(50)
      .execute();
    const senders = [...new Set(recent.map((r) => r.display_name || r.username))];
    const latest = recent[0];
    chats.push({
      title: chat.title ?? senders.join(", "),
      senders: senders.slice(0, SENDERS_NAMED),
      count: Number(chat.count),
      excerpt: latest ? excerptOf(latest.content) : "",
      attachmentOnly: !!latest && !latest.content.trim() && !!latest.media,
    });
  }

  const mentionRows = await db
    .selectFrom("notifications as n")
    .innerJoin("notification_groups as g", "g.id", "n.group_id")
    .innerJoin("users as a", "a.id", "n.actor_id")
    .leftJoin("posts as p", "p.id", "n.post_id")
    .leftJoin("comments as k", "k.id", "n.comment_id")
    .select(["a.display_name", "a.username", "p.content as postContent", "k.content as commentContent"])
    .where("n.recipient_id", "=", userId)
    .where("n.type", "=", "mention")
    .where("n.created_at", ">", since)
    .where("g.read_at", "is", null)
    .orderBy("n.created_at", "desc")
    .orderBy("n.id", "desc")
    .execute();

  return {
    chats,
    chatCount: unreadByChat.length,
    messageCount: unreadByChat.reduce((sum, c) => sum + Number(c.count), 0),
    mentions: mentionRows.slice(0, LISTED).map((r) => ({
      actor: r.display_name || r.username,
      excerpt: excerptOf(r.commentContent ?? r.postContent ?? ""),
    })),
    mentionCount: mentionRows.length,
  };
}

/**
 * The digest as a plain-text mail to TO in the person's language (T), with a link to the app
 * and to the setting that stops it; SINCE: when they were last seen.
 */
export function digestMail(app: App, t: ServerText, to: string, digest: Digest, since: number) {
  const base = app.config.baseUrl;
  const parts: string[] = [];
  if (digest.messageCount)
    parts.push(
      t("mail.digest.messagesInChats", {
        messages: t("mail.digest.unreadMessages", { count: digest.messageCount }),
        chats: t("mail.digest.inChats", { count: digest.chatCount }),
      }),
    );
  if (digest.mentionCount) parts.push(t("mail.digest.mentions", { count: digest.mentionCount }));
  const summary = parts.length === 2 ? t("mail.digest.both", { first: parts[0], second: parts[1] }) : parts[0]!;
  const lines = [t("mail.digest.intro", { summary, since: new Date(since), formatParams: { since: MAIL_DATE } }), ""];
  if (digest.chats.length) {
    lines.push(t("mail.digest.messagesHeading"), "");
    for (const chat of digest.chats) {
      const senders = chat.senders.join(", ");
      lines.push(
        chat.title === senders
          ? t("mail.digest.chatMessages", { chat: chat.title, count: chat.count })
          : t("mail.digest.chatMessagesFrom", { chat: chat.title, count: chat.count, senders }),
      );
      const excerpt = chat.excerpt || (chat.attachmentOnly ? t("mail.digest.attachment") : "");
      if (excerpt) lines.push(`  "${excerpt}"`);
    }
    if (digest.chatCount > digest.chats.length)
      lines.push(t("mail.digest.moreChats", { count: digest.chatCount - digest.chats.length }));
    lines.push("", t("mail.digest.readThem", { link: `${base}/dashboard/messages` }), "");
  }
  if (digest.mentions.length) {
    lines.push(t("mail.digest.mentionsHeading"), "");
    for (const m of digest.mentions) lines.push(m.excerpt ? `${m.actor}: "${m.excerpt}"` : m.actor);
    if (digest.mentionCount > digest.mentions.length)
      lines.push(t("mail.digest.moreMentions", { count: digest.mentionCount - digest.mentions.length }));
    lines.push("", t("mail.digest.seeThem", { link: `${base}/notifications` }), "");
  }
  lines.push(t("mail.digest.why"), t("mail.digest.stop", { link: `${base}/settings` }), "");
  return {
    to,
    subject: t("mail.digest.subject", { instance: app.config["instance.name"], summary }),
    text: lines.join("\n"),
    logFields: { kind: "email-digest" },
  };
}

const isEmpty = (d: Digest) => d.messageCount === 0 && d.mentionCount === 0;

/**
 * Housekeeping: queues a digest job for each person who wants one, has been away for
 * mail.digestAfterHours, has not had one for this absence and has something unread since.
 * Nothing without an SMTP server. Returns the jobs queued.
 */
export async function queueEmailDigests(app: App): Promise<number> {
  if (!mailerFor(app).usesSmtp) return 0;
  const awayBefore = app.clock.now() - app.config["mail.digestAfterHours"] * HOUR_MS;
  const candidates = await app.db
    .selectFrom("notification_settings as s")
    .innerJoin("users as u", "u.id", "s.user_id")
    .select((eb) => [
      "s.user_id as userId",
      "s.email_digest_sent_at as sentAt",
      eb
        .selectFrom("sessions as x")
        .select((x) => x.fn.max("x.last_seen_at").as("m"))
        .whereRef("x.user_id", "=", "s.user_id")
        .as("seen"),
    ])
    .where("s.email_digest", "=", 1)
    .where("u.email", "is not", null)
    .where("u.email_verified_at", "is not", null)
    .where("u.disabled_at", "is", null)
    .where("u.deleted_at", "is", null)
    .orderBy("s.user_id")
    .execute();
  let queued = 0;
  for (const c of candidates) {
    if (queued >= SCAN_BATCH) break;
    const seen = c.seen === null ? null : Number(c.seen);
    if (seen === null || seen >= awayBefore) continue;
    // this absence was told already
    if (c.sentAt !== null && Number(c.sentAt) >= seen) continue;
    if (isEmpty(await collectDigest(app.db, c.userId, seen))) continue;
    const id = await inTransaction(app.storage, (scope) =>
      enqueueJob(scope, EMAIL_DIGEST_JOB, { userId: c.userId }, { key: String(c.userId) }),
    );
    if (id !== null) queued++;
  }
  return queued;
}

/**
 * Sends one person's digest: in one transaction, marks this absence as told (only if no run
 * did since they were last seen) and queues the mail, so the mail goes exactly when the mark
 * is written. Someone seen again, opted out or with nothing left unread gets nothing.
 */
export const emailDigestJobHandler: JobHandler = {
  kind: EMAIL_DIGEST_JOB,
  maxAttempts: 3,
  async handle(payload, { app }) {
    const userId = (payload as { userId?: unknown } | null)?.userId;
    if (typeof userId !== "number") throw new PermanentJobError("not a digest: userId is required");
    await inTransaction(app.storage, async (scope) => {
      const seen = await lastSeenAt(scope.db, userId);
      const awayBefore = app.clock.now() - app.config["mail.digestAfterHours"] * HOUR_MS;
      if (seen === null || seen >= awayBefore) return;
      const user = await scope.db
        .selectFrom("users")
        .select(["email", "email_verified_at", "disabled_at", "deleted_at", "language"])
        .where("id", "=", userId)
        .executeTakeFirst();
      if (!user?.email || user.email_verified_at === null || user.disabled_at !== null || user.deleted_at !== null)
        return;
      const digest = await collectDigest(scope.db, userId, seen);
      if (isEmpty(digest)) return;
      const claimed = await scope.db
        .updateTable("notification_settings")
        .set({ email_digest_sent_at: app.clock.now() })
        .where("user_id", "=", userId)
        .where("email_digest", "=", 1)
        .where((eb) => eb.or([eb("email_digest_sent_at", "is", null), eb("email_digest_sent_at", "<", seen)]))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return;
      await sendMail(app, scope, digestMail(app, await textFor(user.language), user.email, digest, seen));
    });
  },
};
