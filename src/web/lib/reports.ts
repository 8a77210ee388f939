/** The words the app uses for reports (/api/social/reports, /api/admin/reports). */
import type { ReportAction, ReportReason } from "./types";

export const REASON_LABEL: Record<ReportReason, string> = {
  spam: "Spam",
  abuse: "Abuse or harassment",
  illegal: "Illegal content",
  other: "Something else",
};

/** What the reporter is told an administrator did. */
export const OUTCOME: Record<ReportAction, string> = {
  dismiss: "Reviewed: no action was needed",
  "remove-content": "The content was removed",
  "block-posting": "The account may not post for a while",
  "disable-account": "The account was disabled",
  "disable-bot": "The bot was blocked",
};
