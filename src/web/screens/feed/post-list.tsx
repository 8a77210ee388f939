import { useCallback } from "preact/hooks";
import { Loading } from "../../components/page";
import { FormError } from "../../components/field";
import { useOnVisible, type usePagedList } from "../../lib/paged";
import type { Post } from "../../lib/types";
import { PostCard } from "./post-card";

/** Posts of a paged list, loading more as the end comes into view (and by a button, for keyboards). */
export function PostList({ list, empty }: { list: ReturnType<typeof usePagedList<Post>>; empty: string }) {
  const sentinel = useOnVisible(list.more, list.items.length);
  const { setItems } = list;
  // stable callbacks: appending a page re-renders only the new cards (PostCard is memoised)
  const replace = useCallback((p: Post) => setItems((items) => items.map((x) => (x.id === p.id ? p : x))), [setItems]);
  const drop = useCallback((p: Post) => setItems((items) => items.filter((x) => x.id !== p.id)), [setItems]);
  return (
    <div class="post-list">
      {list.items.map((p) => (
        <PostCard key={p.id} post={p} onChange={replace} onDeleted={drop} />
      ))}
      {!list.loading && list.done && list.items.length === 0 && <p class="empty">{empty}</p>}
      <FormError message={list.error} />
      {list.loading && <Loading label="Loading posts…" />}
      <div ref={sentinel} class="sentinel" />
      {!list.done && !list.loading && !list.error && list.items.length > 0 && (
        <button type="button" class="load-more" onClick={list.more}>
          Load more posts
        </button>
      )}
      {list.error && (
        <button type="button" onClick={list.items.length ? list.more : list.reload}>
          Try again
        </button>
      )}
    </div>
  );
}
