import { useCallback } from "preact/hooks";
import { Avatar } from "../../components/avatar";
import { Dialog } from "../../components/dialog";
import { ListFooter } from "../../components/list-footer";
import { api } from "../../lib/api";
import { formatDateTime, formatRelative } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import type { PageInfo, StoryViewer as Viewer } from "../../lib/types";
import { t } from "../../lib/i18n";

/** Who saw one of my stories, newest first, in a dialog. */
export function StoryViewers({ storyId, open, onClose }: { storyId: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} title={t("stories.viewers.title")} onClose={onClose}>
      <ViewerList storyId={storyId} />
      <div class="actions">
        <button type="button" onClick={onClose}>
          {t("common.close")}
        </button>
      </div>
    </Dialog>
  );
}

function ViewerList({ storyId }: { storyId: string }) {
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<{ viewers: Viewer[]; pageInfo: PageInfo }>(`/social/stories/${storyId}/viewers`, {
        cursor,
      });
      return { items: r.viewers.map((v) => ({ ...v, id: v.user.id })), nextCursor: r.pageInfo.nextCursor };
    },
    [storyId],
  );
  const list = usePagedList(storyId, load);
  return (
    <div class="viewers">
      {list.items.length > 0 && (
        <ul class="viewer-list" aria-label={t("stories.viewers.list")}>
          {list.items.map((v) => (
            <li key={v.id}>
              <Avatar user={v.user} size={32} />
              <a href={`/users/${v.user.username}`}>{v.user.displayName || v.user.username}</a>
              <time class="muted" dateTime={v.viewedAt} title={formatDateTime(v.viewedAt)}>
                {formatRelative(v.viewedAt)}
              </time>
            </li>
          ))}
        </ul>
      )}
      <ListFooter list={list} noun={t("stories.viewers.noun")} empty={t("stories.viewers.empty")} />
    </div>
  );
}
