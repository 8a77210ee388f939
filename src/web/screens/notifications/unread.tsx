import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api } from "../../lib/api";
import { CountBadge } from "../../components/count-badge";
import { onceConnected, onRealtime } from "../../lib/realtime";
import { takeStartUnread } from "../../lib/session";
import type { NotificationCounts, NotificationPage } from "../../lib/types";
import { t } from "../../lib/i18n";

/** How many notification groups are unread: the list screen's "Mark all as read" follows it. */
export const unreadCount = signal(0);
/** How many unread groups came since the list was last opened, in any window: the header badge. */
export const unseenCount = signal(0);

/** Takes the counts an answer or an event carries. */
export function setCounts(counts: NotificationCounts): void {
  unreadCount.value = counts.unreadCount;
  unseenCount.value = counts.unseenCount;
}

async function refreshCounts(): Promise<void> {
  try {
    setCounts(await api.get<NotificationPage>("/social/notifications", { limit: 1, unread: true }));
  } catch {
    // the badge is a hint; the list screen shows errors where they happen
  }
}

/**
 * The badge inside the header's Notifications link. It lives as long as the header (signed
 * in): it reads the counts once, follows `notification:new` and `notification:counts` (the list
 * opened or read in any window of mine), and rereads after a stream reset, when events may
 * have been missed.
 */
export function UnreadBadge() {
  useEffect(() => {
    // the app's start brought the first count; asked again only when this badge comes later
    const known = takeStartUnread("notifications");
    if (known === undefined) void refreshCounts();
    else unseenCount.value = known;
    const offs = [
      // what came between the start and the live connection: read once it is open
      known === undefined ? () => {} : onceConnected(() => void refreshCounts()),
      onRealtime("notification:new", setCounts),
      onRealtime("notification:counts", setCounts),
      onRealtime("stream:reset", () => void refreshCounts()),
    ];
    return () => offs.forEach((off) => off());
  }, []);
  return <CountBadge count={unseenCount.value} noun={t("notifications.badge", { count: unseenCount.value })} />;
}
