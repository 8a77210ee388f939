import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api } from "../../lib/api";
import { CountBadge } from "../../components/count-badge";
import { onRealtime } from "../../lib/realtime";
import { takeStartUnread } from "../../lib/session";
import type { NotificationPage } from "./types";

/** How many notifications are unread: the header badge and the list screen share it. */
export const unreadCount = signal(0);

async function refreshUnread(): Promise<void> {
  try {
    const page = await api.get<NotificationPage>("/social/notifications", { limit: 1, unread: true });
    unreadCount.value = page.unreadCount;
  } catch {
    // the badge is a hint; the list screen shows errors where they happen
  }
}

/**
 * The unread count inside the header's Notifications link. It lives as long as the header
 * (signed in): it reads the count once, follows `notification:new`, and rereads after a
 * stream reset, when events may have been missed.
 */
export function UnreadBadge() {
  useEffect(() => {
    // the app's start brought the first count; asked again only when this badge comes later
    const known = takeStartUnread("notifications");
    if (known === undefined) void refreshUnread();
    else unreadCount.value = known;
    const offNew = onRealtime("notification:new", ({ unreadCount: n }) => (unreadCount.value = n));
    const offReset = onRealtime("stream:reset", () => void refreshUnread());
    return () => (offNew(), offReset());
  }, []);
  return <CountBadge count={unreadCount.value} noun="unread" />;
}
