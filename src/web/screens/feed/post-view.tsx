import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import type { Post } from "../../lib/types";
import { Comments } from "./comments";
import { PostCard } from "./post-card";
import { shown, withShown } from "./post-store";
import { t } from "../../lib/i18n";

/** /posts/:id: one post with its comments and threads. */
export function PostView({ id }: { id: string }) {
  const { route } = useLocation();
  const [post, setPost] = useState<Post | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setPost(null);
    api
      .get<{ post: Post }>(`/social/posts/${id}`)
      .then((r) => setPost(r.post))
      .catch((err) => setError(describeError(err)));
  }, [id]);
  const original = post && shown(post);
  return (
    <Page title={original ? t("feed.postView.by", { username: original.author.username }) : t("feed.postView.post")}>
      {!post && !error && <Loading />}
      <FormError message={error} />
      {post && original && (
        <>
          <PostCard post={post} onChange={setPost} onDeleted={() => route("/", true)} />
          <Comments
            postId={original.id}
            postAuthorId={original.author.id}
            onCount={(d) => setPost(withShown(post, { ...original, commentCount: original.commentCount + d }))}
          />
        </>
      )}
    </Page>
  );
}
