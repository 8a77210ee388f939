import type { PageInfo, PublicUser } from "../../lib/types";

/**
 * A notification group as GET /api/social/notifications and `notification:new` carry it: likes,
 * reposts and poll votes of one post, or follows, gathered while unread ("12 people liked your
 * post"); other kinds are a group of one.
 */
export interface Notification {
  id: string;
  type: "like" | "comment" | "reply" | "follow" | "mention" | "repost" | "poll" | "report";
  /** the latest of the group's people */
  actor: PublicUser;
  /** the group's latest people, newest first (a few) */
  actors: PublicUser[];
  /** how many people the group counts */
  count: number;
  postId: string | null;
  commentId: string | null;
  /** a "report" notification: the person's report, now resolved */
  reportId: string | null;
  read: boolean;
  /** the time of the group's latest event */
  createdAt: string;
}

/** unreadCount: unread groups; unseenCount: those with an event since the list was last opened (the badge). */
export interface NotificationCounts {
  unreadCount: number;
  unseenCount: number;
}

export interface NotificationPage extends NotificationCounts {
  notifications: Notification[];
  pageInfo: PageInfo;
}
