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
  /** the group the recipient sees it in (read state and counts live there; the table's read_at column is left to older binaries) */
  group_id: number | null;
  created_at: number;
}

/**
 * What a recipient sees in their list: events of one kind about one thing, grouped while unread
 * ("12 people liked your post"); kinds that do not group are a group of one. actor_count is
 * kept by triggers on notifications, and each recipient's unread groups in notification_counts.
 */
export interface NotificationGroupsTable {
  id: Generated<number>;
  cuid: string;
  recipient_id: number;
  type: NotificationType;
  /** what a new event joins while the group is unread (see groupKeyOf) */
  group_key: string;
  post_id: number | null;
  comment_id: number | null;
  report_id: number | null;
  actor_count: Generated<number>;
  read_at: number | null;
  /** the time of its latest event: the list's order */
  updated_at: number;
  created_at: number;
}

/** A person's unread groups, kept by triggers on notification_groups, and when they last opened the list. */
export interface NotificationCountsTable {
  recipient_id: number;
  unread: Generated<number>;
  /** the time the person last opened their notifications (0: never): the badge counts unread groups after it */
  seen_at: Generated<number>;
  /** unread groups with an event after seen_at (triggers keep it) */
  unseen: Generated<number>;
  /** one more on every change of what a page of the recipient's notifications shows (triggers: 20261205100300) */
  version: Generated<number>;
}

export type NotificationRow = Selectable<NotificationsTable>;
export type NotificationGroupRow = Selectable<NotificationGroupsTable>;

export interface NotificationsTables {
  notifications: NotificationsTable;
  notification_groups: NotificationGroupsTable;
  notification_counts: NotificationCountsTable;
}
