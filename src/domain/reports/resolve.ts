import type { App } from "../../app";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { audited, type AdminAction } from "../admin/audit";
import { setAccountDisabled } from "../admin/accounts";
import { findBotByUserId, setBotBlocked } from "../bots/service";
import { recheckLongPolls } from "../bots/updates";
import { wipeMessageForEveryone } from "../chats/messages";
import { excerpt, findContent, removalAuditEntry, removeContent, type ContentKind } from "../moderation/content";
import { MAX_POSTING_BLOCK_MINUTES, setPostingBlockedUntil } from "../moderation/service";
import { notify } from "../notifications/service";
import { ensureSystemAccount } from "../users/system";
import type { UserRow } from "../users/table";
import { findReportByCuid } from "./service";
import type { ReportAction, ReportRow } from "./table";

export interface Resolution {
  action: ReportAction;
  /** block-posting: how long */
  minutes?: number;
  /** for administrators: why (shown in the queue and the audit log, not to the reporter) */
  note?: string | null;
}

type Actor = Pick<UserRow, "id" | "username">;

const CONTENT_KINDS = new Set<string>(["post", "comment", "story"]);

/** The report's answerable account, which the actions act on. */
async function subjectOf(app: App, report: ReportRow): Promise<UserRow> {
  const user = await app.db.selectFrom("users").selectAll().where("id", "=", report.subject_id).executeTakeFirst();
  if (!user) throw notFound("The reported account is gone");
  return user;
}

/**
 * Checks that ACTION can be taken on REPORT's target, and returns the audit entry of its
 * effect and the effect itself (none for dismiss). Nothing is changed here.
 */
async function planEffect(
  app: App,
  actor: Actor,
  report: ReportRow,
  subject: UserRow,
  r: Resolution,
): Promise<{ entry: AdminAction | null; apply: () => Promise<Record<string, unknown>> }> {
  if (r.minutes !== undefined && r.action !== "block-posting") throw fieldError("minutes", "is only for block-posting");
  const account = { type: "account" as const, id: subject.cuid, label: `@${subject.username}` };
  const personOnly = () => {
    if (subject.is_bot) throw fieldError("action", "does not apply to a bot: use disable-bot");
    if (subject.is_system) throw fieldError("action", "does not apply to the instance's own account");
  };
  switch (r.action) {
    case "dismiss":
      return { entry: null, apply: async () => ({}) };
    case "remove-content": {
      if (CONTENT_KINDS.has(report.target_type)) {
        const item = await findContent(app, report.target_type as ContentKind, report.target_id);
        // already gone (deleted by its author, expired): nothing left to remove
        if (!item) return { entry: null, apply: async () => ({ alreadyGone: true }) };
        return {
          entry: removalAuditEntry(item, subject.username),
          apply: async () => (await removeContent(app, item), {}),
        };
      }
      if (report.target_type === "message") {
        const message = await app.db
          .selectFrom("messages")
          .innerJoin("conversations", "conversations.id", "messages.conversation_id")
          .select([
            "messages.id",
            "messages.cuid",
            "messages.content",
            "messages.media",
            "messages.extra",
            "messages.invoice",
            "conversations.id as cid",
            "conversations.cuid as ccuid",
          ])
          .where("messages.id", "=", report.target_row_id)
          .where("messages.deleted_at", "is", null)
          .executeTakeFirst();
        if (!message) return { entry: null, apply: async () => ({ alreadyGone: true }) };
        return {
          entry: {
            action: "message.remove",
            target: { type: "message", id: message.cuid, label: `@${subject.username}: ${excerpt(message.content)}` },
            details: { author: subject.username, conversationId: message.ccuid },
          },
          apply: async () => (await wipeMessageForEveryone(app, { id: message.cid, cuid: message.ccuid }, message), {}),
        };
      }
      throw fieldError("action", "applies to posts, comments, stories and messages only");
    }
    case "block-posting": {
      const minutes = r.minutes;
      if (minutes === undefined || !Number.isInteger(minutes) || minutes < 1 || minutes > MAX_POSTING_BLOCK_MINUTES)
        throw fieldError("minutes", `must be an integer from 1 to ${MAX_POSTING_BLOCK_MINUTES}`);
      personOnly();
      return {
        entry: { action: "account.block-posting", target: account, details: { minutes } },
        apply: async () => {
          const now = app.clock.now();
          await setPostingBlockedUntil(app.db, now, subject.id, now + minutes * 60_000);
          return {};
        },
      };
    }
    case "disable-account":
      personOnly();
      if (subject.id === actor.id) throw fieldError("action", "is your own account: you cannot disable it");
      return {
        entry: { action: "account.disable", target: account },
        apply: async () => setAccountDisabled(app, subject.id, true),
      };
    case "disable-bot": {
      const found = subject.is_bot ? await findBotByUserId(app.db, subject.id) : null;
      if (!found) throw fieldError("action", "applies to bots and what they sent only");
      return {
        entry: { action: "bot.block", target: { type: "bot", id: found.bot.cuid, label: `@${subject.username}` } },
        apply: async () => {
          await setBotBlocked(app, found.bot.id, true);
          // a getUpdates already waiting for the bot ends now, not when it times out
          await recheckLongPolls(app);
          return {};
        },
      };
    }
  }
}

/**
 * Resolves the report REPORT_ID and every other open report of its target with one action,
 * taken through the same domain functions as the admin area's own (remove content, block
 * posting, disable an account, block a bot). The resolution and its effect are in the audit
 * log under ACTOR (the system account for the command line); each reporter is notified.
 * A report already resolved is 409 REPORT_RESOLVED.
 */
export async function resolveReport(
  app: App,
  actor: Actor | null,
  reportId: string,
  r: Resolution,
): Promise<ReportRow[]> {
  const report = await findReportByCuid(app.db, reportId);
  if (!report) throw notFound("Report not found");
  if (report.status !== "open") throw alreadyResolved();
  const system = await ensureSystemAccount(app.db, app.clock.now());
  const by = actor ?? system;
  const note = r.note?.trim() || null;
  const subject = await subjectOf(app, report);
  const effect = await planEffect(app, by, report, subject, r);
  const main: AdminAction = {
    action: "report.resolve",
    target: { type: "report", id: report.cuid, label: `${report.target_type} of @${subject.username}` },
    details: {
      action: r.action,
      ...(r.minutes !== undefined ? { minutes: r.minutes } : {}),
      ...(note ? { note } : {}),
      target: { type: report.target_type, id: report.target_id },
    },
  };
  const now = app.clock.now();
  const { closed } = await audited(
    app.db,
    now,
    by,
    effect.entry ? [main, effect.entry] : [main],
    async () => {
      // claimed first, in one statement: of two administrators resolving at once, one acts
      const closed = await app.db
        .updateTable("reports")
        .set({
          status: "resolved",
          resolution_action: r.action,
          resolution_note: note,
          resolver_id: by.id,
          resolved_at: now,
        })
        .where("status", "=", "open")
        .where("target_type", "=", report.target_type)
        .where("target_row_id", "=", report.target_row_id)
        .returningAll()
        .execute();
      if (!closed.some((c) => c.id === report.id)) throw alreadyResolved();
      let outcome: Record<string, unknown>;
      try {
        outcome = await effect.apply();
      } catch (err) {
        await app.db
          .updateTable("reports")
          .set({ status: "open", resolution_action: null, resolution_note: null, resolver_id: null, resolved_at: null })
          .where(
            "id",
            "in",
            closed.map((c) => c.id),
          )
          .execute();
        throw err;
      }
      return { closed, outcome };
    },
    (done) => ({ details: { ...main.details, reports: done.closed.length, ...done.outcome } }),
  );
  for (const c of closed)
    await notify(app, { recipientId: c.reporter_id, actorId: system.id, type: "report", reportId: c.id });
  return closed;
}

const alreadyResolved = () => new AppError(409, "REPORT_RESOLVED", "The report is already resolved");
