import type { App } from "../../app";
import { accountsOfReports, presentTargets, targetKey, type ReportGroup } from "../../domain/reports/service";
import type { ReportRow } from "../../domain/reports/table";
import type { UserRow } from "../../domain/users/table";
import { toIso } from "../../lib/clock";

const LABEL: Record<ReportRow["target_type"], string> = {
  post: "Post",
  comment: "Comment",
  story: "Story",
  message: "Message",
  user: "Profile",
  bot: "Bot",
};

/** How a person recognises what was reported: "Post by @ann", "Profile of @bob". */
function targetLabel(r: ReportRow, subject: UserRow | undefined): string {
  const who = `@${subject?.username ?? "deleted"}`;
  return r.target_type === "user" || r.target_type === "bot"
    ? `${LABEL[r.target_type]} ${who}`
    : `${LABEL[r.target_type]} by ${who}`;
}

/** The id a client names the target by: a cuid, or the account's username for a user or a bot. */
const publicTargetId = (r: ReportRow, subject: UserRow | undefined) =>
  (r.target_type === "user" || r.target_type === "bot") && subject ? subject.username : r.target_id;

/** ROWS as their reporter sees them (the resolution's action, not the administrators' note). */
export async function serializeOwnReports(app: App, rows: ReportRow[]) {
  const accounts = await accountsOfReports(app.db, rows);
  return rows.map((r) => {
    const subject = accounts.get(r.subject_id);
    return {
      id: r.cuid,
      status: r.status,
      target: { type: r.target_type, id: publicTargetId(r, subject), label: targetLabel(r, subject) },
      reason: r.reason,
      comment: r.comment,
      resolution:
        r.status === "resolved" && r.resolution_action && r.resolved_at !== null
          ? { action: r.resolution_action, resolvedAt: toIso(r.resolved_at) }
          : null,
      createdAt: toIso(r.created_at),
    };
  });
}

const parsed = <T>(json: string | null, fallback: T): T => (json === null ? fallback : (JSON.parse(json) as T));

/** GROUPS as the moderation queue shows them. */
export async function serializeReportGroups(app: App, groups: ReportGroup[]) {
  const rows = groups.flatMap((g) => g.reports);
  const accounts = await accountsOfReports(app.db, rows);
  const present = await presentTargets(app, rows);
  return groups.flatMap((g) => {
    const newest = g.reports[0];
    if (!newest) return [];
    const oldest = g.reports[g.reports.length - 1]!;
    const subject = accounts.get(newest.subject_id);
    const resolver = newest.resolver_id === null ? undefined : accounts.get(newest.resolver_id);
    return [
      {
        status: newest.status,
        target: {
          type: newest.target_type,
          id: publicTargetId(newest, subject),
          label: targetLabel(newest, subject),
          present: present.has(targetKey(newest)),
          text: newest.snapshot_text,
          media: parsed<Array<Record<string, unknown>>>(newest.snapshot_media, []),
          context: parsed<Record<string, unknown> | null>(newest.context, null),
          account: {
            id: subject?.cuid ?? "",
            username: subject?.username ?? "deleted",
            displayName: subject?.display_name ?? "Deleted account",
            isBot: subject?.is_bot === 1,
            disabled: subject?.disabled_at !== null,
            postingBlockedUntil:
              subject?.posting_blocked_until && subject.posting_blocked_until > app.clock.now()
                ? toIso(subject.posting_blocked_until)
                : null,
          },
        },
        reportCount: g.reports.length,
        reports: g.reports.map((r) => ({
          id: r.cuid,
          reporter: { username: accounts.get(r.reporter_id)?.username ?? "deleted" },
          reason: r.reason,
          comment: r.comment,
          createdAt: toIso(r.created_at),
        })),
        resolution:
          newest.status === "resolved" && newest.resolution_action
            ? {
                action: newest.resolution_action,
                note: newest.resolution_note,
                resolver: { username: resolver?.username ?? "deleted" },
                resolvedAt: newest.resolved_at === null ? null : toIso(newest.resolved_at),
              }
            : null,
        firstReportedAt: toIso(oldest.created_at),
        lastReportedAt: toIso(newest.created_at),
      },
    ];
  });
}
