import { signal } from "@preact/signals";
import { t } from "../../lib/i18n";
import { useEffect } from "preact/hooks";
import { CountBadge } from "../../components/count-badge";
import { api } from "../../lib/api";
import { account, takeStartUnread } from "../../lib/session";
import type { ChatMessage } from "../../lib/types";
import { onceConnected, onRealtime } from "../../lib/realtime";

/** Chats with messages I have not read: the header's Messages badge. */
export const unreadChats = signal(0);

async function refreshUnreadChats(): Promise<void> {
  try {
    unreadChats.value = (await api.get<{ unreadChats: number }>("/social/messages/unread")).unreadChats;
  } catch {
    // the badge is a hint; the chat screens show errors where they happen
  }
}

/** A burst of events (a busy group, reading a long chat) asks the server once. */
const REFRESH_DELAY_MS = 300;

/**
 * The unread-chats count inside the header's Messages link. The server keeps each chat's
 * unread count on every message, hide and read, so the badge asks it again whenever someone
 * else's message arrives, a message is deleted or my read marker moves (in this tab or another),
 * and after a stream reset.
 */
export function UnreadChatsBadge() {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refreshSoon = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void refreshUnreadChats(), REFRESH_DELAY_MS);
    };
    // the app's start brought the first count; asked again only when this badge comes later
    const known = takeStartUnread("chats");
    if (known === undefined) void refreshUnreadChats();
    else unreadChats.value = known;
    const me = () => account.value?.id;
    const offs = [
      // what came between the start and the live connection: read once it is open
      known === undefined ? () => {} : onceConnected(() => void refreshUnreadChats()),
      // my own messages are never unread for me, and others' read markers do not move mine
      onRealtime("message:new", ({ message }) => (message as ChatMessage).sender.id !== me() && refreshSoon()),
      onRealtime("message:deleted", refreshSoon),
      onRealtime("message:read", ({ userId }) => userId === me() && refreshSoon()),
      onRealtime("chat:updated", refreshSoon),
      onRealtime("stream:reset", refreshSoon),
    ];
    return () => {
      clearTimeout(timer);
      for (const off of offs) off();
    };
  }, []);
  return <CountBadge count={unreadChats.value} noun={t("messages.list.unreadChats", { count: unreadChats.value })} />;
}
