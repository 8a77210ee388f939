/** Shapes of the reports API (/api/social/reports, /api/admin/reports) and the words the app uses for them. */
import type { PageInfo } from "./types";

export type ReportReason = "spam" | "abuse" | "illegal" | "other";
export type ReportAction = "dismiss" | "remove-content" | "block-posting" | "disable-account" | "disable-bot";
export type ReportTargetType = "post" | "comment" | "story" | "message" | "user" | "bot";

/** One of the person's own reports. */
export interface OwnReport {
  id: string;
  status: "open" | "resolved";
  target: { type: ReportTargetType; id: string; label: string };
  reason: ReportReason;
  comment: string | null;
  resolution: { action: ReportAction; resolvedAt: string } | null;
  createdAt: string;
}

export interface OwnReportPage {
  reports: OwnReport[];
  pageInfo: PageInfo;
}

/** The reports of one target in the moderation queue. */
export interface ReportGroup {
  status: "open" | "resolved";
  target: {
    type: ReportTargetType;
    id: string;
    label: string;
    present: boolean;
    text: string | null;
    media: Array<{ url?: string; kind?: string; mime?: string }>;
    context: { postId?: string; conversationId?: string; chatType?: string; messageId?: number } | null;
    account: {
      id: string;
      username: string;
      displayName: string;
      isBot: boolean;
      disabled: boolean;
      postingBlockedUntil: string | null;
    };
  };
  reportCount: number;
  reports: Array<{
    id: string;
    reporter: { username: string };
    reason: ReportReason;
    comment: string | null;
    createdAt: string;
  }>;
  resolution: {
    action: ReportAction;
    note: string | null;
    resolver: { username: string };
    resolvedAt: string | null;
  } | null;
  firstReportedAt: string;
  lastReportedAt: string;
}

export interface ReportGroupPage {
  groups: ReportGroup[];
  pageInfo: PageInfo;
}

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
