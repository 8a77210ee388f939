import { useCallback, useEffect, useState } from "preact/hooks";
import { Avatar } from "../../components/avatar";
import { FormError } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatRelative } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import { onRealtime } from "../../lib/realtime";
import type { Notification, NotificationPage } from "./types";
import { unreadCount } from "./unread";

const WHAT: Record<Notification["type"], string> = {
  like: "liked your post",
  comment: "commented on your post",
  reply: "replied to your comment",
  follow: "followed you",
  mention: "mentioned you",
  repost: "reposted your post",
  poll: "voted in your poll",
  report: "reviewed your report",
};

/** Where a notification leads: the post it is about, one's reports, or the person (a follow). */
const targetOf = (n: Notification) =>
  n.type === "report" ? "/settings#reports" : n.postId ? `/posts/${n.postId}` : `/users/${n.actor.username}`;

/** Notifications, newest first, paged by cursor; new ones arrive live; read one by one or all at once. */
export function Notifications() {
  const [onlyUnread, setOnlyUnread] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const load = useCallback(
    async (cursor: string | null) => {
      const page = await api.get<NotificationPage>("/social/notifications", {
        cursor,
        unread: onlyUnread || undefined,
      });
      unreadCount.value = page.unreadCount;
      return { items: page.notifications, nextCursor: page.pageInfo.nextCursor };
    },
    [onlyUnread],
  );
  const list = usePagedList<Notification>(onlyUnread ? "unread" : "all", load);

  useEffect(() => {
    const offNew = onRealtime("notification:new", ({ notification }) => {
      const n = notification as Notification;
      list.setItems((items) => [n, ...items.filter((x) => x.id !== n.id)]);
    });
    const offReset = onRealtime("stream:reset", () => void list.reload());
    return () => (offNew(), offReset());
  }, []);

  async function markRead(ids?: string[]) {
    setActionError(null);
    try {
      const r = await api.post<{ updated: number; unreadCount: number }>(
        "/social/notifications/read",
        ids ? { ids } : {},
      );
      unreadCount.value = r.unreadCount;
      const done = ids ? new Set(ids) : null;
      list.setItems((items) => items.map((n) => (!done || done.has(n.id) ? { ...n, read: true } : n)));
    } catch (err) {
      setActionError(describeError(err));
    }
  }

  const anyUnread = unreadCount.value > 0;
  return (
    <Page
      title="Notifications"
      actions={
        <button type="button" disabled={!anyUnread} onClick={() => void markRead()}>
          Mark all as read
        </button>
      }
    >
      <div class="segmented" role="group" aria-label="Which notifications">
        <button type="button" aria-pressed={!onlyUnread} onClick={() => setOnlyUnread(false)}>
          All
        </button>
        <button type="button" aria-pressed={onlyUnread} onClick={() => setOnlyUnread(true)}>
          Unread
        </button>
      </div>
      <FormError message={actionError} />
      {list.items.length > 0 && (
        <ul class="card notification-list" aria-label="Notifications">
          {list.items.map((n) => (
            <NotificationItem key={n.id} n={n} onRead={() => void markRead([n.id])} />
          ))}
        </ul>
      )}
      <ListFooter
        list={list}
        noun="notifications"
        empty={
          onlyUnread
            ? "Nothing unread. You are all caught up."
            : "No notifications yet. Likes, comments, mentions and new followers show up here."
        }
      />
    </Page>
  );
}

function NotificationItem({ n, onRead }: { n: Notification; onRead: () => void }) {
  // a resolved report is the administrators' doing, told by the instance's own account
  const fromInstance = n.type === "report";
  const name = fromInstance ? "The administrators" : n.actor.displayName || n.actor.username;
  return (
    <li class={n.read ? "notification" : "notification notification-unread"}>
      <Avatar user={n.actor} size={40} />
      <div class="notification-body">
        <p>
          {!n.read && <span class="visually-hidden">Unread: </span>}
          {fromInstance ? name : <a href={`/users/${n.actor.username}`}>{name}</a>}{" "}
          <a href={targetOf(n)} class="notification-what" onClick={() => !n.read && onRead()}>
            {WHAT[n.type] ?? n.type}
          </a>
        </p>
        <time class="muted" dateTime={n.createdAt} title={formatDateTime(n.createdAt)}>
          {formatRelative(n.createdAt)}
        </time>
      </div>
      {!n.read && (
        <button
          type="button"
          class="small"
          onClick={onRead}
          aria-label={`Mark read: ${name} ${WHAT[n.type] ?? n.type}`}
        >
          Mark read
        </button>
      )}
    </li>
  );
}
