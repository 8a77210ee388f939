import type { Generated, Selectable } from "kysely";

export const REPORT_TARGET_TYPES = ["post", "comment", "story", "message", "user", "bot"] as const;
export type ReportTargetType = (typeof REPORT_TARGET_TYPES)[number];

export const REPORT_REASONS = ["spam", "abuse", "illegal", "other"] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const REPORT_ACTIONS = ["dismiss", "remove-content", "block-posting", "disable-account", "disable-bot"] as const;
export type ReportAction = (typeof REPORT_ACTIONS)[number];

export type ReportStatus = "open" | "resolved";

/**
 * One person's report of one target. Reports of the same target open at the same time are
 * resolved together, by one administrator's action (the same resolution on each).
 */
export interface ReportsTable {
  id: Generated<number>;
  cuid: string;
  reporter_id: number;
  target_type: ReportTargetType;
  /** the target's public id: a cuid (the account's cuid for a user or a bot) */
  target_id: string;
  /** posts.id, comments.id, stories.id, messages.id or users.id */
  target_row_id: number;
  /** the account answerable for the target: author, sender, the account itself, the bot's account */
  subject_id: number;
  reason: ReportReason;
  comment: string | null;
  /** the target's text when reported (a profile: its name and bio) */
  snapshot_text: string | null;
  /** JSON array of the target's media references when reported */
  snapshot_media: string | null;
  /** JSON object: where the target was ({postId} of a comment, {conversationId, messageId} of a message) */
  context: string | null;
  status: Generated<ReportStatus>;
  resolution_action: ReportAction | null;
  resolution_note: string | null;
  resolver_id: number | null;
  resolved_at: number | null;
  created_at: number;
}

export type ReportRow = Selectable<ReportsTable>;

export interface ReportsTables {
  reports: ReportsTable;
}
