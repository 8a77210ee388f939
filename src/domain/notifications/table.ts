import type { Generated, Selectable } from "kysely";

export const NOTIFICATION_TYPES = [
  "like",
  "comment",
  "reply",
  "follow",
  "mention",
  "repost",
  "poll",
  "report",
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface NotificationsTable {
  id: Generated<number>;
  cuid: string;
  recipient_id: number;
  actor_id: number;
  type: NotificationType;
  /** posts.id / comments.id of the social feature; plain integers, no foreign key */
  post_id: number | null;
  comment_id: number | null;
  /** reports.id of a "report" notification: the reporter's report was resolved */
  report_id: number | null;
  read_at: number | null;
  created_at: number;
}

export type NotificationRow = Selectable<NotificationsTable>;

export interface NotificationsTables {
  notifications: NotificationsTable;
}
