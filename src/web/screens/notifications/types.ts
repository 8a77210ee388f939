import type { PageInfo, PublicUser } from "../../lib/types";

/** A notification as GET /api/social/notifications and `notification:new` carry it. */
export interface Notification {
  id: string;
  type: "like" | "comment" | "reply" | "follow" | "mention" | "repost" | "poll" | "report";
  actor: PublicUser;
  postId: string | null;
  commentId: string | null;
  /** a "report" notification: the person's report, now resolved */
  reportId: string | null;
  read: boolean;
  createdAt: string;
}

export interface NotificationPage {
  notifications: Notification[];
  unreadCount: number;
  pageInfo: PageInfo;
}
