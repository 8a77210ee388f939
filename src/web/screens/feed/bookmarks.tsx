import { useCallback, useRef, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { usePagedList } from "../../lib/paged";
import type { PageInfo, Post } from "../../lib/types";
import { PostCard } from "./post-card";
import { shown, toggleBookmark, withShown } from "./post-store";
import { t } from "../../lib/i18n";

/** A post taken off the list by its bookmark button, and where it was, so Undo puts it back. */
interface Removed {
  post: Post;
  index: number;
}

/**
 * /bookmarks: the posts I bookmarked, the latest bookmark first, paged as the feed is. Pressing
 * a post's bookmark button here takes it off the list at once, with Undo (focus moves there, so
 * a keyboard is not left on a button that is gone).
 */
export function Bookmarks() {
  const load = useCallback(async (cursor: string | null) => {
    const r = await api.get<{ posts: Post[]; pageInfo: PageInfo }>("/social/bookmarks", { cursor });
    return { items: r.posts, nextCursor: r.pageInfo.nextCursor };
  }, []);
  const list = usePagedList<Post>("bookmarks", load);
  const { setItems } = list;
  // what change reads when called, kept out of its identity (the cards are memoised on it)
  const shownItems = useRef(list.items);
  shownItems.current = list.items;
  const [removed, setRemoved] = useState<Removed | null>(null);
  const [undoError, setUndoError] = useState<string | null>(null);
  const undoButton = useRef<HTMLButtonElement>(null);

  const change = useCallback(
    (next: Post) => {
      if (shown(next).bookmarked) {
        setItems((items) => items.map((x) => (x.id === next.id ? next : x)));
        return;
      }
      const index = shownItems.current.findIndex((x) => x.id === next.id);
      if (index >= 0) setRemoved({ post: next, index });
      setItems((items) => items.filter((x) => x.id !== next.id));
      setUndoError(null);
      requestAnimationFrame(() => undoButton.current?.focus());
    },
    [setItems],
  );
  const drop = useCallback((p: Post) => setItems((items) => items.filter((x) => x.id !== p.id)), [setItems]);

  async function undo() {
    if (!removed) return;
    try {
      const original = await toggleBookmark(shown(removed.post));
      const post = withShown(removed.post, original);
      setItems((items) => [...items.slice(0, removed.index), post, ...items.slice(removed.index)]);
      setRemoved(null);
    } catch (err) {
      setUndoError(describeError(err));
    }
  }

  return (
    <Page title={t("nav.bookmarks")}>
      <div class="bookmark-undo" role="status">
        {removed && (
          <p class="card">
            {t("feed.bookmarks.removed", { username: shown(removed.post).author.username })}{" "}
            <button type="button" class="small" ref={undoButton} onClick={() => void undo()}>
              {t("feed.bookmarks.undo")}
            </button>
          </p>
        )}
      </div>
      <FormError message={undoError} />
      <div class="post-list">
        {list.items.map((p) => (
          <PostCard key={p.id} post={p} onChange={change} onDeleted={drop} />
        ))}
        <ListFooter list={list} noun={t("feed.bookmarks.noun")} empty={t("feed.bookmarks.empty")} />
      </div>
    </Page>
  );
}
