import { useCallback } from "preact/hooks";
import { Page } from "../../components/page";
import { api } from "../../lib/api";
import { usePagedList } from "../../lib/paged";
import type { PageInfo, Post } from "../../lib/types";
import { PostList } from "./post-list";
import { t } from "../../lib/i18n";

/** /tags/:tag: the posts carrying a hashtag, newest first. */
export function Hashtag({ tag }: { tag: string }) {
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<{ posts: Post[]; pageInfo: PageInfo }>(
        `/social/hashtags/${encodeURIComponent(tag)}/posts`,
        { cursor },
      );
      return { items: r.posts, nextCursor: r.pageInfo.nextCursor };
    },
    [tag],
  );
  const list = usePagedList<Post>(tag, load);
  return (
    <Page title={`#${tag}`}>
      <PostList list={list} empty={t("feed.hashtag.empty", { tag })} />
    </Page>
  );
}
