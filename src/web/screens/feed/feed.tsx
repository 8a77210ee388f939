import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { Page } from "../../components/page";
import { StoryRow } from "../../components/story-row";
import { api } from "../../lib/api";
import { usePagedList } from "../../lib/paged";
import { onRealtime } from "../../lib/realtime";
import type { PageInfo, Post } from "../../lib/types";
import { Composer } from "./composer";
import { PostList } from "./post-list";
import { t } from "../../lib/i18n";

/** The feed: every post, or followed accounts and mine; new posts announced live, deleted ones removed. */
export function Feed() {
  const [following, setFollowing] = useState(false);
  // ids announced by feed:new and not on screen; a gap: events were missed, how many is unknown
  const [announced, setAnnounced] = useState<ReadonlySet<string>>(new Set());
  const [gap, setGap] = useState(false);
  const fresh = gap ? -1 : announced.size;
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<{ feed: Post[]; pageInfo: PageInfo }>("/social/feed", {
        cursor,
        following: following || undefined,
      });
      return { items: r.feed, nextCursor: r.pageInfo.nextCursor };
    },
    [following],
  );
  const list = usePagedList<Post>(following ? "following" : "all", load);
  // my own new post is already on screen: it is not news
  const shownIds = useRef(new Set<string>());
  shownIds.current = new Set(list.items.map((p) => p.id));

  useEffect(() => {
    const offNew = onRealtime("feed:new", ({ postIds }) => {
      const unseen = postIds.filter((id) => !shownIds.current.has(id));
      if (unseen.length) setAnnounced((ids) => new Set([...ids, ...unseen]));
    });
    const offDeleted = onRealtime("post:deleted", ({ postId }) =>
      list.setItems((items) => items.filter((p) => p.id !== postId && p.repostOf?.id !== postId)),
    );
    // events were missed (a long disconnection): how many posts is unknown, only that there may be some
    const offReset = onRealtime("stream:reset", () => setGap(true));
    return () => (offNew(), offDeleted(), offReset());
  }, []);

  function clearAnnounced() {
    setAnnounced(new Set());
    setGap(false);
  }

  function showNew() {
    clearAnnounced();
    void list.reload();
    scrollTo({ top: 0 });
  }

  function choose(next: boolean) {
    clearAnnounced();
    setFollowing(next);
  }

  return (
    <Page title={t("nav.feed")}>
      <StoryRow />
      <Composer
        onPosted={(post) => {
          list.setItems((items) => [post, ...items.filter((p) => p.id !== post.id)]);
          // the server may announce my post before this answer arrives: it is not news to me
          setAnnounced((ids) => (ids.has(post.id) ? new Set([...ids].filter((id) => id !== post.id)) : ids));
        }}
      />
      <div class="segmented" role="group" aria-label={t("feed.feed.which")}>
        <button type="button" aria-pressed={!following} onClick={() => choose(false)}>
          {t("feed.feed.all")}
        </button>
        <button type="button" aria-pressed={following} onClick={() => choose(true)}>
          {t("feed.feed.following")}
        </button>
      </div>
      <div class="new-posts" aria-live="polite">
        {fresh !== 0 && (
          <button type="button" class="primary" onClick={showNew}>
            {fresh < 0 ? t("feed.feed.newPostsUnknown") : t("feed.feed.newPosts", { count: fresh })}
          </button>
        )}
      </div>
      <PostList list={list} empty={following ? t("feed.feed.emptyFollowing") : t("feed.feed.empty")} />
    </Page>
  );
}
