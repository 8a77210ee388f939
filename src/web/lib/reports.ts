/** Shapes of the reports API (/api/social/reports, /api/admin/reports) and the words the app uses for them. */
import type { PageInfo } from "./types";
import { t } from "./i18n";

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

/** Each reason's name, read in the shown language (each entry is a getter). */
export const REASON_LABEL: Readonly<Record<ReportReason, string>> = {
  get spam() {
    return t("common.report.reasons.spam");
  },
  get abuse() {
    return t("common.report.reasons.abuse");
  },
  get illegal() {
    return t("common.report.reasons.illegal");
  },
  get other() {
    return t("common.report.reasons.other");
  },
};

/** What the reporter is told an administrator did (in the shown language, as REASON_LABEL). */
export const OUTCOME: Readonly<Record<ReportAction, string>> = {
  get dismiss() {
    return t("common.report.outcome.dismiss");
  },
  get "remove-content"() {
    return t("common.report.outcome.removeContent");
  },
  get "block-posting"() {
    return t("common.report.outcome.blockPosting");
  },
  get "disable-account"() {
    return t("common.report.outcome.disableAccount");
  },
  get "disable-bot"() {
    return t("common.report.outcome.disableBot");
  },
};
