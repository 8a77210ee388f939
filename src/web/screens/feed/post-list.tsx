import { useCallback } from "preact/hooks";
import { ListFooter } from "../../components/list-footer";
import type { usePagedList } from "../../lib/paged";
import type { Post } from "../../lib/types";
import { PostCard } from "./post-card";
import { t } from "../../lib/i18n";

/** Posts of a paged list, loading more as the end comes into view (and by a button, for keyboards). */
export function PostList({ list, empty }: { list: ReturnType<typeof usePagedList<Post>>; empty: string }) {
  const { setItems } = list;
  // stable callbacks: appending a page re-renders only the new cards (PostCard is memoised)
  const replace = useCallback((p: Post) => setItems((items) => items.map((x) => (x.id === p.id ? p : x))), [setItems]);
  const drop = useCallback((p: Post) => setItems((items) => items.filter((x) => x.id !== p.id)), [setItems]);
  return (
    <div class="post-list">
      {list.items.map((p) => (
        <PostCard key={p.id} post={p} onChange={replace} onDeleted={drop} />
      ))}
      <ListFooter list={list} noun={t("feed.list.noun")} empty={empty} />
    </div>
  );
}
