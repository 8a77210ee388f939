import { useCallback, useEffect, useState } from "preact/hooks";
import { Avatar } from "../../components/avatar";
import { FormError } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatRelative } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import { onRealtime } from "../../lib/realtime";
import type { Notification, NotificationCounts, NotificationPage } from "../../lib/types";
import { setCounts, unreadCount } from "./unread";
import { t } from "../../lib/i18n";
import { Sentence } from "../../components/sentence";

const TYPES = new Set(["like", "comment", "reply", "follow", "mention", "repost", "poll", "report"]);
/** What happened, the words of the notification's link ("liked your post"). */
const whatOf = (type: Notification["type"]) => (TYPES.has(type) ? t(`notifications.what.${type}`) : type);

/** Where a notification leads: the post it is about, one's reports, or the person (a follow). */
const targetOf = (n: Notification) =>
  n.type === "report" ? "/settings#reports" : n.postId ? `/posts/${n.postId}` : `/users/${n.actor.username}`;

/**
 * Notifications, newest first, paged by cursor, grouped as the server keeps them ("Ann and 2
 * others liked your post"); new ones and groups that grow arrive live and move to the top;
 * read one by one or all at once. Opening it clears the header's badge; what is unread stays
 * marked here until read.
 */
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

  // the list open in view is the person seeing their notifications: the badge clears (in every
  // window of theirs), and what arrives while they look is seen too; each stays unread until read
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const markSeen = () => {
      if (document.visibilityState !== "visible") return;
      clearTimeout(timer);
      // a burst of arrivals is one call
      timer = setTimeout(() => {
        api.post<NotificationCounts>("/social/notifications/seen").then(setCounts, () => undefined);
      }, 100);
    };
    markSeen();
    const offNew = onRealtime("notification:new", ({ notification }) => {
      const n = notification as Notification;
      list.setItems((items) => [n, ...items.filter((x) => x.id !== n.id)]);
      markSeen();
    });
    const offReset = onRealtime("stream:reset", () => void list.reload());
    document.addEventListener("visibilitychange", markSeen);
    return () => {
      clearTimeout(timer);
      offNew();
      offReset();
      document.removeEventListener("visibilitychange", markSeen);
    };
  }, []);

  async function markRead(ids?: string[]) {
    setActionError(null);
    try {
      const r = await api.post<{ updated: number } & NotificationCounts>(
        "/social/notifications/read",
        ids ? { ids } : {},
      );
      setCounts(r);
      const done = ids ? new Set(ids) : null;
      list.setItems((items) => items.map((n) => (!done || done.has(n.id) ? { ...n, read: true } : n)));
    } catch (err) {
      setActionError(describeError(err));
    }
  }

  const anyUnread = unreadCount.value > 0;
  return (
    <Page
      title={t("nav.notifications")}
      actions={
        <button type="button" disabled={!anyUnread} onClick={() => void markRead()}>
          {t("notifications.markAll")}
        </button>
      }
    >
      <div class="segmented" role="group" aria-label={t("notifications.which")}>
        <button type="button" aria-pressed={!onlyUnread} onClick={() => setOnlyUnread(false)}>
          {t("notifications.all")}
        </button>
        <button type="button" aria-pressed={onlyUnread} onClick={() => setOnlyUnread(true)}>
          {t("notifications.unread")}
        </button>
      </div>
      <FormError message={actionError} />
      {list.items.length > 0 && (
        <ul class="card notification-list" aria-label={t("nav.notifications")}>
          {list.items.map((n) => (
            <NotificationItem key={n.id} n={n} onRead={() => void markRead([n.id])} />
          ))}
        </ul>
      )}
      <ListFooter
        list={list}
        noun={t("notifications.noun")}
        empty={onlyUnread ? t("notifications.emptyUnread") : t("notifications.empty")}
      />
    </Page>
  );
}

/** Who a group names: its latest person, and how many more ("Ann and 2 others"). */
function othersText(n: Notification): string {
  const others = n.count - 1;
  if (others <= 0) return "";
  if (others === 1 && n.actors[1])
    return t("notifications.andName", { name: n.actors[1].displayName || n.actors[1].username });
  return t("notifications.andOthers", { count: others });
}

function NotificationItem({ n, onRead }: { n: Notification; onRead: () => void }) {
  // a resolved report is the administrators' doing, told by the instance's own account
  const fromInstance = n.type === "report";
  const name = fromInstance ? t("notifications.administrators") : n.actor.displayName || n.actor.username;
  const others = fromInstance ? "" : othersText(n);
  return (
    <li class={n.read ? "notification" : "notification notification-unread"}>
      <span class="notification-avatars">
        {(n.actors.length ? n.actors : [n.actor]).map((a) => (
          <Avatar key={a.username} user={a} size={n.actors.length > 1 ? 32 : 40} />
        ))}
      </span>
      <div class="notification-body">
        <p>
          {!n.read && <span class="visually-hidden">{t("notifications.unreadMark")} </span>}
          <Sentence
            text={t("notifications.line", { others })}
            parts={{
              who: fromInstance ? name : <a href={`/users/${n.actor.username}`}>{name}</a>,
              what: (
                <a href={targetOf(n)} class="notification-what" onClick={() => !n.read && onRead()}>
                  {whatOf(n.type)}
                </a>
              ),
            }}
          />
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
          aria-label={t("notifications.markReadOf", {
            text: t("notifications.line", { who: name, others, what: whatOf(n.type) }),
          })}
        >
          {t("notifications.markRead")}
        </button>
      )}
    </li>
  );
}
